"""Environment blocks and prose of a report: what versions it names, and the sentences a human wrote."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import kb.traceback.lines as L
from kb import rules
from kb.traceback.frames import KNOWN_LIBRARIES

_TB_HEAD = re.compile(r"^(?:Original )?Traceback \(most recent call last\):?$")
_HTML_TAG = re.compile(r"^\s*</?(?:details|summary|pre|code|br|p|div)\b[^>]{0,200}>\s*$", re.I)


@dataclass
class Line:
    """One physical line of a report, cleaned and classified once."""

    idx: int
    text: str            # prefix-stripped, indentation kept
    s: str               # stripped, Markdown type unwrapped
    rank: str | None
    stamped: bool
    fence: bool          # inside a code fence
    fence_mark: bool     # is a fence line itself
    kind: str | None     # classify of s ("frame" included)
    tail: str | None     # error tail of a prose line (`训练时报错：ValueError: ...`)

    @property
    def indent(self) -> int:
        # A tab counts as four columns: pastes turn a traceback's four-space source lines into tabs.
        lead = self.text[: len(self.text) - len(self.text.lstrip())]
        return len(lead.expandtabs(4))


_WORDS = rules.load("vocabulary")
_EXTRA_NAMES: Final = rules.words(_WORDS["version_names"])
_VER = r"(?P<ver>v?\d{1,4}(?:\.[0-9a-zA-Z]{1,12}){0,4}(?:[+\-][\w.]{1,30})?)"
_ENV_RULES: Final[list[tuple[str, re.Pattern[str]]]] = [
    # pip freeze / requirements: `torch==2.3.0+cu118`
    ("pin", re.compile(r"(?<![\w.-])(?P<name>[A-Za-z][\w.\-]{0,40})\s?==\s?" + _VER)),
    # a known package followed by a version anywhere (`环境：torch 2.1.0，transformers 4.38.2`, `with vllm 0.4.2`)
    ("known_name", re.compile(r"(?<![\w.-])(?P<name>" + "|".join(sorted(KNOWN_LIBRARIES | _EXTRA_NAMES, key=len,
                                                                          reverse=True))
                              + r")\s?(?:[:=：]\s?|\s)v?" + _VER.replace("{0,4}", "{1,4}") + r"(?![\w.])", re.I)),
    # templates: `- PyTorch version (GPU?): 2.1.0 (True)`, `transformers version: 4.46.0`, `Tokenizer version - 0.19.1`,
    # ds_report: `torch version .................... 2.1.0`
    ("version_field", re.compile(
        r"^[\s\-*>]{0,6}`?(?P<name>[A-Za-z][\w.\- ]{0,30}?)`?\s+[Vv]ersion(?:\s?\([^)\n]{0,20}\))?"
        r"\s{0,40}(?:[:=：\-]|\.{2,})\s{0,4}" + _VER)),
    # Chinese prose: `torch版本是2.0`, `CUDA 版本：11.8`
    ("zh_version", re.compile(r"(?P<name>[A-Za-z][\w.\-]{0,30})\s?版本\s?(?:是|为|:|：)?\s?" + _VER)),
    # `Python 3.10.12`, `CUDA 12.3.2`, `torch  2.1.0+cu121` on a line of its own (pip list, System Info)
    ("name_version_line", re.compile(r"^[\s\-*]{0,6}(?P<name>[A-Za-z][\w\-]{1,40})\s{1,40}" + _VER.replace("{0,4}", "{1,4}")
                                     + r"\s*$")),
    # `using trl v0.7.2`
    ("v_version", re.compile(r"\b(?P<name>[a-z][\w\-]{1,30}) v(?P<ver>\d{1,3}\.\d{1,3}(?:\.\d{1,4})?)\b")),
]
_ENV_ALIASES: Final[dict[str, str]] = _WORDS["version_aliases"]
_ENV_STOP: Final = rules.words(_WORDS["version_stopwords"])


def env_of(line: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for _name, rx in _ENV_RULES:
        for m in rx.finditer(line):
            name = m.group("name").strip().strip("`").lower()
            name = _ENV_ALIASES.get(name, name)
            if name in _ENV_STOP or name in L.STOPWORDS or len(name) < 2:
                continue
            found.append((name, m.group("ver")))
        if found:
            break
    return found


_LIST_MARK = re.compile(r"^(?:[-*+]\s+|\d{1,2}[.)]\s+|#{1,6}\s+|>\s?)")
_CODE_LIKE = re.compile(
    r"""^(?:
        (?:import|from)\s+[\w.]+ | def\s | class\s | @\w | \#(?!\#|\s[A-Z]) | // | >>> | \$\s | \.\.\.\s
      | [\w.\[\]'"]+\s{0,2}(?:=|\+=|:=)\s{0,2}\S                                # assignments
      | [\w.]+\(.*\)[,;]?\s*$                                               # a call on its own line
      | (?:return\s+|[\w.]+\s?=\s?)?[\w.]+\(\s*(?:\#.*)?$                          # a call opened, continued below
      | for\s+[\w, ()]+\s+in\s+\S.*:\s*$ | (?:if|elif|while)\s+\S.*[=<>()\[\]].*:\s*$    # block statements
      | with\s+\S.*\bas\s+\w+:\s*$ | (?:try|else|finally):\s*$ | except\b.*:\s*$
      | [)\]}]{1,3}[,;]?\s*$ | [{\[] | -{1,2}\w                              # brackets, CLI flags
      | (?:python3?|pip3?|torchrun|deepspeed|accelerate|bash|sh|cd|export|git|conda|CUDA_VISIBLE_DEVICES=\S*)\s
      | [\w.\-]+:\s+\S+$                                                     # `key: value` config lines
      | [\w.]+\s:\s                                                          # `name : torch.Size([0])` dumps
    )""",
    re.X,
)
# A keyword argument anywhere makes a line code, unless the line is a sentence that quotes one
# ("Our backbone uses nn.ReLU(inplace=True) in each block").
_KWARG = re.compile(r".{0,200}\b\w+=[\w'\"\[{(]")


def _code_like(s: str) -> bool:
    if "`" in s and L.looks_like_prose(s):
        return False                     # a sentence that quotes code inline: "`pip install -r ...` pulled torch"
    return bool(_CODE_LIKE.match(s) or _KWARG.match(s) and not L.looks_like_prose(s))


_ALPHA = re.compile(r"[A-Za-z]")


_LOG_RECORD = re.compile(r"^(?:[A-Z]{3,8}:[\w.]{0,120}:|\[?(?:INFO|DEBUG|WARNING|WARN|ERROR|TRACE)\]?[\s:-]|"
                         r"[IWEF]\d{4} \d{2}:\d{2})")


# First-person or question lines are the reporter talking, not the program.
REPORTER = re.compile(r"\b(?:I|I'm|I've|my|we|We|our|me)\b|\?\s*$")


def is_prose(ln: Line) -> bool:
    s = _LIST_MARK.sub("", ln.s).strip().lstrip("`")
    if ln.fence and s and ln.kind is None and ln.indent == 0 and _reporter_in_fence(s):
        return True                          # the whole paste went into one code block, the reporter's words too
    if not s or ln.fence or ln.kind is not None or _HTML_TAG.match(s) or L.CARETS.match(s):
        return ln.tail is not None           # a prose head before an error tail
    if (ln.stamped or ln.rank is not None or _LOG_RECORD.match(s) or L.PATTERNS["boilerplate"].match(s)
            or _TB_HEAD.match(s)):
        return False
    if L.CJK.search(s):
        return True
    if _code_like(s) or ln.indent >= 4:
        return False
    words = L.WORD.findall(s)
    if len(words) < 3:
        return False
    letters = len(_ALPHA.findall(s)) + s.count(" ")
    return letters / max(1, len(s)) >= 0.6


def _reporter_in_fence(s: str) -> bool:
    """A line inside a code block that is still the reporter talking: a sentence in Chinese, or in English in the
    first person or asking something (programs rarely print either)."""
    if _LOG_RECORD.match(s) or _TB_HEAD.match(s) or _code_like(s):
        return False
    return bool(L.CJK.search(s)) and L.looks_like_prose(s) or (REPORTER.search(s) is not None and L.looks_like_prose(s))


def prose_text(ln: Line) -> str:
    s = _LIST_MARK.sub("", ln.s).strip()
    if ln.tail is not None:
        s = s[: len(s) - len(ln.tail)].rstrip(" :：")
    return s
