"""Line-level recognition of error, warning and log lines.

`classify_line` tells what kind of line one line of a report or postmortem is; `find_error_lines` pulls the error and
warning lines out of a whole text (ingest uses it on postmortems, the parser on reports).

Every pattern is a named, commented regex in a table (sentry `parameterization.py` style): the tables (line
patterns, launcher prefixes, stopwords, dedupe masks) are data, in kb/data/rules/lines.toml; this module runs them.
All patterns are linear: no nested unbounded quantifiers, and lines are capped at `MAX_LINE_CHARS` before any
matching.
"""
from __future__ import annotations

import re
from typing import Final

from kb import rules

ERROR_KINDS: Final = ("exception", "cuda", "nccl", "cpp", "warning", "launcher", "log")

MAX_LINE_CHARS: Final = 4000      # longer lines are junk (minified JSON, binary); only their head is looked at

_DATA = rules.load("lines")
PATTERNS: Final[dict[str, re.Pattern[str]]] = {name: rules.regex(r) for name, r in _DATA["pattern"].items()}
# Per-process prefixes added by launchers, stripped repeatedly (they can stack: `[default0]:[rank0]:`).
_PREFIXES: Final = [(r["name"], rules.regex(r)) for r in _DATA["prefix"]]
STOPWORDS: Final = rules.words(_DATA["stopwords"])
_BARE_TYPES: Final = frozenset(_DATA["bare_types"])
# Parts of a line that differ between ranks/threads of one failure; masked only to decide duplicates.
_DEDUPE_MASKS: Final = [(r["name"], rules.regex(r), r["replace"]) for r in _DATA["dedupe_mask"]]

# ---------------------------------------------------------------------------------------------------------------
# Cleaning: what is stripped from a line before it is classified (and before it is returned as "verbatim").
# ---------------------------------------------------------------------------------------------------------------

# ANSI colour / cursor sequences (CSI, OSC, two-byte escapes) and stray carriage-return overwrites.
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,40}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,400}(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

# A rank prefix in the middle of a line: output of several ranks glued together without a newline.
_MIDLINE_RANK = re.compile(r"(?<=\S)(?=\[(?:rank|default)\d{1,6}\]:)")

_ONLY_PREFIXES = re.compile(r"^(?:\s{0,8}\[(?:rank|default)\d{1,6}\]:)+\s*$")

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


# Markdown decorations around a pasted line: `> ` quote markers, a backticked leading type (`` `RuntimeError`: ``).
_MD_QUOTE = re.compile(r"^\s{0,8}(?:>\s?){1,4}")
_MD_TYPE = re.compile(r"^`((?:[A-Za-z_]\w{0,80}\.){0,10}[A-Z_]\w{0,80})`(?=\s?:)")


def clean_line(line: str) -> str:
    """Strip ANSI codes, rank/host prefixes, timestamps and progress bars; trim whitespace.

    Args:
        line: one raw line.

    Returns:
        The line as it would read in a single-process log.
    """
    line = _ANSI.sub("", line[:MAX_LINE_CHARS]).replace("\r", "")
    for _ in range(6):                       # prefixes stack; a fixed bound keeps this linear
        before = line
        for _name, rx in _PREFIXES:
            line = rx.sub("", line, count=1)
        line = _MD_QUOTE.sub("", line, count=1)
        if line == before:
            break
    return _MD_TYPE.sub(r"\1", line.strip())


# Prefixes that start a new log record; those a logger writes carry the record's level.
_LOGGERS = ("logger", "logger_fields")
_STAMPS = ("timestamp", "clock", "glued_clock", "location", *_LOGGERS)


def strip_prefixes(line: str) -> tuple[str, str | None, bool, bool]:
    """Remove ANSI codes and launcher/timestamp prefixes but keep the indentation of what follows.

    Returns:
        (rest, rank, stamped, logged_error): `rank` is the first rank-like prefix seen (`rank3`, `default0`, `1,0`,
        a host name), `stamped` says a timestamp or clock prefix was removed (a new log record starts on this line),
        `logged_error` that a logger prefix gave the record the level ERROR or CRITICAL.
    """
    line = _ANSI.sub("", line[:MAX_LINE_CHARS]).replace("\r", "")
    rank: str | None = None
    stamped = logged_error = False
    for _ in range(6):
        before = line
        for name, rx in _PREFIXES:
            m = rx.match(line)
            if not m:
                continue
            if name in ("rank", "mpi", "ray", "host") and rank is None:
                rank = m.group(0).strip().rstrip(":")
            elif name in _STAMPS:
                stamped = True
                level = m.group(0).lstrip()
                logged_error = logged_error or name in _LOGGERS and level.startswith(("ERROR", "CRITICAL"))
            line = line[m.end():]
        q = _MD_QUOTE.match(line)
        if q:
            line = line[q.end():]
        if line == before:
            break
    return line.rstrip(), rank, stamped, logged_error


def split_glued(line: str) -> list[str]:
    """Split a physical line where another rank's prefix starts mid-line (`...it/s][default2]:[E ...`)."""
    if "]:" not in line:
        return [line]
    parts = _MIDLINE_RANK.split(line)
    out: list[str] = []
    carry = ""
    for part in parts:
        if _ONLY_PREFIXES.match(part):          # `[default3]:` directly followed by `[rank3]:` is one stacked prefix
            carry += part
            continue
        out.append(carry + part)
        carry = ""
    if carry:
        out.append(carry)
    return out


# ---------------------------------------------------------------------------------------------------------------
# Classification (`_classify_clean`) over `PATTERNS`. Anchored patterns only look at the start of the cleaned line;
# unanchored ones search anywhere but are vetoed on prose (see `looks_like_prose`). Order matters: the first rule
# that fires decides the kind.
# ---------------------------------------------------------------------------------------------------------------

# Python exception header: `pkg.mod.SomeError: message` or a bare `SomeError`. Type names are checked afterwards
# against the type suffixes and bare types of the rules, so `Note: ...` or `Config: ...` are not taken for exceptions.
# Ray names the error it relays after its own type: `ray.exceptions.RayTaskError(KeyError): ray::Trainer.fit() ...`.
EXC_HEAD = re.compile(r"^(?P<type>(?:[A-Za-z_][\w]{0,80}\.){0,10}[A-Z_][\w]{0,80})(?:\([A-Z_][\w.]{0,80}\))?"
                      r"(?:\s?:(?:\s(?P<msg>.*)|$)|$)")


def compiler_diagnostic(line: str) -> bool:
    return PATTERNS["compiler"].match(clean_line(line)) is not None


def missing_command(line: str) -> str | None:
    """The command a shell could not find, lower-case without its directory, when `line` says so."""
    m = PATTERNS["missing_command"].match(line.strip())
    if m is None:
        return None
    cmd = next(g for g in m.groups() if g)
    return cmd.replace("\\", "/").rsplit("/", 1)[-1].lower()


# Carets under a code line (`^^^^`, `~~~~^^^^`).
CARETS = re.compile(r"^[\^~ ]+$")

WORD = re.compile(r"[A-Za-z']{1,40}")


def looks_like_prose(line: str) -> bool:
    """True for a human sentence (CJK text, or English with many function words), False for log output."""
    if CJK.search(line):
        return True
    words = WORD.findall(line[:600])
    if len(words) < 6:
        return False
    small = sum(1 for w in words if w.lower() in STOPWORDS)
    return small >= 3 and small / len(words) >= 0.25


def exception_head(line: str) -> tuple[str, str | None] | None:
    """(type, message|None) when `line` starts with a Python exception header, else None."""
    m = EXC_HEAD.match(line)
    if not m:
        return None
    typ = m.group("type")
    if not _named_as_exception(typ.rsplit(".", 1)[-1]):
        return None
    return typ, m.group("msg")


def _named_as_exception(last: str) -> bool:
    """A type's last name ends as exception types do (`...Error`), or is one of the bare types."""
    return PATTERNS["type_suffix"].search(last) is not None or last in _BARE_TYPES


def traceback_head(line: str) -> tuple[str, str | None] | None:
    """An exception header with any CamelCase or dotted type, as the line that ends a traceback may be
    (`pyarrow.lib.ArrowInvalid: ...`, `exc.Unsupported: ...`); elsewhere only `exception_head`'s types count."""
    m = EXC_HEAD.match(line)
    if not m:
        return None
    typ, msg = m.group("type"), m.group("msg")
    last = typ.rsplit(".", 1)[-1]
    if _named_as_exception(last) or msg is not None and ("." in typ or sum(ch.isupper() for ch in last) >= 2):
        return typ, msg
    return None


def _classify_clean(line: str) -> str | None:
    """Classify an already cleaned line."""
    if not line or CARETS.match(line) or PATTERNS["boilerplate"].match(line) or PATTERNS["empty_log"].match(line):
        return None
    if PATTERNS["frame"].match(line):
        return "frame"
    head = exception_head(line)
    compiler = PATTERNS["compiler"].match(line) is not None
    anchored = (head is not None or PATTERNS["state_dict_detail"].match(line) is not None
                or PATTERNS["strong_start"].match(line) is not None
                or PATTERNS["known_message"].match(line) is not None or compiler)
    if PATTERNS["missing_command"].match(line) or PATTERNS["error_record"].match(line):
        return "log"
    if not anchored and (PATTERNS["code"].match(line) or looks_like_prose(line)):
        return None
    if PATTERNS["launcher"].search(line):
        return "launcher"
    if compiler:
        return "cpp"
    if head is not None and head[0].endswith("Warning"):
        return "warning"
    if (PATTERNS["warning"].match(line) or PATTERNS["known_message"].match(line)) and not PATTERNS["nccl"].search(line):
        return "warning"
    if PATTERNS["cuda"].search(line):
        return "cuda"
    if PATTERNS["nccl"].search(line):
        return "nccl"
    if PATTERNS["cpp"].search(line):
        return "cpp"
    if head is not None or PATTERNS["state_dict_detail"].match(line):
        return "exception"
    if PATTERNS["warning"].search(line):
        return "warning"
    if PATTERNS["log"].search(line):
        return "log"
    return None


def classify_line(line: str) -> str | None:
    """Say what kind of error/log line `line` is.

    ANSI codes, `[rank3]:`/`[default0]:`-style prefixes, timestamps and progress bars are stripped first.

    Args:
        line: one line of text.

    Returns:
        "exception", "cuda", "nccl", "cpp", "warning", "launcher", "log" for error-ish lines, "frame" for traceback
        structure (frame headers, `Traceback (most recent call last):`, chain markers, C++ frames), or None for
        anything else (code, prose, carets, boilerplate). A line with CJK text is classified only by its error tail
        (`...报错：ValueError: ...`), see `locate_error`.
    """
    found = locate_error(line)
    return found[0] if found else None


# A writer's one-word label in front of a pasted message (`error：`, `报错:`, `log:`), and the kinds the rest must have
# for the label to be dropped (a log line or a warning after a label is as often the writer's own note).
_LABEL = re.compile(r"^[A-Za-z\u4e00-\u9fff]{1,8}\s?[:：]\s{0,3}(?P<rest>\S.{7,})$")
_STRONG = ("exception", "cuda", "nccl", "cpp", "launcher")

# Where an error tail starts inside a prose line: after a colon (ASCII or full-width) or whitespace, an exception
# header follows and runs to the end of the line with no further CJK text (`训练时报错：ValueError: ...`).
_TAIL_START = re.compile(r"(?:[:：]\s{0,3}|\s)(?=(?:[A-Za-z_]\w{0,80}\.){0,10}[A-Z_]\w{0,80}\s?:\s)")


def locate_error(line: str) -> tuple[str, str] | None:
    """Classify one raw line and return (kind, error text) or None.

    The error text is the cleaned line, or, for a sentence ending in a pasted error (`训练时报错：ValueError: ...`,
    `` `flag` occurs NotImplementedError: Cannot copy out of meta tensor``), just that tail. A tail must be a full
    `SomeError: message` header that runs to the end of the line with no CJK text in it, so a sentence that only
    names an error type is not an error line.
    """
    cleaned = clean_line(line)
    if len(cleaned) > 2 and cleaned[0] == "`" and cleaned[-1] == "`" and cleaned.count("`") == 2:
        cleaned = cleaned[1:-1].strip()          # a whole line in inline code: `Exception: ...`
    kind = _classify_clean(cleaned)
    if kind is not None:
        return kind, cleaned
    label = _LABEL.match(cleaned)
    if label:              # `报错：size mismatch for ...`: a one-word label before a message a strong pattern knows
        kind = _classify_clean(label.group("rest"))
        if kind in _STRONG:
            return kind, label.group("rest")
    if PATTERNS["code"].match(cleaned) or "Error" not in cleaned and "Exception" not in cleaned:
        return None
    for m in _TAIL_START.finditer(cleaned):
        tail = cleaned[m.end():]
        if CJK.search(tail):
            continue
        head = exception_head(tail)
        if head is None or not head[1] or head[0].endswith("Warning"):
            continue
        kind = _classify_clean(tail)
        if kind is not None and kind != "frame":
            return kind, tail
    return None


# Quoted spans in prose (“...”, "...", 「...」) that hold an error message with shapes but no type, as in
# `关键错误信息显示："The parameter isn't evenly distributed ...: shape before sharding torch.Size([...])"`.
_QUOTED = re.compile(r"[\"“「]([^\"”」\n]{20,1000})[\"”」]")
_SHAPE_MSG = re.compile(r"(?:torch\.Size\(\[|\bshape\b.{0,200}[(\[]\d)", re.I)


def marked_spans(line: str) -> list[tuple[str, str, str]]:
    """(mark, text before it, span) for each span a writer set apart in a sentence: inline code (`...`) and bold
    (**...**, where a reporter puts the message they got, and a writer their labels). An unclosed last backtick span
    runs to the end of the line (it may close on the next); an unclosed bold mark is no span."""
    out = []
    for mark in ("`", "**"):
        parts = line.split(mark)
        if mark == "**" and len(parts) % 2 == 0:
            parts = parts[:-1]
        out += [(mark, mark.join(parts[:k]), parts[k].strip()) for k in range(1, len(parts), 2)]
    return out


def _backticked(line: str) -> list[str]:
    return [span for mark, _, span in marked_spans(line) if mark == "`"]


# An exception header inside a Chinese sentence: `第一个错误表现为AttributeError: module 'x' has no attribute 'y',这是…`
# (the message ends where the Chinese resumes); a bare `Exception:` or `Error:` too (`报错。Exception: height:29 ...。`).
_EMBEDDED = re.compile(r"(?<![A-Za-z0-9_.])((?:(?:[A-Za-z_]\w*\.)*[A-Z]\w*)?(?:Error|Exception|Warning)\s?:\s"
                       r"[^\u3000-\u303f\u4e00-\u9fff\uff00-\uffef\n]{4,400})", re.A)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def embedded_errors(line: str) -> list[str]:
    """Exception headers with their message in the middle of a Chinese sentence (`出现SafetensorError: ... 的错误`)."""
    if not _HAN.search(line):
        return []
    out = []
    for m in _EMBEDDED.finditer(line):
        cand = m.group(1).strip().rstrip(",.;:，")
        if classify_line(cand) is not None:
            out.append(cand)
    return out


_INDENTED = re.compile(r"^(?: {2,}|\t)(?![-*+] |\d{1,2}[.)] )\S")     # an indented line that is no list item


def quoted_output(line: str, fenced: bool) -> str | None:
    """`output_failure` of a line that is program output: inside a code fence, or indented and not a sentence
    (outside a fence, an indented line may be the writer's wrapped sentence)."""
    if fenced or (_INDENTED.match(line) and not looks_like_prose(line)):
        return output_failure(line)
    return None


def _reads_as_message(span: str) -> bool:
    """Several words, nothing that reads as code, a command, a setting or a frame."""
    return (len(WORD.findall(span)) >= 4 and PATTERNS["not_message"].search(span) is None
            and not PATTERNS["code"].match(span)
            and not PATTERNS["frame"].match(span))


def said_failure(span: str) -> bool:
    """Whether a quoted span or a line of tool output is a failure message in words (a message, one of its words a
    failure word)."""
    return _reads_as_message(span) and PATTERNS["failure_word"].search(span) is not None


def output_failure(line: str) -> str | None:
    """A line of tool output (in a code block of a postmortem) that says a failure in words without a pattern of
    its own (`Could not find the bitsandbytes CUDA binary at ...`): the cleaned line, or None. A continuation
    (`- This IS NOT expected ...`), boilerplate after an error, or the writer's own sentence is not one."""
    cleaned = _unpatterned_output(line)
    return cleaned if cleaned and said_failure(cleaned) else None


def output_message(line: str) -> str | None:
    """A line of tool output that reads as a message in words (`Lock file exists in build directory: '...'`), with
    or without a failure word: the cleaned line, or None. Only for output a postmortem shows as its symptom, where
    the writer put it because it is what failed."""
    cleaned = _unpatterned_output(line)
    return cleaned if cleaned and not cleaned.startswith(">") and _reads_as_message(cleaned) else None


def _unpatterned_output(line: str) -> str | None:
    """The cleaned line, unless it is empty, a continuation (`- This IS NOT expected ...`), boilerplate after an
    error, Chinese (the writer's own words), the advice a library prints after its message, or a line a pattern
    already knows."""
    cleaned = clean_line(line)
    if (not cleaned or cleaned.startswith(("- ", "* ", "...")) or PATTERNS["boilerplate"].match(cleaned)
            or CJK.search(cleaned) or PATTERNS["advice"].match(cleaned) or _classify_clean(cleaned) is not None):
        return None
    return cleaned


def _inline_errors(line: str) -> list[tuple[str, str]]:
    out = []
    for span in _backticked(line):
        if len(span) < 8:
            continue
        head = exception_head(span)
        # a bare name (`KeyError`) is a mention, not an error line: ask for a message or a strong pattern
        if head is not None and not head[1]:
            continue
        kind = _classify_clean(span)
        tb = traceback_head(span) if kind is None else None
        if kind is not None and kind not in ("frame", "log"):
            out.append((kind, span))
        elif (tb is not None and "." in tb[0] and sum(ch.isupper() for ch in tb[0].rsplit(".", 1)[-1]) >= 2
              and len(WORD.findall(tb[1] or "")) >= 3):
            out.append(("exception", span))    # the line that ends a traceback, quoted (`pyarrow.lib.ArrowInvalid: ...`)
        elif kind in (None, "log") and CJK.search(span) is None and said_failure(span):
            out.append(("log", span))          # a library's message quoted in a sentence
    if not out and CJK.search(line):
        for m in _QUOTED.finditer(line):
            span = m.group(1).strip()
            if not CJK.search(span) and _SHAPE_MSG.search(span):
                out.append(("log", span))
    return out


_RANK_PREFIX = re.compile(r"^\s*(?:\[\d+\]\s*)?\[(?:rank|default)\d+\]:")


def dedupe_key(line: str) -> str:
    """Key under which copies of one line from different ranks/threads collapse. A line that names its rank or
    process also differs in its timestamps and counters (`ran for 600067 milliseconds`): its numbers are masked."""
    masked = line
    for _name, rx, repl in _DEDUPE_MASKS:
        masked = rx.sub(repl, masked)
    if masked != line or _RANK_PREFIX.match(line):
        masked = re.sub(r"\d+", "#", masked)
    return masked


def find_error_lines(text: str, *, inline: bool = True, max_chars: int = 2_000_000) -> list[str]:
    """Extract the error, warning and log lines of a text, verbatim (cleaned), deduplicated, in order.

    Frame lines and traceback headers are not returned. Copies that differ only by rank, pid or CUDA block/thread
    coordinates count as one (the first is kept).

    Args:
        text: a report or a postmortem (Markdown, prose in any language, logs).
        inline: also return backticked inline code that holds a whole error (`KeyError: 'x'`, not a bare `KeyError`).
        max_chars: only the first `max_chars` characters are read.

    Returns:
        The error lines.
    """
    seen: set[str] = set()
    out: list[str] = []

    def add(s: str) -> None:
        key = dedupe_key(s)
        if key not in seen:
            seen.add(key)
            out.append(s)

    raws = text[:max_chars].splitlines()
    in_traceback = False          # after a frame, and only indented lines (its source lines) since
    for i, raw in enumerate(raws):
        if not raw.strip():
            continue
        parts = split_glued(raw)
        whole = None                  # what the whole line is (classify_line), read once when it is not split
        for part in parts:
            found = locate_error(part)
            if len(parts) == 1:
                whole = found
            if found is None and in_traceback and not raw[:1].isspace():
                cleaned = clean_line(part)
                if traceback_head(cleaned) is not None:
                    found = ("exception", cleaned)    # the line that ends a traceback, whatever its type's name
            if found is not None and found[0] != "frame":
                add(_with_continuation(found, raws, i))
            elif inline:
                for _kind, span in _inline_errors(part):
                    add(span)
        if len(parts) > 1:
            whole = locate_error(raw)
        kind = whole[0] if whole else None
        in_traceback = kind == "frame" or (in_traceback and raw[:1].isspace() and kind is None)
    return out


def _with_continuation(found: tuple[str, str], raws: list[str], i: int) -> str:
    """An exception header with nothing after its colon (`RuntimeError:`) takes the next line that is not an error
    line of its own, as the traceback parser does: libraries that print their message indented below it
    (bitsandbytes' CUDA setup) would otherwise leave the bare type as the error line."""
    kind, line = found
    head = exception_head(line)
    if kind != "exception" or head is None or (head[1] or "").strip():
        return line
    for nxt in raws[i + 1:i + 3]:
        if nxt.strip():
            if locate_error(nxt) is None and not nxt.strip().startswith(("File ", "```", "~~~")):
                return f"{line.rstrip()} {nxt.strip()}"
            break
    return line
