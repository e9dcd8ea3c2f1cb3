"""Verbatim tracebacks and error-log runs of a text."""
from __future__ import annotations

import re

from kb.traceback.lines import classify_line

from ingest.sections import fence_mask


def find_tracebacks(text: str) -> list[str]:
    """Verbatim code blocks that hold error/log/traceback lines, and runs of two or more consecutive error or
    traceback lines outside code blocks (a frame's indented source line belongs to the run)."""
    lines = text.split("\n")
    code = fence_mask(lines)
    out: list[str] = []
    i = 0
    while i < len(lines):
        if code[i]:
            j = i + 1
            while j < len(lines) and code[j] and not (re.match(r"^\s{0,3}(`{3,}|~{3,})\s*$", lines[j])):
                j += 1
            block = lines[i + 1:j]
            if any(classify_line(b) is not None for b in block):
                out.append("\n".join(block).strip("\n"))
            i = j + 1
            continue
        run: list[str] = []
        j = i
        while j < len(lines) and not code[j]:
            kind = classify_line(lines[j])
            if kind is not None:
                run.append(lines[j])
            elif run and classify_line(run[-1]) == "frame" and lines[j].startswith((" ", "\t")) and lines[j].strip():
                run.append(lines[j])
            else:
                break
            j += 1
        if len(run) >= 2:
            out.append("\n".join(run).strip("\n"))
            i = j
        else:
            i += 1
    return list(dict.fromkeys(t for t in out if t.strip()))
