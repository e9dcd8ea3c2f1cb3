"""Fix items of a fix section and who verified each (maintainer, reporter, none)."""
from __future__ import annotations

import re

from kb.models import Fix, VerifiedBy

from ingest.extract.blocks import split_blocks, strip_marker

# A statement that something was NOT confirmed; the clause it sits in confirms nothing.
_NEGATED = re.compile(
    r"未见|没有[^，,。；;]{0,12}(?:确认|验证|反馈|回复|测试)|未[^，,。；;]{0,6}(?:确认|验证|测试)|无人确认|尚未|未经|"
    r"没有再收到|not (?:been |yet )?(?:confirmed|verified|tested)|unconfirmed|unverified|untested|"
    r"no (?:feedback|confirmation|response)|without (?:confirmation|verification|testing)|never confirmed", re.I)
_MAINTAINER = re.compile(
    r"(?:维护者|官方|开发者团队|项目方|作者团队)[^，,。；;]{0,8}(?:确认|修复|合并|合入|接受|采纳|关闭|认可)|官方修复|已合并|已合入|"
    r"已在[^，,。；;]{0,12}(?:修复|解决)|已修复|主分支已|新版本已|"
    r"\bmaintainers?\b[^.;]{0,30}\b(?:confirm|fix|merg|accept|approv|recommend|point|chose|add|suggest|said)\w*|"
    r"\b(?:confirmed|fixed|merged|accepted) by (?:a |the )?maintainers?|\bmerged\b|\bfixed upstream\b|"
    r"\bupstream fix\b|\bclosed as fixed\b", re.I)
_REPORTER = re.compile(
    r"(?:提问者|楼主|题主|发帖人|报告者|用户|作者|有人|网友)[^，,。；;]{0,8}(?:确认|验证|反馈[^，,。；;]{0,4}(?:有效|解决))|"
    r"(?:^|[。；;，,\s])(?:已验证|验证通过|亲测)(?=[:：，,\s]|有效|通过|可行)|确认有效|亲测有效|解决了|就好了|问题解决|实测|"
    r"\bverified\b|\bconfirmed\b|\bworks\b|\bworked\b|\bdid the trick\b|\bmeasured\b|"
    r"\b(?:fixed|solved|resolved) it\b|\b(?:that|this) (?:fixed|solved|resolved)\b|\bworks now\b|"
    r"\b(?:we|i) (?:solved|fixed|resolved)\b", re.I)
_MAINTAINER_WORD = re.compile(r"维护者|官方|\bmaintainers?\b|\bcollaborators?\b", re.I)


def verified_by(text: str) -> tuple[VerifiedBy, bool]:
    """(who confirmed the fix in `text`, whether the text explicitly says it was not confirmed).

    "maintainer" when a maintainer confirmed, fixed, merged or recommended it (or upstream fixed it); "reporter"
    when the reporter or another user confirmed it worked; "none" otherwise. Clauses that say something was not
    confirmed (没有…确认, 未见, unconfirmed, untested, no feedback) are ignored.
    """
    clauses = re.split(r"(?<=[，,。；;！!？?])|(?<=\.)\s|\n", text)
    negated = False
    kept = []
    for c in clauses:
        if _NEGATED.search(c):
            negated = True
        else:
            kept.append(c)
    rest = " ".join(kept)
    if _MAINTAINER.search(rest):
        return "maintainer", negated
    if _REPORTER.search(rest):
        return "reporter", negated
    if _MAINTAINER_WORD.search(rest):
        return "maintainer", negated
    return "none", negated


# A paragraph that only reports the status of the fixes above it (`以上为…`, `Verified: …`).
_STATUS = re.compile(r"^(?:以上|上述|该方案|此方案|这个方案|这些方案|维护者|提问者|楼主|社区|官方|"
                     r"verified\b|confirmed\b|"
                     r"this was|this is what|the maintainers?\b|a maintainer\b|the reporter\b)", re.I)


def split_fixes(text: str) -> tuple[list[str], list[str]]:
    """(fix items, status notes) of a fix section. Items are list items and paragraphs; a code block joins the
    item before it; a short paragraph ending in a colon that introduces a list is dropped; paragraphs that only
    report the status of the fixes (`Verified: …`, `以上为…`) are returned as notes."""
    blocks = split_blocks(text)
    items: list[str] = []
    notes: list[str] = []
    for n, (kind, body) in enumerate(blocks):
        nxt = blocks[n + 1][0] if n + 1 < len(blocks) else None
        if kind == "code":
            if items:
                items[-1] += "\n" + body
            else:
                items.append(body)
            continue
        s = body.strip()
        if kind == "para" and re.search(r"[:：]$", s) and nxt == "item" and len(s) <= 120:
            continue                 # "经过研究，最终确定了以下解决方案：" introduces the list
        if kind == "para" and _STATUS.match(s) and len(s) <= 200 and items:
            notes.append(s)
            continue
        item = strip_marker(s) if kind == "item" else s
        if len(item) >= 4:
            items.append(item)
    return items, notes


def make_fixes(section_texts: list[str]) -> list[Fix]:
    """Fix items from fix/workaround section texts, each with `verified_by`: its own statement, else the
    statement its section makes about all its items (unless the item itself says it was not confirmed)."""
    fixes: list[Fix] = []
    for text in section_texts:
        items, _notes = split_fixes(text)
        section_status, _ = verified_by(text)
        for item in items:
            own, negated = verified_by(item)
            status = own if own != "none" or negated else section_status
            fixes.append(Fix(text=item, verified_by=status))
    return fixes
