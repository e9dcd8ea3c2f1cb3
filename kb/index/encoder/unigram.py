"""The encoder's tokenizer in plain Python, for processes that answer one query and exit.

`tokenizers` spends 0.7 s building XLM-R's 250k-piece unigram model from `tokenizer.json`, most of a one-shot
`diagnose`; the same pieces read from a marshal file take about 0.1 s, and one report is tokenized in milliseconds.
The ids are those of the `tokenizers.Tokenizer` that `kb.index.encoder.tokenizer.build_tokenizer` makes (the
tests compare them on every report and postmortem in tests/data): a per-codepoint normalization map, runs of spaces
collapsed, a metaspace (U+2581) before the text and for every space, one pre-token per word and per character found
in no piece, Viterbi over the piece scores (of equal paths, the one whose last piece starts first, as `tokenizers`
does), a run of <unk> fused into one, and <s> ... </s> around it.
"""
from __future__ import annotations

import marshal
import os
import re
from pathlib import Path

FORMAT = 1
META = "\u2581"
UNK_PENALTY = 10.0           # an unknown character scores this far below the lowest piece (SentencePiece's rule)
_SPACES = re.compile(" {2,}")


def write(path: Path, pieces: list[str], scores: list[float], norm: dict[int, str], bos: int, eos: int,
          unk: int) -> None:
    """Write the tokenizer's data (atomically: a reader never sees half a file)."""
    known = "".join(sorted({c for p in pieces for c in p}))
    blob = marshal.dumps((FORMAT, pieces, [float(s) for s in scores], norm, known, bos, eos, unk))
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(blob)
    os.replace(tmp, path)


class UnigramTokenizer:
    def __init__(self, path: Path) -> None:
        fmt, pieces, self._scores, norm, known, self.bos, self.eos, self.unk = marshal.loads(Path(path).read_bytes())
        if fmt != FORMAT:
            raise ValueError(f"{path}: tokenizer format {fmt}, expected {FORMAT}")
        self._ids = dict(zip(pieces, range(len(pieces))))          # a piece listed twice keeps its last id
        self._longest = max(map(len, pieces))
        self._unk_score = min(self._scores) - UNK_PENALTY
        self._map = str.maketrans(norm)
        self._known = frozenset(known)
        self._cache: dict[str, list[int]] = {}

    def encode(self, text: str, max_tokens: int | None = None) -> list[int]:
        """<s>, the text's piece ids, </s>; with `max_tokens`, cut to that many with </s> kept last."""
        ids = [self.bos]
        for word in self._pretokens(self._normalize(text)):
            ids.extend(self._word(word))
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

    def _word(self, word: str) -> list[int]:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        n, ids, scores, longest = len(word), self._ids, self._scores, self._longest
        best = [0.0] + [float("-inf")] * n
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        for i in range(n):
            here, single = best[i], False
            for j in range(i + 1, min(n, i + longest) + 1):
                pid = ids.get(word[i:j])
                if pid is None:
                    continue
                single = single or j == i + 1
                score = here + scores[pid]
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
