"""A bilingual (English / Chinese) glossary of training-infrastructure terms, for retrieval across languages.

Postmortems and reports mix languages: an English traceback with "tensor parallel ... not divisible" must find a
Chinese postmortem that says 张量并行 ... 整除. The dense model bridges languages only loosely; BM25 not at all.
`expand_query(text)` returns the terms of the *other* language's names for every glossary concept the text
mentions, so a query is expanded and documents (and their stored token lists) stay as they were: no re-index.
`gloss(text)` names the same concepts in the other language, as a prefix for the dense query.

The concepts are data, kb/data/rules/glossary.toml (its header says how names match), read on first need.
"""
from __future__ import annotations

import re
from functools import lru_cache

from kb import rules
from kb.index.tokenize import tokenize



class _Concept:
    """One line of the glossary: its English names (found by a regex compiled on first need: most reports name a
    few concepts, and compiling all of them cost a one-shot `diagnose` 0.1 s) and its Chinese names."""

    def __init__(self, en: list[str], zh: tuple[str, ...]) -> None:
        self.en, self.zh = en, zh
        pieces = [re.split(r"[\s_-]+", w) for w in en]
        # A name's first word, lower-cased, is in the lower-cased text whenever the regex can match (re.I folds
        # case as str.lower does, but for a few letters such as U+017F that no report of ours uses).
        self.keys = tuple(dict.fromkeys(p[0].lower() for p in pieces))
        self._pieces = pieces
        self._regex: re.Pattern | None = None

    def regex(self) -> re.Pattern:
        if self._regex is None:
            words = [r"[\s_-]?".join(re.escape(p) for p in w) for w in self._pieces]
            # Abbreviations (tp, pp, lr, oom) must stand alone: `zero_pp_rank` is no pipeline-parallel size.
            short = [w for w in words if len(w) <= 3]
            long = [w for w in words if len(w) > 3]
            alts = []
            if long:
                alts.append(r"(?<![a-z0-9])(?:" + "|".join(long) + r")(?:s|es|ed|ing)?(?![a-z0-9])")
            if short:
                alts.append(r"(?<![a-z0-9_])(?:" + "|".join(short) + r")s?(?![a-z0-9_])")
            self._regex = re.compile("|".join(alts), re.I)
        return self._regex

    def named_in_english(self, text: str, lowered: str) -> bool:
        return any(k in lowered for k in self.keys) and self.regex().search(text) is not None


@lru_cache(maxsize=1)
def _concepts() -> list[_Concept]:
    out = []
    for line in rules.load("glossary")["concepts"].strip().splitlines():
        en_part, zh_part = (p.strip() for p in line.split("|"))
        en = [w.strip() for w in en_part.split(",") if w.strip()]
        out.append(_Concept(en, tuple(w.strip() for w in zh_part.split(",") if w.strip())))
    return out


@lru_cache(maxsize=256)
def _mentioned(text: str) -> tuple[tuple[list[str], tuple[str, ...], bool], ...]:
    """(English names, Chinese names, named in English?) of each concept the text mentions in one language."""
    found = []
    lowered = text.lower()
    for c in _concepts():
        if c.named_in_english(text, lowered):
            found.append((c.en, c.zh, True))
        elif any(w in text for w in c.zh):
            found.append((c.en, c.zh, False))
    return tuple(found)


def expand_query(text: str) -> tuple[str, ...]:
    """Terms of the other language's names for each glossary concept that `text` mentions (each concept once)."""
    extra: list[str] = []
    for en, zh, in_english in _mentioned(text):
        extra.extend(_han_pieces(zh) if in_english else tokenize(" ".join(en)))
    return tuple(dict.fromkeys(extra))


@lru_cache(maxsize=512)
def _han_pieces(names: tuple[str, ...]) -> tuple[str, ...]:
    """Every piece of two or more characters of the Chinese names: the words jieba cuts a document into are among
    them (张量并行 → 张量, 并行, 张量并行), and a piece no document has is simply not in the index. Cutting the names
    with jieba itself would load its dictionary (most of a second) for every English report."""
    return tuple(dict.fromkeys(name[i:j] for name in names for i in range(len(name))
                               for j in range(i + 2, len(name) + 1)))


def gloss(text: str) -> str:
    """The other language's main name of each concept the text mentions: a prefix that lets a multilingual
    encoder (weak across languages on its own) place an English report near a Chinese postmortem and back."""
    return " ".join(dict.fromkeys((zh[0] if in_english else en[0]) for en, zh, in_english in _mentioned(text)))


def query_terms(text: str) -> list[str]:
    """BM25 terms of a query: its own, then the glossary's other-language terms it does not already contain (BM25
    adds up over terms, so a translated term weighs what the reporter's own word would)."""
    terms = tokenize(text)
    have = set(terms)
    return terms + [t for t in expand_query(text) if t not in have]
