"""Remove scraped-page noise from a postmortem by general means, never touching error lines or code.

Two mechanisms:
- corpus level, `find_boilerplate`: lines that repeat across several documents of a corpus (site chrome,
  "recommended" blurbs) and are neither error/log lines, code nor headings;
- document level, in `clean_text`: shape rules for navigation crumbs, login/subscribe prompts, share/like
  counters, publish/author/date lines, ads and footers, and a trailing block of unrelated items (product cards,
  link lists) found by walking back from the end of the page.

Every rule skips lines inside fenced code and lines that `kb.traceback.lines.classify_line` recognises: an error
line is never removed. `clean_text` says which lines it removed and why (`REASONS`), so `triage export --removed`
can show what was thrown away from a page.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from kb import rules
from kb.traceback.lines import classify_line

from ingest.sections import fence_mask, heading_kinds

# Why a line was removed: one name per rule below.
REASONS: dict[str, str] = {
    "boilerplate": "repeats across the documents of the corpus (site chrome, blurbs)",
    "crumb": "navigation breadcrumb",
    "prompt": "login, subscribe or read-more prompt",
    "counter": "share, like or view counters",
    "meta": "author, publish date or tags line",
    "footer": "footer, copyright, previous/next link or ad",
    "links": "menu row or related-links line",
    "tail": "trailing block of unrelated items (project cards, counts)",
    "related": "\"related / recommended\" list at the end of the page",
    "rule": "horizontal rule at the end of the page",
}


class Removed(NamedTuple):
    line: int          # 1-based, in the text given to clean_text (for a web page: the text read from it)
    text: str
    reason: str        # a key of REASONS


class Cleaned(NamedTuple):
    text: str
    removed: list[Removed]      # in line order; blank lines are not listed


# ---------------------------------------------------------------------------------------------------------------
# Protection
# ---------------------------------------------------------------------------------------------------------------

_ATX = re.compile(r"^\s{0,3}#{1,6}\s+\S")
# Lines that cite the article's sources (`owner/repo#N`, `参考：…`, `Reference: …`); URLs alone are not enough, since
# "related posts" lists are links too.
_CITATION = re.compile(r"\b[\w.-]+/[\w.-]+#\d+\b|^\s*(?:参考|参考资料|references?|see also|source)\s*[:：]", re.I)
_REFERENCE = re.compile(_CITATION.pattern + r"|https?://", re.I)
_CODEISH = re.compile(r"`|^\s{4,}\S|^\s*(?:import|from|def|class|pip|python\d?|export|cd|git|conda)\s|\s=\s|[{};]$")


@lru_cache(maxsize=65536)
def _is_error_line(line: str) -> bool:
    return classify_line(line) is not None


def _protected(line: str) -> bool:
    """Lines no noise rule may remove: error/log/traceback lines."""
    return bool(line.strip()) and _is_error_line(line)


def _is_heading(line: str) -> bool:
    return bool(_ATX.match(line)) or (len(line.strip()) <= 20 and bool(heading_kinds(line)))


# ---------------------------------------------------------------------------------------------------------------
# Corpus-level boilerplate
# ---------------------------------------------------------------------------------------------------------------

def boilerplate_key(line: str) -> str:
    """The form under which a line is compared across documents: trimmed, spaces collapsed, digit runs as 0
    (so `Kotlin07` and `Kotlin08` in two copies of one blurb compare equal)."""
    return re.sub(r"\d+", "0", re.sub(r"\s+", " ", line.strip()))


def find_boilerplate(texts: list[str], *, min_share: float = 0.02) -> set[str]:
    """Lines that repeat across several documents and are not error lines, code or headings.

    Args:
        texts: the decoded texts of one corpus.
        min_share: for large corpora, the share of documents a line must appear in; it must always appear in at
            least 2 documents.

    Returns:
        A set of `boilerplate_key` forms, to pass to `clean_text`.
    """
    need = max(2, math.ceil(min_share * len(texts)))
    counts: Counter[str] = Counter()
    for text in texts:
        lines = text.split("\n")
        code = fence_mask(lines)
        keys = set()
        for line, in_code in zip(lines, code):
            s = line.strip()
            if in_code or len(s) < 6 or _CODEISH.search(line) or _REFERENCE.search(s):
                continue
            keys.add(boilerplate_key(s))
        counts.update(keys)
    out = set()
    for key, n in counts.items():
        if n >= need and not _is_heading(key) and not _protected(key):
            out.add(key)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Line shapes
# ---------------------------------------------------------------------------------------------------------------

# The phrase tables (crumb roots, prompts, counters, dates, meta words, footers, list markers, language names) are
# data: kb/data/rules/page_noise.toml.
_NOISE = rules.load("page_noise")
_CRUMB_ROOT, _PROMPT, _COUNTER, _DATE, _META, _META_START, _FOOTER, _MARKER = (
    rules.regex(_NOISE["pattern"][name])
    for name in ("crumb_root", "prompt", "counter", "date", "meta", "meta_start", "footer", "marker"))
# Breadcrumb separators: `首页 / 大模型 / 正文`, `Home › Blog › NLP`.
_CRUMB_SEP = re.compile(r"\s+[/>›»＞→]\s+|\s*[›»＞]\s*")
_MARKER_START = re.compile(rf"^(?:{_MARKER.pattern})\s*[:：]", re.I)
# Programming-language names as repository cards print them; glued to a blurb and a count (`...CompassPython00`).
_LANGS = sorted(_NOISE["languages"].split(), key=len, reverse=True)
_LANG_ALT = "|".join(re.escape(x) for x in _LANGS) + "|" + "|".join(_NOISE["two_word_languages"])
_GLUED_LANG = re.compile(rf"(?<=[^\s\d])(?:{_LANG_ALT})\d{{2,5}}$")
_LANG_LINE = re.compile(rf"^(?:{_LANG_ALT})$")
_COUNT_LINE = re.compile(r"^\d[\d.,]*\s*[kKmMwW万千]?\+?$")
_RULE = re.compile(r"^\s*(?:[-*_=]\s*){3,}$|^\s*[—─━-]{3,}\s*$")
_LONE_BULLET = re.compile(r"^\s*[-*•·●▪]\s*$")
_LETTERS = re.compile(r"[A-Za-z\u4e00-\u9fff]")


def _is_crumb(line: str, near_top: bool) -> bool:
    s = line.strip()
    if len(s) > 120 or "`" in s:
        return False
    if near_top and _CRUMB_ROOT.match(s):
        return True
    parts = [p for p in _CRUMB_SEP.split(s) if p.strip()]
    if len(parts) >= 3 and all(len(p.strip()) <= 24 for p in parts) and not re.search(r"[。，,；;！!？?]", s):
        return True
    return False


def _is_prompt(line: str) -> bool:
    s = line.strip()
    return len(s) <= 160 and "`" not in s and _PROMPT.search(s) is not None


def _is_counter_line(line: str) -> bool:
    s = line.strip()
    if len(s) > 160:
        return False
    found = _COUNTER.findall(s)
    if not found:
        return False
    rest = _LETTERS.findall(_COUNTER.sub("", s))
    return len(found) >= 2 and len(rest) <= 0.4 * len(_LETTERS.findall(s)) or not rest


def _is_meta_line(line: str) -> bool:
    s = line.strip().lstrip(">").strip()
    if len(s) > 160 or "`" in s:
        return False
    if _META_START.match(s) and len(s) <= 80:
        return True
    if _DATE.search(s) and _META.search(s) and not re.search(r"[。！？]|[a-z]{2}\.\s+[A-Z]", s):
        return True                  # a date with author/views/tags, and no sentence around it
    seps = len(re.findall(r"\s[·|｜]\s|　[|｜·]　|\s·\s", s))
    return seps >= 2 and len(_META.findall(s)) + len(_COUNTER.findall(s)) >= 2


def _is_link_row(line: str) -> bool:
    """`关于我们 | 联系方式 | 隐私政策`: a row of short menu items (not a Markdown table)."""
    s = line.strip()
    if s.startswith("|") or "`" in s:
        return False
    parts = [p.strip() for p in re.split(r"\s[|｜]\s|　[|｜]　|\s·\s", s)]
    return len(parts) >= 3 and all(0 < len(p) <= 16 and not re.search(r"[#/=(]", p) for p in parts)


def _is_doubled(s: str) -> bool:
    """`kernelkernel`, `RuoYi-Vue3RuoYi-Vue3`: a card title rendered twice."""
    n = len(s)
    return n >= 6 and n % 2 == 0 and s[: n // 2] == s[n // 2:] and " " not in s[: n // 2].strip()


def noise_reason(line: str, near_top: bool = False) -> str | None:
    """Why a single line is page noise ("crumb", "prompt", "counter", "meta", "footer", "links": see REASONS), or
    None.

    Error lines are never noise.
    """
    s = line.strip()
    if not s or _protected(line):
        return None
    if _is_crumb(line, near_top):
        return "crumb"
    if _is_prompt(line):
        return "prompt"
    if _is_counter_line(line):
        return "counter"
    if _is_meta_line(line):
        return "meta"
    if len(s) <= 160 and _FOOTER.search(s):
        return "footer"
    if _is_link_row(line) or _MARKER_START.match(s):
        return "links"
    return None


# ---------------------------------------------------------------------------------------------------------------
# Trailing blocks
# ---------------------------------------------------------------------------------------------------------------

# A product name glued to its blurb: `KuiklyUI基于KMP技术…`, `compass-metrics-modelMetrics model…`.
_GLUED_NAME = re.compile(
    r"^(?P<name>[A-Za-z][\w.+-]{2,40}?)"        # the name, then: the name again, a case change, or Chinese text
    r"(?:(?P=name)|(?<=[a-z0-9])(?=[A-Z][a-z])|(?=[\u4e00-\u9fff]))")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_+-]{2,}")


def _vocabulary(lines: list[str]) -> set[str]:
    """Lower-cased technical tokens (identifiers, library and model names) of the article part of a page."""
    return {t.lower() for ln in lines for t in _TOKEN.findall(ln)}


def _tail_strength(line: str, vocab: set[str] | None = None) -> str | None:
    """'strong' for a line that only occurs in page tails (cards, counts, markers), 'weak' for a line that may
    belong to a tail, None for one that belongs to the article (error line, heading, reference, long prose).

    With `vocab` (the article's technical tokens), a name-glued-to-blurb line sharing none of them is strong too.
    """
    s = line.strip()
    if _protected(line) or _REFERENCE.search(s) or _ATX.match(line) and heading_kinds(s):
        return None
    if noise_reason(line) or _MARKER.search(s) and len(s) <= 30:
        return "strong"
    if len(s) >= 20 and _GLUED_LANG.search(s):
        return "strong"
    if _LANG_LINE.match(s) or _COUNT_LINE.match(s) or _is_doubled(s):
        return "strong"
    if _COUNTER.search(s) and len(s) <= 80:
        return "strong"
    if len(s) > 400 or _is_heading(line):
        return None
    if vocab is not None and len(s) >= 20 and _GLUED_NAME.match(s):
        tokens = {t.lower() for t in _TOKEN.findall(s)}
        if tokens and not tokens & vocab:
            return "strong"
    return "weak"


def _trailing_block_start(lines: list[str], code: list[bool], max_weak: int = 3) -> int | None:
    """Index where a trailing block of unrelated items starts, or None.

    Walks back from the end. Strong lines extend the block; up to `max_weak` weak lines in a row are tolerated
    between strong ones (the blurb of a project card). The block must hold two strong lines, or one strong line
    that is a marker, prompt or footer on its own.
    """
    earliest: int | None = None
    strong = 0
    decisive = False
    weak_run = 0
    vocab = _vocabulary([ln for ln, c in zip(lines[: max(1, len(lines) * 3 // 5)], code) if not c])
    i = len(lines) - 1
    while i >= 0:
        line = lines[i]
        if code[i]:
            break
        if not line.strip() or _RULE.match(line):
            i -= 1
            continue
        kind = _tail_strength(line, vocab)
        if kind is None:
            break
        if kind == "strong":
            earliest, weak_run = i, 0
            strong += 1
            s = line.strip()
            decisive = decisive or bool(noise_reason(line)) or bool(_MARKER.search(s) and len(s) <= 30)
        else:
            weak_run += 1
            if weak_run > max_weak:
                break
        i -= 1
    if earliest is None or not (strong >= 2 or decisive):
        return None
    return earliest


def _marker_block_start(lines: list[str], code: list[bool]) -> int | None:
    """A "related / recommended" headline in the last part of the page after which only short, unprotected
    lines follow: everything from the headline on is a link list."""
    n = len(lines)
    for i in range(n // 2, n):
        s = lines[i].strip().lstrip("#").strip()
        if not s or code[i] or len(s) > 40 or not _MARKER.search(s) or _protected(lines[i]):
            continue
        rest = lines[i + 1:]
        if len(rest) > 60 or any(code[i + 1:]):
            continue
        if all(not r.strip() or (len(r.strip()) <= 200 and not _protected(r) and not _CITATION.search(r)
                                 and not (_ATX.match(r) and heading_kinds(r))) for r in rest):
            return i
    return None


# ---------------------------------------------------------------------------------------------------------------
# clean_text
# ---------------------------------------------------------------------------------------------------------------

def _join_lone_bullets(lines: list[str], code: list[bool]) -> tuple[list[str], list[bool], list[int]]:
    """`-` alone on a line followed by the item text (a common scraping artefact) → `- item`. Also returns, per
    line, the index of the line it starts at in the input."""
    out, out_code, origin = [], [], []
    i = 0
    while i < len(lines):
        origin.append(i)
        if not code[i] and _LONE_BULLET.match(lines[i]) and i + 1 < len(lines) and lines[i + 1].strip() \
                and not code[i + 1]:
            out.append("- " + lines[i + 1].strip())
            out_code.append(False)
            i += 2
            continue
        out.append(lines[i])
        out_code.append(code[i])
        i += 1
    return out, out_code, origin


def _line_reason(line: str, near_top: bool, prev_crumb: bool, boilerplate: set[str] | frozenset[str]) -> str | None:
    """Why one unprotected line outside code is removed, or None to keep it."""
    s = line.strip()
    if boilerplate_key(s) in boilerplate and not _is_heading(line):
        return "boilerplate"
    if reason := noise_reason(line, near_top):
        return reason
    # the tail of a breadcrumb wrapped onto its own line: `首页` / `/ 正文标题`
    if prev_crumb and re.match(r"^[/>›»＞]\s", s):
        return "crumb"
    return None


def clean_text(text: str, boilerplate: set[str] | frozenset[str] = frozenset()) -> Cleaned:
    """Remove page noise from one document.

    Args:
        text: decoded text (Markdown or plain).
        boilerplate: keys from `find_boilerplate` over the corpus the document belongs to.

    Returns:
        The text without crumbs, prompts, counters, publish lines, footers, corpus boilerplate and trailing blocks
        of unrelated items (error lines and fenced code kept verbatim, runs of blank lines collapsed), and the
        lines removed, each with its reason.
    """
    lines = text.split("\n")
    lines, code, origin = _join_lone_bullets(lines, fence_mask(lines))
    removed: list[Removed] = []

    def drop(i: int, reason: str) -> None:
        if lines[i].strip():
            removed.append(Removed(origin[i] + 1, lines[i], reason))

    keep: list[bool] = [True] * len(lines)
    seen_text = 0
    prev_crumb = False
    for i, line in enumerate(lines):
        if code[i] or not line.strip():
            continue
        seen_text += 1
        near_top = seen_text <= 8
        s = line.strip()
        if _protected(line):
            prev_crumb = False
            continue
        reason = _line_reason(line, near_top, prev_crumb, boilerplate)
        if reason:
            keep[i] = False
            drop(i, reason)
        prev_crumb = reason is not None and (near_top and _CRUMB_ROOT.match(s) is not None
                                             or _is_crumb(line, near_top))

    kept = [i for i, k in enumerate(keep) if k]
    lines, code, origin = [lines[i] for i in kept], [code[i] for i in kept], [origin[i] for i in kept]

    # trailing blocks: cut at the earliest start either mechanism finds
    for finder, reason in ((_trailing_block_start, "tail"), (_marker_block_start, "related")):
        start = finder(lines, code)
        if start is not None:
            while start > 0 and (not lines[start - 1].strip() or _RULE.match(lines[start - 1])):
                start -= 1
            for i in range(start, len(lines)):
                drop(i, reason)
            lines, code, origin = lines[:start], code[:start], origin[:start]

    while lines and (not lines[-1].strip() or _RULE.match(lines[-1])) and not code[-1]:
        drop(len(lines) - 1, "rule")
        lines, code, origin = lines[:-1], code[:-1], origin[:-1]

    out: list[str] = []
    blank = 0
    for line, in_code in zip(lines, code):
        if in_code:
            out.append(line)
            blank = 0
            continue
        line = line.rstrip()
        if not line.strip():
            blank += 1
            if blank > 1:
                continue
        else:
            blank = 0
        out.append(line)
    return Cleaned("\n".join(out).strip("\n") + "\n", sorted(removed))
