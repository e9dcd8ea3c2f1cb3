"""Turn a `RawDocument` into a `Document`: title, languages, libraries, error lines, tracebacks, root cause,
fixes with who verified them, versions, references and sections.

Structured fields come from the sections (`ingest.sections`); a document without headings falls back to sentence
cues (原因是 / because …, 解决 / fix …). Entries with front matter are handed to `ingest.frontmatter.parse_entry`.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from kb.lang import detect_langs
from kb.models import Document, Fix, Section, VerifiedBy
from kb.traceback.lines import classify_line, embedded_errors, find_error_lines, output_message, quoted_output

from ingest.clean import clean_text
from ingest.read import RawDocument
from ingest.sections import fence_mask, heading_kinds, is_heading_word, split_sections

# ---------------------------------------------------------------------------------------------------------------
# doc ids and titles
# ---------------------------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------------------------
# languages
# ---------------------------------------------------------------------------------------------------------------

_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`，。）]+")
# detect_langs lives in kb.lang (the answer's language is judged with the same measure).


# ---------------------------------------------------------------------------------------------------------------
# libraries, versions, references
# ---------------------------------------------------------------------------------------------------------------

# canonical name → regex of the ways it is written. Ambiguous English words (accelerate, tokenizers, apex, trl)
# only count in a library context: capitalised, backticked, imported, pinned, or followed by `'s` / `.`.
LIBRARIES: dict[str, str] = {
    "torch": r"\btorch(?:run)?\b|\bpytorch(?![- ]lightning)\b|\bFSDP\d?\b|\bDDP\b|\bDistributedDataParallel\b|"
             r"\bFullyShardedDataParallel\b",
    "deepspeed": r"\bdeep[-_ ]?speed\b|\bZeRO[- ]?(?:stage[- ]?)?[123]\b|\bZeRO-(?:Offload|Infinity)\b",
    "transformers": r"(?<![-\w])transformers\b|\bHF Trainer\b|\bfrom_pretrained\b",
    "accelerate": r"\bAccelerate\b(?!d)|`accelerate`|\baccelerate(?:'s|\.|==| launch| config)|"
                  r"(?:from|import|install) accelerate\b",
    "peft": r"\bpeft\b|\bPeftModel\w*\b|\bAutoPeft\w*",
    "trl": r"\bTRL\b|`trl`|\btrl(?:\.|==)|(?:from|import|install) trl\b|\b(?:SFT|DPO|GRPO|PPO)Trainer\b",
    "vllm": r"\bvllm\b",
    "megatron": r"\bmegatron\b",
    "colossalai": r"\bcolossal[-_ ]?ai\b",
    "nccl": r"\bnccl\b",
    "flash-attn": r"\bflash[-_]attn\b|\bflash[-_ ]?attention[-_ ]?2?\b",
    "bitsandbytes": r"\bbitsandbytes\b|\bbnb\b",
    "liger-kernel": r"\bliger[-_ ]?kernel\b|\bliger\b",
    "lightning": r"\b(?:pytorch[- ])?lightning\b",
    "safetensors": r"\bsafetensors?\b",
    "sentence-transformers": r"\bsentence[-_]transformers\b",
    "tokenizers": r"`tokenizers`|\btokenizers(?:==|\.)|(?:from|import|install) tokenizers\b|\bTokenizers\b",
    "llama-factory": r"\bllama[-_ ]?factory\b",
    "nanotron": r"\bnanotron\b",
    "xformers": r"\bxformers\b",
    "apex": r"\bNVIDIA Apex\b|\bapex\.\w+|(?:from|import|install) apex\b|`apex`|\bApex\b",
    "cuda": r"\bcuda\b",
    "diffusers": r"\bdiffusers\b",
    "torchtune": r"\btorchtune\b",
    "xtuner": r"\bxtuner\b",
    "unsloth": r"\bunsloth\b",
    "triton": r"\btriton\b",
    "nemo": r"\bnemo\b",
    "lmdeploy": r"\blmdeploy\b",
    "sglang": r"\bsglang\b",
    "axolotl": r"\baxolotl\b",
    "jax": r"\bjax\b",
}
_CASE_SENSITIVE = {"accelerate", "trl", "tokenizers", "apex"}
# re.ASCII: a CJK character next to a name is a word boundary (`XTuner训练中`, `在LLaMA Factory中`).
_LIB_RX = {name: re.compile(rx, re.A if name in _CASE_SENSITIVE else re.A | re.I) for name, rx in LIBRARIES.items()}


def find_libraries(text: str) -> list[str]:
    """Canonical names of the libraries `text` names, in table order."""
    return [name for name, rx in _LIB_RX.items() if rx.search(text)]


# How versions are written next to a library name.
_VERSION_LIBS: dict[str, str] = {
    "torch": r"torch|pytorch", "transformers": r"transformers", "deepspeed": r"deepspeed", "accelerate": r"accelerate",
    "peft": r"peft", "trl": r"trl", "vllm": r"vllm", "megatron": r"megatron(?:-lm|-core)?",
    "colossalai": r"colossal-?ai",
    "cuda": r"cuda", "cudnn": r"cudnn", "nccl": r"nccl", "flash-attn": r"flash[-_]attn|flash[-_ ]?attention",
    "bitsandbytes": r"bitsandbytes", "liger-kernel": r"liger[-_]kernel", "lightning": r"(?:pytorch[- ])?lightning",
    "safetensors": r"safetensors", "sentence-transformers": r"sentence-transformers", "tokenizers": r"tokenizers",
    "llama-factory": r"llama-?factory", "nanotron": r"nanotron", "xformers": r"xformers", "apex": r"apex",
    "python": r"python", "diffusers": r"diffusers", "torchtune": r"torchtune", "xtuner": r"xtuner",
    "triton": r"triton", "datasets": r"datasets", "numpy": r"numpy", "jax": r"jax", "nemo": r"nemo",
    "driver": r"driver",
}
_VERSION = r"\d+(?:\.(?:\d+|x|\*))+(?:[\w.+-]*[\w])?"
_LIB_VERSION = re.compile(
    r"(?<![\w-])(?P<lib>" + "|".join(f"(?P<{k.replace('-', '_')}>{v})" for k, v in _VERSION_LIBS.items()) + r")"
    r"(?:\s*(?P<op>==|>=|<=|~=|!=|>|<)\s*|[ \t]*(?:version|版本)?[ \t]*[:：]?[ \t]*v?|[-@]v?)(?P<ver>" + _VERSION + ")",
    re.I | re.A)
_BARE_VERSION = re.compile(r"(?:(?<![\w-])v|版本\s*[(（]?\s*(?:如|例如|为)?\s*|\bversion\s+)"
                           r"(?P<ver>\d+\.\d+(?:\.\d+)?)\b",
                           re.I | re.A)


def find_versions(text: str) -> list[str]:
    """Version mentions: `transformers==4.37.2`, `torch 2.1.0`, `cuda 12.1`, `v0.3.1` (with the library named
    just before it when there is one)."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    for m in _LIB_VERSION.finditer(text):
        name = next(k for k in _VERSION_LIBS if m.group(k.replace("-", "_")))
        op = m.group("op")
        out.append(f"{name}{op}{m.group('ver')}" if op else f"{name} {m.group('ver')}")
        spans.append(m.span())
    for m in _BARE_VERSION.finditer(text):
        if any(a <= m.start("ver") < b for a, b in spans):
            continue
        before = text[max(0, m.start() - 40):m.start()]
        libs = [(mm.end(), k) for k, rx in _LIB_RX.items() for mm in rx.finditer(before)]
        if libs:
            out.append(f"{max(libs)[1]} {m.group('ver')}")
        else:
            out.append(("v" if m.group(0).lower().startswith("v") else "") + m.group("ver"))
    return list(dict.fromkeys(out))


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


# ---------------------------------------------------------------------------------------------------------------
# tracebacks
# ---------------------------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------------------------
# fixes and who verified them
# ---------------------------------------------------------------------------------------------------------------

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


_LIST_ITEM = re.compile(r"^\s*(?:[-*+•·●▪]|\d{1,3}[.)、．]|[a-z][.)])\s+")
# A paragraph that only reports the status of the fixes above it (`以上为…`, `Verified: …`).
_STATUS = re.compile(r"^(?:以上|上述|该方案|此方案|这个方案|这些方案|维护者|提问者|楼主|社区|官方|"
                     r"verified\b|confirmed\b|"
                     r"this was|this is what|the maintainers?\b|a maintainer\b|the reporter\b)", re.I)


def _blocks(text: str) -> list[tuple[str, str]]:
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


def _strip_marker(text: str) -> str:
    return _LIST_ITEM.sub("", text, count=1).strip()


def split_fixes(text: str) -> tuple[list[str], list[str]]:
    """(fix items, status notes) of a fix section. Items are list items and paragraphs; a code block joins the
    item before it; a short paragraph ending in a colon that introduces a list is dropped; paragraphs that only
    report the status of the fixes (`Verified: …`, `以上为…`) are returned as notes."""
    blocks = _blocks(text)
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
        item = _strip_marker(s) if kind == "item" else s
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


# ---------------------------------------------------------------------------------------------------------------
# sentence cues (combined sections, documents without headings)
# ---------------------------------------------------------------------------------------------------------------

_CAUSE_CUE = re.compile(
    r"原因是|原因在于|根本原因|根因|根源|由于|源于|是因为|因为|问题出在|问题在于|归因于|导致的|所致|本质上|原来|"
    r"(?:排查|查|定位|检查|确认)(?:了一下|之后|后)?发现|罪魁祸首|"
    r"\bbecause\b|\bcaused by\b|\bdue to\b|\broot cause\b|\bthe (?:real |actual )?(?:reason|cause|culprit)\b|"
    r"\bstems? from\b|\bresults? from\b|\bturn(?:s|ed) out\b", re.I)
# A sentence that says what followed from what: the mechanism, when no sentence names the cause.
_CONSEQUENCE = re.compile(r"所以|因此|于是|以致|导致|使得|意味着|也就是说|\bthis means\b|\bin other words\b|, so\b|\bwhich is why\b|\bthat is why\b|\bhence\b|"
                          r"\bso that\b|\bwhich (?:means|made|makes|caused|left)\b", re.I)
_FIX_CUE = re.compile(
    r"解决|修复|规避|绕过|改为|改成|改用|设置|升级|降级|安装|添加|加上|即可|建议|"
    r"\bfix(?:ed|es)?\b|\bsolution\b|\bresolv\w+|\bworkaround\b|\bupgrad\w+|\bdowngrad\w+|\binstall\w*|"
    r"\bset(?:ting)?\b|\bswitch(?:ing)? to\b|\binstead\b|\bavoid\b", re.I)


def split_sentences(text: str) -> list[str]:
    """Sentences of prose: split after 。！？!? and after a full stop followed by a space, and at line breaks."""
    parts = re.split(r"(?<=[。！？!?])|(?<=\.)\s+|\n+", text)
    return [p.strip() for p in parts if p and p.strip()]


def _join_sentences(sents: list[str]) -> str:
    """Sentences back into one paragraph (no space after Chinese punctuation); code blocks on their own lines."""
    out = ""
    for sent in sents:
        if sent.startswith(("```", "~~~")) or (out and out.endswith(("```", "~~~"))):
            out += ("\n" if out else "") + sent
        elif not out or re.search(r"[\u3000-\u303f\uff00-\uffef]$", out):
            out += sent
        else:
            out += " " + sent
    return out


def route_sentences(text: str, kinds: list[str]) -> dict[str, list[str]]:
    """Distribute a combined section's sentences ("根本原因与修复") over its kinds by cue words; a code block
    goes with the sentence before it."""
    out: dict[str, list[str]] = {k: [] for k in kinds}
    last = kinds[0]
    for kind_of_block, block in _blocks(text):
        if kind_of_block == "code":
            out[last].append(block)
            continue
        for sent in split_sentences(_strip_marker(block) if kind_of_block == "item" else block):
            fixy = _FIX_CUE.search(sent) and not _CAUSE_CUE.search(sent)
            if "fix" in out and fixy:
                last = "fix"
            elif "workaround" in out and fixy:
                last = "workaround"
            elif "root_cause" in out and _CAUSE_CUE.search(sent):
                last = "root_cause"
            else:
                last = kinds[0]
            out[last].append(sent)
    return out


def _cue_sentences(text: str, cue: re.Pattern[str], limit: int, exclude: re.Pattern[str] | None = None) -> list[str]:
    found = []
    lines = text.split("\n")
    code = fence_mask(lines)
    readable = "\n".join(ln for ln, c in zip(lines, code) if not c and classify_line(ln) is None)
    clauses = [c for sent in split_sentences(readable) for c in re.split(r"(?<=[；;])\s*", sent) if c.strip()]
    for sent in clauses:
        if cue.search(sent) and not (exclude and exclude.search(sent)) and len(sent) >= 8:
            found.append(sent)
            if len(found) >= limit:
                break
    return found


# ---------------------------------------------------------------------------------------------------------------
# extract_document
# ---------------------------------------------------------------------------------------------------------------

_ADVICE = re.compile(r"建议|最佳实践|实践|对策|预防|recommend|best practice|advice|prevention|tips", re.I)


class SectionFields(NamedTuple):
    symptoms: str
    root_cause: str
    fix_texts: list[str]          # texts of fix/workaround sections (or advice sections when there are none)


def fields_from_sections(sections: list[Section]) -> SectionFields:
    """symptoms, root_cause and fix texts gathered from sections by kind (combined headings split by cue words)."""
    parts: dict[str, list[str]] = {"symptoms": [], "root_cause": [], "fix": []}
    advice: list[str] = []
    for sec in sections:
        kinds = heading_kinds(sec.heading) if sec.heading else []
        if not kinds or sec.kind not in kinds:
            kinds = [sec.kind]
        kinds = list(dict.fromkeys("fix" if k == "workaround" else k for k in kinds))
        if len(kinds) > 1:
            for kind, sents in route_sentences(sec.text, kinds).items():
                if kind in parts and sents:
                    parts[kind].append(_join_sentences(sents))
        elif kinds[0] in parts:
            parts[kinds[0]].append(sec.text)
        elif kinds[0] == "notes" and _ADVICE.search(sec.heading):
            advice.append(sec.text)
    return SectionFields(
        symptoms="\n\n".join(parts["symptoms"]).strip(),
        root_cause="\n\n".join(parts["root_cause"]).strip(),
        fix_texts=parts["fix"] or advice,
    )


def find_all_error_lines(text: str) -> list[str]:
    """`find_error_lines`, plus exception headers embedded in the middle of Chinese sentences and failures said in
    words inside a code block of tool output (`Could not load ... library`), in text order."""
    found = find_error_lines(text)
    lines = text.split("\n")
    code = fence_mask(lines)
    extra: list[str] = []
    for line, c in zip(lines, code):
        cands = [out] if (out := quoted_output(line, c)) else [] if c else embedded_errors(line)
        for cand in cands:
            if not any(cand in f or f in cand for f in found + extra):
                extra.append(cand)
    if not extra:
        return found
    return sorted(found + extra, key=lambda e: (text.find(e) if text.find(e) >= 0 else len(text)))


def symptom_output(sections: list[Section]) -> list[str]:
    """When no rule finds an error line in a postmortem, what its symptom section shows in a code block is what
    failed, even when it is said without an error word (`... is larger than the maximum number of tokens ...`,
    `Lock file exists in build directory: ...`): per block, its last line that reads as a message (a program prints
    its failure last; commands, code and settings are not messages)."""
    out: list[str] = []
    for sec in sections:
        if sec.kind != "symptoms":
            continue
        lines = sec.text.split("\n")
        last = None
        for line, in_code in zip(lines, fence_mask(lines)):
            if not in_code or line.lstrip().startswith(("```", "~~~")):     # outside a block, or its fence
                if last and last not in out:
                    out.append(last)
                last = None
            elif (msg := output_message(line)) is not None:
                last = msg
        if last and last not in out:
            out.append(last)
    return out[:3]


def extract_document(raw: RawDocument, source: str, boilerplate: set[str] | frozenset[str] = frozenset()) -> Document:
    """Extract a `Document` from one read file.

    Args:
        raw: the file as read by `ingest.read.read_path`.
        source: its path relative to the ingested folder (drives the doc_id).
        boilerplate: corpus boilerplate keys from `ingest.clean.find_boilerplate`.

    Returns:
        The Document; entries with front matter take their structured fields from it.

    Raises:
        BadInput: an entry's front matter is malformed.
    """
    if raw.format == "entry":
        from ingest.frontmatter import parse_entry

        return parse_entry(raw, source)
    body = clean_text(raw.text, boilerplate)
    title, rest = split_title(body)
    sections = split_sections(rest)
    fields = fields_from_sections(sections)
    error_lines = find_all_error_lines(rest) or symptom_output(sections)   # the title paraphrases the error
    if not title:
        title = error_lines[0][:150] if error_lines else re.sub(r"[_-]+", " ", doc_id_from_source(source))

    root_cause = fields.root_cause
    if not root_cause:
        root_cause = " ".join(_cue_sentences(rest, _CAUSE_CUE, 3)
                              or _cue_sentences(rest, _CONSEQUENCE, 2, exclude=_FIX_CUE))
    fixes = make_fixes(fields.fix_texts)
    if not fixes:
        cues = _cue_sentences(rest, _FIX_CUE, 3, exclude=_CAUSE_CUE)
        doc_status, _ = verified_by(rest)
        for sent in cues:
            own, negated = verified_by(sent)
            fixes.append(Fix(text=sent, verified_by=own if own != "none" or negated else doc_status))
    symptoms = fields.symptoms
    if not symptoms:
        paras = [p for p in re.split(r"\n\s*\n", rest) if find_error_lines(p)]
        symptoms = "\n\n".join(paras)[:1500].strip()

    references = find_references(body)
    libraries = find_libraries(body)
    for ref in references:                 # huggingface/peft#2415 names peft even if the text does not
        repo = ref.split("#")[0].split("/")[-1] if "#" in ref else ""
        for name in find_libraries(repo.replace("-", " ")):
            if name not in libraries:
                libraries.append(name)
    return Document(
        doc_id=doc_id_from_source(source),
        source=source,
        content_hash=raw.content_hash,
        title=title,
        langs=detect_langs(body),
        libraries=libraries,
        symptoms=symptoms,
        error_lines=error_lines,
        tracebacks=find_tracebacks(body),
        root_cause=root_cause,
        fixes=fixes,
        versions=find_versions(body),
        references=references,
        sections=sections,
        body=body,
    )
