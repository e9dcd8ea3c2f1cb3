"""jieba's search-mode segmentation of Chinese text, read from a table on disk instead of jieba's dictionary.

jieba spends ~0.8 s loading its 500k-entry prefix dictionary, which doubled a one-shot `diagnose` on a Chinese
report. Here the same words and frequencies (jieba's dictionary after our domain words are added) are a sorted
table that a process maps from disk: the substrings of a text that could be words are looked up in one numpy call,
then jieba's own steps follow (the word graph, the most probable route, its HMM for runs of unknown characters,
the sub-words of long words). The terms are jieba's `lcut_for_search` on every text (tests/test_han.py).
"""
from __future__ import annotations

import bisect
import hashlib
from math import log
from pathlib import Path

import numpy as np

from kb.index import mapped

FORMAT = 1
TABLE = "jieba-words.table"
_MAGIC = b"JIEBATAB"


def stamp(jieba_version: str, added_words: str) -> str:
    """What a table's contents depend on besides its format: jieba's release and the words we add to it."""
    return hashlib.sha256(f"{FORMAT}\0{jieba_version}\0{added_words}".encode()).hexdigest()[:16]


def write(path: Path, freq: dict[str, int], total: int, stamp_: str) -> None:
    """Write jieba's FREQ as a table (atomically: a reader never sees half a file). Its 0 entries are the prefixes
    of its words, and a prefix needs no row: a text is in FREQ exactly when a row starts with it."""
    rows = {w.encode("utf-8"): f for w, f in freq.items() if f}
    keys = sorted(rows)
    for w, f in freq.items():                   # a 0 entry that starts no word (none in jieba 0.42) keeps a row
        b = w.encode("utf-8")
        at = bisect.bisect_left(keys, b)
        if not f and not (at < len(keys) and keys[at].startswith(b)):
            rows[b] = 0
    keys = sorted(rows)
    width = max(1, max(map(len, keys)))
    settings = {"n": len(keys), "width": width, "total": int(total), "stamp": stamp_,
                "longest": max(len(k.decode("utf-8")) for k in keys)}
    path.parent.mkdir(parents=True, exist_ok=True)
    mapped.write(path, _MAGIC, FORMAT, settings,
                 [np.array(keys, dtype=f"S{width}"), np.array([rows[k] for k in keys], dtype=np.int64)])


class TableSegmenter:
    """`lcut_for_search(text)` as jieba's Tokenizer gives it, from a table `write` made. Raises ValueError on a file
    of another format or stamp (the caller then loads jieba, which writes a current one)."""

    def __init__(self, path: Path, stamp_: str) -> None:
        import jieba                     # its regexes and HMM (finalseg) tables: ~30 ms, no dictionary

        meta, (self._keys, self._freqs) = mapped.read(path, _MAGIC, FORMAT, "word table", lambda m: [
            (f"S{m['width']}", m["n"]), (np.int64, m["n"])])
        if meta.get("stamp") != stamp_:
            raise ValueError(f"{path}: written for another jieba or word list")
        self._width = meta["width"]
        self._longest = meta["longest"]
        self._logtotal = log(meta["total"])
        self._re_han, self._re_skip = jieba.re_han_default, jieba.re_skip_default
        self._hmm_cut = jieba.finalseg.cut

    def _lookup(self, text: str) -> dict[str, int]:
        """Each substring of `text` that is in jieba's FREQ, with its frequency (0: only a prefix of words)."""
        n, longest = len(text), self._longest
        subs = list({text[i:j] for i in range(n) for j in range(i + 1, min(n, i + longest) + 1)})
        encoded = [s.encode("utf-8") for s in subs]
        keep = [i for i, b in enumerate(encoded) if len(b) <= self._width]
        if not keep:
            return {}
        keys = np.array([encoded[i] for i in keep], dtype=self._keys.dtype)
        at = np.searchsorted(self._keys, keys)
        at[at == len(self._keys)] = len(self._keys) - 1
        found = self._keys[at].tolist()
        freqs = self._freqs[at].tolist()
        out: dict[str, int] = {}
        for i, row, f in zip(keep, found, freqs):
            b = encoded[i]
            if row == b:
                out[subs[i]] = f
            elif row.startswith(b):
                out[subs[i]] = 0
        return out

    def lcut_for_search(self, text: str) -> list[str]:
        freq = self._lookup(text)
        out: list[str] = []
        for w in self._cut(text, freq):
            if len(w) > 2:
                out += [w[i:i + 2] for i in range(len(w) - 1) if freq.get(w[i:i + 2])]
            if len(w) > 3:
                out += [w[i:i + 3] for i in range(len(w) - 2) if freq.get(w[i:i + 3])]
            out.append(w)
        return out

    def _cut(self, text: str, freq: dict[str, int]):
        """jieba's accurate mode with its HMM (Tokenizer.cut)."""
        for blk in self._re_han.split(text):
            if not blk:
                continue
            if self._re_han.match(blk):
                yield from self._cut_dag(blk, freq)
            else:
                for x in self._re_skip.split(blk):
                    if self._re_skip.match(x):
                        yield x
                    else:
                        yield from x

    def _cut_dag(self, sentence: str, freq: dict[str, int]):
        n = len(sentence)
        dag: list[list[int]] = []
        for k in range(n):
            ends, i, frag = [], k, sentence[k]
            while i < n and frag in freq:
                if freq[frag]:
                    ends.append(i)
                i += 1
                frag = sentence[k:i + 1]
            dag.append(ends or [k])
        route: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)
        for idx in range(n - 1, -1, -1):
            route[idx] = max((log(freq.get(sentence[idx:x + 1]) or 1) - self._logtotal + route[x + 1][0], x)
                             for x in dag[idx])
        x, buf = 0, ""
        while x < n:
            y = route[x][1] + 1
            word = sentence[x:y]
            if y - x == 1:
                buf += word
            else:
                if buf:
                    yield from self._flush(buf, freq)
                    buf = ""
                yield word
            x = y
        if buf:
            yield from self._flush(buf, freq)

    def _flush(self, buf: str, freq: dict[str, int]):
        """A run of single characters: as it is when it is one character or a word, else as the HMM cuts it."""
        if len(buf) == 1:
            yield buf
        elif not freq.get(buf):
            yield from self._hmm_cut(buf)
        else:
            yield from buf
