"""The runtime's plain-Python tokenizer gives the ids of the `tokenizers` model built from the same pieces, on every
report, postmortem and entry we have and on odd text (empty, lone metaspaces, combining marks, characters in no piece,
emoji, full-width forms), whole and cut to the query and passage limits."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from kb.index.encoder import unigram
from kb.index.encoder.base import encodable_text
from kb.index.encoder.packed import default_model_file, read_packed
from kb.index.encoder.tokenizer import build_tokenizer

ROOT = Path(__file__).resolve().parents[1]
ODD = ["", " ", "   ", "\n\n", "\x01\x02", "a", "\u2581", "\u2581\u2581x", "x  y", "\t\ttab", "ａ\u0301bc", "e\u0301",
       "😀😀x", "\u3000全角\u3000空格", "ＡＢＣ１２３", "Ⅻ ﬁ", "☃☃☃ snow", "ก่ก่ ไทย", "\u200b\u200d", "<s> </s> <unk>",
       "query: RuntimeError: CUDA error: out of memory", "passage: 显存不足 torch.Size([0])"]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    m = read_packed(default_model_file())
    path = tmp_path_factory.mktemp("tok") / "tokenizer.table"
    unigram.write(path, m.pieces, m.scores.tolist(), m.norm, m.bos, m.eos, m.unk)
    return unigram.UnigramTokenizer(path), build_tokenizer(m), m.eos


def _texts() -> list[str]:
    files = [p for p in (ROOT / "tests" / "data").rglob("*") if p.suffix in (".txt", ".md", ".html")]
    files += sorted((ROOT / "kb" / "data" / "entries").glob("*.md"))
    rng = random.Random(7)
    noise = ["".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0x80, 0x2FFF), rng.randint(0x3000, 0x9FFF),
                                     rng.randint(0x10000, 0x1F9FF)])) for _ in range(rng.randint(1, 60)))
             for _ in range(300)]
    return [encodable_text(p.read_text(encoding="utf-8", errors="replace")) for p in files] + ODD + noise


def test_same_ids_as_tokenizers_whole_and_cut(pair):
    ours, ref, eos = pair
    texts = _texts()
    assert len(texts) > 1000
    for text in texts:
        want = ref.encode(text).ids
        assert ours.encode(text) == want, text[:80]
        for limit in (16, 128, 512):
            cut = want if len(want) <= limit else want[: limit - 1] + [eos]
            assert ours.encode(text, limit) == cut, text[:80]


def test_refuses_another_format(tmp_path):
    import struct

    path = tmp_path / "t.table"
    path.write_bytes(struct.pack("<8sIQ", b"UNIGRAM\0", unigram.FORMAT + 1, 0) + b"\0" * 64)
    with pytest.raises(ValueError, match=f"tokenizer format {unigram.FORMAT + 1}, expected {unigram.FORMAT}"):
        unigram.UnigramTokenizer(path)
    path.write_bytes(b"short")
    with pytest.raises(ValueError, match="not a tokenizer file"):
        unigram.UnigramTokenizer(path)


def test_a_folder_of_the_first_format_is_upgraded_to_the_same_ids(pair, tmp_path):
    import marshal

    ours, _, _ = pair
    m = read_packed(default_model_file())
    legacy = tmp_path / "tokenizer.marshal"           # what encoder folders exported before the table hold
    known = "".join(sorted({c for p in m.pieces for c in p}))
    legacy.write_bytes(marshal.dumps((1, m.pieces, [float(x) for x in m.scores], m.norm, known, m.bos, m.eos, m.unk)))
    unigram.upgrade(legacy, tmp_path / "tokenizer.table")
    upgraded = unigram.UnigramTokenizer(tmp_path / "tokenizer.table")
    for text in _texts()[::25]:
        assert upgraded.encode(text) == ours.encode(text), text[:80]
