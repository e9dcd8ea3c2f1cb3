"""Issue / PR references and URLs a text gives."""
from __future__ import annotations

import re

from ingest.sections import fence_mask

_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`，。）]+")
_REPO_REF = re.compile(r"(?<![\w/.-])(?P<repo>[A-Za-z0-9][\w.-]{0,38}/[A-Za-z0-9][\w.-]{0,99})#(?P<num>\d{1,7})\b",
                       re.A)
_GH_URL = re.compile(r"https?://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:issues|pull|discussions)/(?P<num>\d+)", re.A)
_BARE_REF = re.compile(r"(?:(?<=\s)|(?<=[(（:：]))(?:PR\s*|issue\s*)?#(?P<num>\d{1,7})\b", re.I)


def find_references(text: str) -> list[str]:
    """`owner/repo#N` references (GitHub URLs to issues/PRs are also given in that form), other URLs, and
    `#N` / `PR #N` expanded with the repository named earlier on the same line. Code is ignored."""
    lines = text.split("\n")
    code = fence_mask(lines)
    out: list[str] = []
    for line, c in zip(lines, code):
        if c:
            continue
        line = _INLINE_CODE.sub(" ", line)
        repos = []
        for m in _REPO_REF.finditer(line):
            out.append(f"{m.group('repo')}#{m.group('num')}")
            repos.append(m.group("repo"))
        for m in _URL.finditer(line):
            url = m.group(0).rstrip(".,;:!?)）】")
            g = _GH_URL.match(url)
            if g:
                out.append(f"{g.group('repo')}#{g.group('num')}")
                repos.append(g.group("repo"))
            out.append(url)
        if repos:
            for m in _BARE_REF.finditer(line):
                out.append(f"{repos[0]}#{m.group('num')}")
    return list(dict.fromkeys(out))
