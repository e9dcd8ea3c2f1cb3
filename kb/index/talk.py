"""The part of a reporter's words worth retrieving over.

People wrap an error in courtesy: "大家好，遇到了下面这个报错，网上搜了很久没找到答案，谢谢！", "I searched the
issues and found nothing similar, any help is appreciated". Such clauses name nothing about the failure, yet retrieval
over them is not neutral: BM25 relative to the best entry, or a dense vector, always ranks *some* entry first, and
that entry then looks corroborated by the report. `substance(prose)` keeps only the clauses that name something.
"""
from __future__ import annotations

import re

from kb import rules
from kb.index.tokenize import tokenize

# Talk words and failure words: data, kb/data/rules/talk.toml.
_WORDS = rules.load("talk")
_TALK_WORDS = rules.words(_WORDS["talk"])
_FAILURE_WORDS = rules.words(_WORDS["failure"])
# Clauses end at sentence and clause punctuation, in both languages.
_CLAUSE = re.compile(r"[。！？；，、\n!?;,]+|\.(?:\s+|$)")
# A term that is code-like (a digit, an underscore, a dot inside) names something by itself: `fp16`, `device_map`.
_CODE_TERM = re.compile(r"[0-9_.]")


def _weight(term: str) -> int:
    """What a term says about a failure: 2 for a failure word or a code-like term, 1 for another word of at least
    two Han or three Latin letters, 0 for talk."""
    if term in _TALK_WORDS:
        return 0
    if term in _FAILURE_WORDS or _CODE_TERM.search(term):
        return 2
    han = all("\u3400" <= ch <= "\u9fff" for ch in term)
    return 1 if len(term) >= (2 if han else 3) else 0


def substance(prose: str) -> str:
    """`prose` without the clauses that name nothing (fewer than two points by `_weight`)."""
    kept = [clause.strip() for clause in _CLAUSE.split(prose)
            if sum(_weight(t) for t in set(tokenize(clause))) >= 2]
    return ". ".join(kept)
