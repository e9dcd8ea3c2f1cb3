"""Which language a text is written in: the shares of Chinese and English prose, a report's language (the language
an answer is given in), and fenced code blocks (what is not prose).

Shared by ingest (a postmortem's languages) and kb (the language of an answer): it lives in kb so that both may
use it (kb imports neither ingest nor bot).
"""
from __future__ import annotations

import re

from kb.traceback.lines import classify_line

LANGS = ("en", "zh")
LANG_CHOICES = ("auto", "en", "zh")

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_EN_WORD = re.compile(r"(?<![\w./-])[A-Za-z][a-z']{1,}(?![\w/-])")
_EN_STOP = frozenset(
    "the a an to is are was were be been this that these those when which while with and or but of in on for it its "
    "not can could would should will if so then there as by from at into than also only after before because".split())
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`，。）]+")
# File paths (/home/u/x.py, C:\x\y, ./a/b), the indented and `File "..."` lines of a traceback.
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.@+~-]+){2,}[\\/]?|(?:\.{1,2}|~)[\\/][\w.@+~/\\-]+")
_FRAME = re.compile(r"^\s*(?:File \"|at [\w.$]+\(|\^+\s*$|Traceback \(most recent call last\))")


def fence_mask(lines: list[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (the fence lines included)."""
    mask = []
    fence: str | None = None
    for line in lines:
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)[0] * 3
                mask.append(True)
                continue
            mask.append(False)
        else:
            mask.append(True)
            if m and m.group(1).startswith(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
    return mask


def _prose(text: str) -> str:
    """Text without code blocks, inline code, URLs and error/log lines: what a reader reads as language."""
    lines = text.split("\n")
    code = fence_mask(lines)
    kept = [ln for ln, c in zip(lines, code) if not c and classify_line(ln) is None]
    return _URL.sub(" ", _INLINE_CODE.sub(" ", "\n".join(kept)))


def lang_shares(text: str) -> tuple[int, int]:
    """(Chinese characters, characters of English prose) in `text`'s prose. English counts only in sentences
    that read as English (several function words), so identifiers in Chinese prose do not count."""
    return _shares(_prose(text))


def _shares(prose: str) -> tuple[int, int]:
    han = len(_HAN.findall(prose))
    en = 0
    for sent in re.split(r"[.!?。！？\n]+", prose):
        words = _EN_WORD.findall(sent)
        if len(words) >= 4 and sum(w.lower() in _EN_STOP for w in words) >= 2 and not _HAN.search(sent):
            en += sum(len(w) for w in words)
    return han, en


def detect_langs(text: str) -> list[str]:
    """["zh"], ["en"], ["zh", "en"] or [] by the shares of Chinese and English prose.

    A Chinese character carries about as much as three English letters, hence the weight.
    """
    han, en = lang_shares(text)
    total = 3 * han + en
    if total == 0:
        return []
    out = []
    if han >= 10 and 3 * han >= 0.2 * total:
        out.append("zh")
    if en >= 40 and en >= 0.2 * total:
        out.append("en")
    if not out:
        out.append("zh" if 3 * han >= en else "en")
    return out


def main_lang(text: str) -> str:
    """"zh" when `text`'s prose is mostly Chinese (a Chinese character weighing three English letters), else "en"."""
    han, en = lang_shares(text)
    return "zh" if han and 3 * han >= en else "en"


def report_lang(text: str) -> str:
    """The language of a report's own words: "zh" when the reporter writes mostly Chinese, "en" otherwise.

    Only the reporter's words count: fenced code blocks, error and log lines, traceback frames, inline code, URLs
    and paths are left out, so an English traceback pasted under a Chinese question reads as Chinese, and a report
    that is nothing but a traceback reads as English. A few Chinese characters in an English report (a file name,
    a quoted term) do not make it Chinese: it takes at least 4 of them, and more weight than the English prose.
    """
    lines = text.split("\n")
    code = fence_mask(lines)
    kept = [ln for ln, c in zip(lines, code) if not c and not _FRAME.match(ln) and classify_line(ln) is None]
    prose = _PATH.sub(" ", _URL.sub(" ", _INLINE_CODE.sub(" ", "\n".join(kept))))
    han, en = _shares(prose)
    return "zh" if han >= 4 and 3 * han > en else "en"


def answer_lang(choice: str | None, text: str) -> str:
    """The language to answer `text` in: `choice` "en" or "zh" as given, "auto" (or None) the report's own."""
    choice = (choice or "auto").strip().lower()
    if choice in LANGS:
        return choice
    return report_lang(text)
