"""Split a postmortem into `Section`s by its headings, in Chinese and English.

Headings are Markdown `#` lines, setext underlines, bold-only lines, `Label: text` lines whose label is a heading
word, and in plain-text articles short stand-alone lines. A heading's words map to a `SectionKind` through one
table (`HEADING_WORDS`); combined headings ("问题现象与解决方案", "Fix / workaround") map to several kinds, the
first of which becomes the section's kind (`heading_kinds` gives all of them).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from kb.lang import fence_mask
from kb.models import Section, SectionKind
from kb.traceback.lines import classify_line

# ---------------------------------------------------------------------------------------------------------------
# Heading vocabulary
# ---------------------------------------------------------------------------------------------------------------

_ZH: dict[SectionKind, str] = {
    "background": "问题背景 背景 背景介绍 背景说明 项目背景 技术背景 背景分析 背景知识 概述 概要 简介 引言 前言 "
                  "问题概述 使用场景 场景",
    "symptoms": "问题现象 现象 故障现象 错误现象 问题表现 具体表现 表现 错误信息 报错信息 报错 错误日志 日志 "
                "错误 问题描述 复现步骤 复现 重现步骤 异常信息 异常 症状 问题",
    "environment": "环境 环境信息 运行环境 软件环境 硬件环境 环境配置 版本信息 系统信息 配置信息",
    "root_cause": "根本原因 问题根源 根源 原因分析 根因 根因分析 原因 问题原因 问题分析 技术分析 技术原理 原理分析 "
                  "深入分析 问题定位 排查过程 排查 分析 技术细节 机制分析 错误原因 故障原因 原理 为什么",
    "fix": "解决方案 解决方法 解决办法 解决思路 解决 修复 修复方案 修复方法 处理方法 处理方案 处理办法 处理 "
           "长期解决方案 根本解决方案 永久解决方案 官方修复 方案 对策 修复与验证 正确的做法 正确做法 怎么解决 如何解决 "
           "怎么办 做法 提问者确认 楼主确认",
    "workaround": "临时解决方案 临时方案 临时解决办法 临时办法 规避方案 规避方法 规避 变通方案 绕过方法 缓解措施 "
                  "临时修复",
    "notes": "最佳实践 经验总结 总结 小结 结论 后续建议 建议 技术启示 启示 注意事项 参考 参考资料 参考链接 相关链接 "
             "影响分析 影响 延伸阅读 思考 预防措施 预防 经验教训 教训 心得 扩展 拓展 补充 备注 附录 技术要点 后记 展望 "
             "相关问题 相关 性能考量",
}

_EN: dict[SectionKind, str] = {
    "background": "background|context|introduction|intro|overview|problem statement|summary of the problem",
    "symptoms": "symptom|symptoms|error|errors|error message|error messages|error log|problem|issue|"
                "observed behavior|observed behaviour|actual behavior|actual behaviour|expected behavior|"
                "expected behaviour|what happened|description|bug description|issue description|"
                "problem description|traceback|stack trace|logs|log|reproduction|steps to reproduce|"
                "to reproduce|repro|failure|the error|the problem|what we saw|what you see|what you will see|"
                "what it looks like|how it shows up",
    "environment": "environment|env|system info|system information|versions|version info|setup|"
                   "configuration|hardware|software|platform",
    "root_cause": "root cause|root causes|root-cause|root cause analysis|cause|causes|the cause|analysis|"
                  "diagnosis|investigation|explanation|why|why it happened|what went wrong|technical details|"
                  "details|underlying cause|mechanism|what is going on|what's going on|what was going on|"
                  "what was happening|what it means|"
                  "how it happens|why it happens",
    "fix": "fix|fixes|the fix|solution|solutions|resolution|resolved|remedy|how to fix|fixed in|patch|"
           "correction|proposed fix|suggested fix|possible fix|permanent fix|long-term fix|final fix|"
           "fix and verification|what we did|what i did|what we changed|what i changed|how we fixed it|"
           "how i fixed it|what fixed it|what worked|what we shipped instead",
    "workaround": "workaround|workarounds|work-around|work around|temporary fix|quick fix|mitigation|"
                  "short-term fix|interim fix|temporary workaround",
    "notes": "notes|note|lessons|lessons learned|takeaways|key takeaways|best practices|best practice|"
             "recommendations|prevention|follow-up|follow up|references|reference|links|see also|related|"
             "conclusion|conclusions|summary|additional notes|additional context|faq|tips|caveats|impact|"
             "further reading|discussion|comments",
}


@dataclass(frozen=True)
class _Word:
    text: str
    kind: SectionKind


def _zh_words() -> list[_Word]:
    words = [_Word(w, kind) for kind, ws in _ZH.items() for w in ws.split()]
    return sorted(words, key=lambda w: -len(w.text))


HEADING_WORDS_ZH: list[_Word] = _zh_words()
HEADING_WORDS_EN: dict[str, SectionKind] = {w: kind for kind, ws in _EN.items() for w in ws.split("|")}

# Connectors inside a combined heading: 问题现象与解决方案, Fix / workaround, Root cause and fix.
_SPLIT = re.compile(r"\s*(?:与|和|及|以及|暨|&|/|／|\+|、|,|，|\band\b)\s*", re.I)
# Numbering and decoration in front of a heading: `1.`, `1.2`, `一、`, `（二）`, `Step 3:`, emoji, 【】.
_NUMBERING = re.compile(
    r"^(?:第?[一二三四五六七八九十]{1,3}[、.．:：)）]\s*|[(（][一二三四五六七八九十\d]{1,3}[)）]\s*|"
    r"\d{1,2}(?:\.\d{1,2}){0,3}[、.．):：]?\s+|\d{1,2}[、.．)]\s*|[IVX]{1,4}\.\s+)")
_DECOR = re.compile(r"^[\W_]+|[\W_]+$")
# A qualifier after a heading's words: "Explanation (digest author)", "Resolution (by the reporter, same day)".
_QUALIFIER = re.compile(r"\s*[(（][^()（）\n]{1,40}[)）]\s*(?=[:：.]?\s*$)")
# torchrun's failure summary prints "Root Cause (first observed failure):" over indexed rank records ("[0]:"): a
# log block, no heading.
_RECORD = re.compile(r"^\s*\[\d+\]\s*:\s*$")
# The conclusion of a write-up states the cause when no section or sentence names it.
CONCLUSION = frozenset(["结论", "总结", "小结", "conclusion", "conclusions", "summary"])
_EN_MODIFIER = re.compile(r"^(?:the|a|an|our|my|possible|proposed|suggested|final|recommended|how to)\s+", re.I)


# A reply in a thread summary ("维护者回复：", "Answer:") explains the cause and says what to do: both kinds, its
# sentences routed by cue words.
_ANSWER = frozenset(["回答", "答复", "解答", "答", "回复", "维护者回复", "官方回复", "维护者答复", "官方答复", "a", "answer",
                     "maintainer answer", "maintainer reply", "maintainer's answer", "maintainer's reply"])
_CLAUSE = frozenset("that which we i until for from in on with used applied".split())

_WHY_ZH = re.compile(r"为什么|原因是什么|怎么回事")


def heading_text(text: str) -> str:
    """A heading's words without numbering, decoration, a qualifier or a trailing colon."""
    text = _QUALIFIER.sub("", text.strip().strip("*_").strip())
    text = _NUMBERING.sub("", text)
    text = re.sub(r"[:：]\s*$", "", text)
    return _DECOR.sub("", text).strip()


def _part_kind(part: str) -> SectionKind | None:
    if not part:
        return None
    if re.search(r"[\u4e00-\u9fff]", part):
        for w in HEADING_WORDS_ZH:
            if part == w.text or part.startswith(w.text) or part.endswith(w.text):
                return w.kind
        # "形状为什么是 0", "报错的原因是什么": a question heading names the cause it goes on to explain
        return "root_cause" if _WHY_ZH.search(part) else None
    low = re.sub(r"\s+", " ", part.lower())
    low = re.sub(r"\b(?:actually|really|exactly) ", "", low)      # "What was actually going on"
    for cand in (low, _EN_MODIFIER.sub("", low)):
        if cand in HEADING_WORDS_EN:
            return HEADING_WORDS_EN[cand]
        # "Root cause analysis", "Fix (upstream)", "Workaround until 2.3": the longest heading phrase at the start
        words = cand.split(" ")
        for n in range(min(4, len(words)), 0, -1):
            head = " ".join(words[:n]).strip("()[]-—–:")
            # one heading word opens a longer heading only before a clause: "Workaround that worked for us"
            if head in HEADING_WORDS_EN and (n > 1 or len(words) <= 4 or words[1] in _CLAUSE):
                kind = HEADING_WORDS_EN[head]
                if kind == "fix" and re.search(r"\b(?:temporary|quick|short-term|interim)\b", cand):
                    return "workaround"
                return kind
    return None


def heading_kinds(text: str) -> list[SectionKind]:
    """All section kinds a heading's words name, in order; [] when none (an unknown heading).

    Args:
        text: the heading text, with or without `#`, numbering or a trailing colon.

    Returns:
        E.g. ["symptoms", "fix"] for "问题现象与解决方案", ["workaround"] for "临时解决方案".
    """
    text = heading_text(re.sub(r"^#{1,6}\s*", "", text.strip()))
    if not text:
        return []
    if text.lower() in _ANSWER:
        return ["root_cause", "fix"]
    whole = _part_kind(text)
    kinds: list[SectionKind] = []
    for part in _SPLIT.split(text):
        kind = _part_kind(_DECOR.sub("", part))
        if kind is not None and kind not in kinds:
            kinds.append(kind)
    if whole is not None and whole not in kinds:
        kinds.insert(0, whole)
    return kinds


# ---------------------------------------------------------------------------------------------------------------
# Line shapes
# ---------------------------------------------------------------------------------------------------------------

_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_BOLD = re.compile(r"^\s{0,3}(?:\*\*|__)([^*_\n]{1,60}?)(?:\*\*|__)\s*[:：]?\s*$")
_LABEL = re.compile(r"^\s{0,3}(?:\*\*)?([^\s:：*][^:：\n]{0,24}?)(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*(\S.*)$")
_RUN_IN = re.compile(r"^\s{0,3}(?:\*\*|__)([^*_\n.:：]{1,40}?)\s*[.:：]?\s*(?:\*\*|__)\s*[.:：]?\s+(\S.*)$")   # **Cause.** text
_LIST = re.compile(r"^\s*(?:[-*+•·●▪]\s|\d{1,3}[.)、．]\s?|[a-z][.)]\s)")
_SENTENCE_PUNCT = re.compile(r"[。，,；;！!？?]|\.\s|\.$")
_CODEISH = re.compile(r"[=(){}\[\]<>`|\\]|->|::|\$|^\s{4,}")
_LETTER = re.compile(r"[A-Za-z\u4e00-\u9fff]")
_CJK = re.compile(r"[\u4e00-\u9fff]")
# Label words that introduce an error message rather than a section (`报错：RuntimeError...`).
_ERROR_LABELS = {"error", "errors", "报错", "错误", "错误信息", "报错信息", "the error", "日志", "log", "logs"}


def _is_error_line(line: str) -> bool:
    return classify_line(line) is not None


def _short(line: str, limit_cjk: int = 30, limit_words: int = 8) -> bool:
    s = line.strip()
    if _CJK.search(s):
        return len(s) <= limit_cjk
    return len(s) <= 70 and len(s.split()) <= limit_words


def is_heading_word(text: str) -> bool:
    """Whether `text` is exactly a heading word or a combination of them ("根本原因与修复", "问题现象 / Symptoms")."""
    text = heading_text(text)

    def exact(part: str) -> bool:
        part = _DECOR.sub("", part).strip()
        if _CJK.search(part):
            return any(w.text == part for w in HEADING_WORDS_ZH)
        low = re.sub(r"\s+", " ", part.lower())
        return low in HEADING_WORDS_EN or _EN_MODIFIER.sub("", low) in HEADING_WORDS_EN

    if not text:
        return False
    parts = [p for p in _SPLIT.split(text) if p.strip()]
    return exact(text) or (len(parts) > 1 and all(exact(p) for p in parts))


def plain_heading(line: str) -> list[SectionKind] | None:
    """The kinds of a stand-alone plain-text heading line that uses heading words ("根本原因", "Root cause:"),
    or None when the line does not read as such a heading."""
    s = _QUALIFIER.sub("", line.strip())
    if not s or not _LETTER.search(s) or not _short(s) or _CODEISH.search(s):
        return None
    body = re.sub(r"[:：]\s*$", "", s)
    if _SENTENCE_PUNCT.search(body):
        return None
    if _LIST.match(s) and not _NUMBERING.match(s):
        return None
    if body != s and not is_heading_word(body):
        return None                  # `这一案例揭示了几个重要的技术要点:` introduces a list, it is no heading
    if _CJK.search(body) and len(body) > 16:
        return None
    kinds = heading_kinds(body)
    if not kinds or _is_error_line(s):
        return None
    # an English line must be the heading phrase itself (plus at most a few words), not a sentence starting with it
    if not _CJK.search(s) and len(body.split()) > 5:
        return None
    return kinds


def _unknown_plain_heading(line: str, prev: str, nxt: str, after_heading: bool) -> bool:
    """A short stand-alone line in a plain-text article that reads as a sub-heading without heading words."""
    s = line.strip()
    if not s or not _LETTER.search(s) or _CODEISH.search(line) or _LIST.match(s) or _NUMBERING.match(s):
        return False
    if not _short(s, 20, 6) or _SENTENCE_PUNCT.search(s) or s.endswith((":", "：")):
        return False
    if not _CJK.search(s) and not s[:1].isupper():
        return False
    if prev.strip() and not after_heading and not re.search(r"[。.!?！？:：]$", prev.strip()) \
            and not _is_error_line(prev):
        return False
    return bool(nxt.strip()) and len(nxt.strip()) > len(s) and not _is_error_line(s)


_BULLET = re.compile(r"^\s*[-*+•·●▪]\s+")


def label_line(line: str) -> tuple[str, list[SectionKind], str] | None:
    """(label, kinds, rest) for a `Root cause: ...` / `环境：...` line whose label is exactly a heading word; in
    notes kept as a bullet list the label may follow the bullet (`- 原因：...`)."""
    m = _LABEL.match(_BULLET.sub("", line, count=1)) or _RUN_IN.match(line)
    if not m:
        return None
    label = _QUALIFIER.sub("", m.group(1).strip())
    low = label.lower()
    if low in _ERROR_LABELS or _LIST.match(label):
        return None
    if low not in _ANSWER and (not any(w.text == label for w in HEADING_WORDS_ZH) if _CJK.search(label)
                               else low not in HEADING_WORDS_EN):
        return None
    if _is_error_line(line):
        return None
    return label, heading_kinds(label), m.group(2).strip()


# ---------------------------------------------------------------------------------------------------------------
# Splitting
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class _Open:
    heading: str
    kind: SectionKind
    level: int
    lines: list[str]
    recognised: bool


def split_sections(text: str) -> list[Section]:
    """Split text (the document without its title line) into sections, in order.

    Text before the first heading becomes a section with an empty heading and kind "body". A heading without
    heading words gets the kind of the heading it sits under (a deeper Markdown level, or in plain text a
    sub-heading right after an empty recognised heading), else "body".

    Args:
        text: cleaned postmortem text.

    Returns:
        The non-empty sections; headings are kept without `#` marks.
    """
    lines = text.split("\n")
    code = fence_mask(lines)
    has_md = any(_ATX.match(ln) for ln, c in zip(lines, code) if not c)
    out: list[_Open] = [_Open("", "body", 0, [], False)]
    stack: list[tuple[int, SectionKind]] = []        # open Markdown headings: (level, kind)
    parent: SectionKind | None = None                # plain text: kind an unknown sub-heading inherits

    def start(heading: str, kinds: list[SectionKind], level: int, md: bool) -> None:
        nonlocal parent
        cur = out[-1]
        if not md and cur.recognised:
            # a recognised heading with nothing under it is the parent of the sub-headings that follow
            parent = cur.kind if not any(ln.strip() for ln in cur.lines) else None
        if kinds:
            kind: SectionKind = kinds[0]
        elif md:
            kind = next((k for lv, k in reversed(stack) if lv < level), "body")
        else:
            kind = parent or "body"
        if md:
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, kind))
        out.append(_Open(heading, kind, level, [], bool(kinds)))

    heading_at = -2                                  # index of the last heading line seen
    i = 0
    while i < len(lines):
        line = lines[i]
        if code[i]:
            out[-1].lines.append(line)
            i += 1
            continue
        prev = lines[i - 1] if i > 0 else ""
        nxt = next((ln for ln in lines[i + 1:] if ln.strip()), "")
        m = _ATX.match(line)
        if m:
            heading = m.group(2).strip()
            start(heading, heading_kinds(heading), len(m.group(1)), True)
            heading_at = i
            i += 1
            continue
        if (i + 1 < len(lines) and not code[i + 1] and _SETEXT.match(lines[i + 1]) and line.strip()
                and _short(line, 40, 10) and not _LIST.match(line) and not _is_error_line(line)
                and (lines[i + 1].strip()[0] == "=" or has_md)):
            heading = line.strip()
            start(heading, heading_kinds(heading), 1 if lines[i + 1].strip()[0] == "=" else 2, True)
            i += 2
            continue
        b = _BOLD.match(line)
        if b and heading_kinds(b.group(1)):
            start(b.group(1).strip(), heading_kinds(b.group(1)), 7, has_md)
            heading_at = i
            i += 1
            continue
        kinds = plain_heading(line)
        if kinds and not _RECORD.match(nxt):
            start(heading_text(line) or line.strip(), kinds, 7, has_md)
            heading_at = i
            i += 1
            continue
        lab = label_line(line)
        if lab:
            label, kinds, rest = lab
            start(label, kinds, 7, has_md)
            out[-1].lines.append(rest)
            i += 1
            continue
        if not has_md and _unknown_plain_heading(line, prev, nxt, heading_at == i - 1):
            start(line.strip(), [], 7, False)
            heading_at = i
            i += 1
            continue
        out[-1].lines.append(line)
        i += 1

    sections = []
    for o in out:
        body = "\n".join(o.lines).strip("\n")
        body = re.sub(r"\n{3,}", "\n\n", body)
        if body.strip() or (o.heading and o.recognised):
            sections.append(Section(heading=o.heading, kind=o.kind, text=body))
    return [s for s in sections if s.text.strip()]
