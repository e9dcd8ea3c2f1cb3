"""The encoder's tokenizer in plain Python, for processes that answer one query and exit.

`tokenizers` spends 0.7 s building XLM-R's 250k-piece unigram model from `tokenizer.json`, most of a one-shot
`diagnose`; here the pieces are a sorted table the process maps from disk (`write`), and one report is tokenized in
milliseconds.
The ids are those of the `tokenizers.Tokenizer` that `kb.index.encoder.tokenizer.build_tokenizer` makes (the
tests compare them on every report and postmortem in tests/data): a per-codepoint normalization map, runs of spaces
collapsed, a metaspace (U+2581) before the text and for every space, one pre-token per word and per character found
in no piece, Viterbi over the piece scores (of equal paths, the one whose last piece starts first, as `tokenizers`
does), a run of <unk> fused into one, and <s> ... </s> around it.
"""
from __future__ import annotations

import marshal
import re
from itertools import islice
from pathlib import Path

import numpy as np

from kb.index import mapped

FORMAT = 2
META = "\u2581"
UNK_PENALTY = 10.0           # an unknown character scores this far below the lowest piece (SentencePiece's rule)
_SPACES = re.compile(" {2,}")
_MAGIC = b"UNIGRAM\0"


def write(path: Path, pieces: list[str], scores: list[float], norm: dict[int, str], bos: int, eos: int,
          unk: int) -> None:
    """Write the tokenizer's data (atomically: a reader never sees half a file).

    Layout (kb.index.mapped): the small settings, then three arrays a reader maps without loading them: the
    pieces' UTF-8 bytes as fixed-width records in sorted order, their ids, their scores (float64, exact). Building
    a 250k-key dict was most of a one-shot `diagnose`'s tokenizer cost; a sorted table is searched in one numpy call
    for all of a text's candidate pieces instead."""
    if any("\0" in p for p in pieces):
        raise ValueError("a piece holds NUL, which the fixed-width table cannot tell from padding")
    last = {}
    for i, piece in enumerate(pieces):           # a piece listed twice keeps its last id, as `tokenizers` does
        last[piece.encode("utf-8")] = i
    keys = sorted(last)
    width = max(1, max(map(len, keys)))
    known = "".join(sorted({c for p in pieces for c in p}))
    settings = {"n": len(keys), "width": width, "norm": norm, "known": known, "bos": bos, "eos": eos, "unk": unk,
                "longest": max(map(len, pieces)), "unk_score": min(float(x) for x in scores) - UNK_PENALTY}
    table = np.array(keys, dtype=f"S{width}")
    ids = np.array([last[k] for k in keys], dtype=np.int64)
    mapped.write(path, _MAGIC, FORMAT, settings, [table, ids, np.asarray(scores, dtype=np.float64)[ids]])


def upgrade(legacy: Path, path: Path) -> None:
    """Write `path` from a tokenizer file of the first format (one marshalled tuple: format 1, pieces, scores,
    normalization map, known characters, bos, eos, unk), which encoder folders exported before format 2 hold."""
    fmt, pieces, scores, norm, _known, bos, eos, unk = marshal.loads(Path(legacy).read_bytes())
    if fmt != 1:
        raise ValueError(f"{legacy}: tokenizer format {fmt}, expected 1")
    write(path, pieces, scores, norm, bos, eos, unk)


class UnigramTokenizer:
    def __init__(self, path: Path) -> None:
        meta, arrays = mapped.read(path, _MAGIC, FORMAT, "tokenizer", lambda m: [
            (f"S{m['width']}", m["n"]), (np.int64, m["n"]), (np.float64, m["n"])])
        self._table, self._table_ids, self._table_scores = arrays
        self.bos, self.eos, self.unk = meta["bos"], meta["eos"], meta["unk"]
        self._longest = meta["longest"]
        self._unk_score = meta["unk_score"]
        self._map = str.maketrans(meta["norm"])
        self._known = frozenset(meta["known"])
        self._cache: dict[str, list[int]] = {}

    def _lookup(self, words: list[str]) -> dict[str, tuple[int, float]]:
        """(id, score) of every piece among the substrings of `words` that Viterbi will try."""
        subs = {w[i:j] for w in words for i in range(len(w)) for j in range(i + 1, min(len(w), i + self._longest) + 1)}
        if not subs:
            return {}
        width = self._table.dtype.itemsize
        encoded = [(x, b) for x in subs if len(b := x.encode("utf-8")) <= width and b"\0" not in b]
        if not encoded:
            return {}
        subs = [x for x, _ in encoded]
        keys = np.array([b for _, b in encoded], dtype=self._table.dtype)
        at = np.searchsorted(self._table, keys)
        at[at == len(self._table)] = 0
        hit = np.flatnonzero(self._table[at] == keys)
        ids, scores = self._table_ids[at[hit]].tolist(), self._table_scores[at[hit]].tolist()
        return {subs[h]: (i, sc) for h, i, sc in zip(hit.tolist(), ids, scores)}

    def encode(self, text: str, max_tokens: int | None = None) -> list[int]:
        """<s>, the text's piece ids, </s>; with `max_tokens`, cut to that many with </s> kept last."""
        words = self._pretokens(self._normalize(text))
        if max_tokens is not None:                 # enough words for the cut: each gives at least one id
            words = islice(words, max_tokens)
        words = list(words)
        # Pieces are looked up a slice of words at a time: a long report fills the cut long before the words it
        # would need at one id each, and looking up the rest was most of the tokenizer's time (2.7 -> 1.9 ms a report).
        step = max(1, len(words)) if max_tokens is None else max(8, max_tokens // 8)
        ids = [self.bos]
        for start in range(0, len(words), step):
            part = words[start:start + step]
            pieces = self._lookup([w for w in set(part) if w not in self._cache])
            for word in part:
                ids.extend(self._word(word, pieces))
                if max_tokens is not None and len(ids) >= max_tokens:
                    return ids[: max_tokens - 1] + [self.eos]
        ids.append(self.eos)
        return ids if max_tokens is None or len(ids) <= max_tokens else ids[: max_tokens - 1] + [self.eos]

    def _normalize(self, text: str) -> str:
        text = _SPACES.sub(" ", text.translate(self._map)).replace(" ", META)
        return text if not text or text.startswith(META) else META + text

    def _pretokens(self, text: str):
        if not text:
            return
        head, *words = text.split(META)
        for word in ([head] if head else []) + [META + w for w in words]:
            if self._known.issuperset(word):
                yield word
                continue
            start = 0
            for i, ch in enumerate(word):
                if ch not in self._known:
                    if start < i:
                        yield word[start:i]
                    yield ch
                    start = i + 1
            if start < len(word):
                yield word[start:]

    def _word(self, word: str, pieces: dict[str, tuple[int, float]]) -> list[int]:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        n, longest = len(word), self._longest
        best = [0.0] + [float("-inf")] * n
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        for i in range(n):
            here, single = best[i], False
            for j in range(i + 1, min(n, i + longest) + 1):
                piece = pieces.get(word[i:j])
                if piece is None:
                    continue
                pid = piece[0]
                single = single or j == i + 1
                score = here + piece[1]
                if score > best[j]:
                    best[j], back[j] = score, (i, pid)
            if not single and here + self._unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = here + self._unk_score, (i, self.unk)
        out: list[int] = []
        j = n
        while j > 0:
            i, pid = back[j]
            if not (pid == self.unk and out and out[-1] == self.unk):
                out.append(pid)
            j = i
        out.reverse()
        if len(self._cache) < 50_000:
            self._cache[word] = out
        return out
