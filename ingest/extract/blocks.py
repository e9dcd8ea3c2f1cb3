"""A section as blocks: fenced code, list items and paragraphs."""
from __future__ import annotations

import re

from ingest.sections import fence_mask

_LIST_ITEM = re.compile(r"^\s*(?:[-*+•·●▪]|\d{1,3}[.)、．]|[a-z][.)])\s+")


def split_blocks(text: str) -> list[tuple[str, str]]:
    """(kind, text) blocks of a section: "code" (fenced, verbatim), "item" (a list item with its continuation
    lines) or "para"."""
    lines = text.split("\n")
    code = fence_mask(lines)
    out: list[tuple[str, str]] = []
    cur: list[str] = []
    cur_kind = "para"

    def flush() -> None:
        nonlocal cur
        if any(ln.strip() for ln in cur):
            out.append((cur_kind, "\n".join(cur).strip("\n")))
        cur = []

    i = 0
    while i < len(lines):
        if code[i]:
            flush()
            j = i
            while j < len(lines) and code[j]:
                j += 1
                if j < len(lines) and code[j] and re.match(r"^\s{0,3}(`{3,}|~{3,})\s*$", lines[j]):
                    j += 1
                    break
            out.append(("code", "\n".join(lines[i:j])))
            i = j
            continue
        line = lines[i]
        if not line.strip():
            flush()
            cur_kind = "para"
        elif _LIST_ITEM.match(line):
            flush()
            cur_kind = "item"
            cur.append(line)
        elif cur_kind == "item" and cur and not line.startswith((" ", "\t")) \
                and re.search(r"[。；;.!！]$", cur[-1].strip()):
            flush()                  # an unindented sentence after a finished item starts a paragraph
            cur_kind = "para"
            cur.append(line)
        else:
            cur.append(line)
        i += 1
    flush()
    return out


def strip_marker(text: str) -> str:
    return _LIST_ITEM.sub("", text, count=1).strip()

