"""A document's id (from its source path) and its title (from its first lines)."""
from __future__ import annotations

import re

from kb.traceback.lines import classify_line

from ingest.extract.sentences import split_sentences
from ingest.sections import fence_mask, is_heading_word


def doc_id_from_source(source: str) -> str:
    """A stable id from a source path: extension dropped, '/' → '__', other unsafe characters → '-'."""
    stem = re.sub(r"\.(?:txt|md|markdown|html?|json)$", "", source.strip().replace("\\", "/"), flags=re.I)
    stem = "__".join(p for p in stem.split("/") if p not in ("", "."))
    slug = re.sub(r"[^\w.-]+", "-", stem).strip("-.")
    return slug or "doc"


# Document-type prefixes that say nothing about the failure: `Postmortem:`, `故障复盘：`, `【已解决】`.
_TITLE_PREFIX = re.compile(
    r"^(?:(?:post-?mortem|incident(?: report)?|rca|root cause analysis|"
    r"故障复盘|问题复盘|复盘|故障分析|问题分析|问题记录|"
    r"踩坑记录|排障记录|bug ?report)\s*[:：\-—|]\s*|[【\[(（](?:已解决|solved|resolved|fixed|closed)[】\])）]\s*)+",
    re.I)
_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")


def tidy_title(title: str) -> str:
    """Strip Markdown marks and document-type prefixes from a title, keeping it readable."""
    title = re.sub(r"^#{1,6}\s+", "", title.strip()).strip("*_ ").strip()
    stripped = _TITLE_PREFIX.sub("", title).strip()
    return stripped or title


def split_title(text: str) -> tuple[str, str]:
    """(title, the rest of the text). The title is the first `#` heading among the first lines, else the first
    line when it is short; a document that opens with a section heading or long prose keeps all its text."""
    lines = text.split("\n")
    code = fence_mask(lines)
    first = [(i, ln) for i, ln in enumerate(lines) if ln.strip() and not code[i]][:3]
    for n, (i, line) in enumerate(first):
        m = _ATX.match(line)
        if m and (n == 0 or len(m.group(1)) == 1) and not is_heading_word(m.group(2)):
            return tidy_title(m.group(2)), "\n".join(lines[:i] + lines[i + 1:]).strip("\n")
    if not first:
        return "", text
    i, line = first[0]
    s = line.strip()
    if _ATX.match(line) or classify_line(s) is not None or is_heading_word(s):
        return "", text
    if len(s) <= 150:
        return tidy_title(s), "\n".join(lines[:i] + lines[i + 1:]).strip("\n")
    return tidy_title(split_sentences(s)[0][:120]), text
