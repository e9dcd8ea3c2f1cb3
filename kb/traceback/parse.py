"""Report parser: free text, Markdown and logs → `Report` (events, primary error, env, prose, notes).

The parser reads line by line in one pass per rank stream, with the line-level rules of `kb.traceback.lines`; it
never decides a root cause, it only exposes what the report says and explains every step in `Report.notes`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Final

import kb.traceback.lines as L
from kb import rules
from kb.traceback.context import REPORTER, Line, env_of, is_prose, prose_text
from kb.traceback.frames import FRAME_RE, is_launcher_frame, parse_frame
from kb.traceback.models import ErrorEvent, Frame, Report
from kb.traceback.roles import assign_roles, merge_events, tier

MAX_CHARS: Final = 2_000_000
HEAD_SHARE: Final = 0.1           # when cutting, keep this share of the budget from the head, the rest from the tail
MAX_CONTINUATION: Final = 60      # lines a multi-line message may span
MAX_EVENTS: Final = 500

# Structure markers.
_TB_HEAD = re.compile(r"^(?:Original )?Traceback \(most recent call last\):?$")
# warnings.warn output: `/x/checkpoint.py:31: UserWarning: message`
_WARN_AT = re.compile(r"^\S{1,400}\.py:\d{1,6}: (?P<type>\w{0,40}Warning): (?P<msg>.*)$")
_WARN_SOURCE = re.compile(r"^[\w.]{1,80}\(.{0,300}$")    # ... and the source line echoed under it: `warn(msg)`
# faulthandler: frames follow, most recent first, and belong to the `Fatal Python error` printed above them
_FAULT_HEAD = re.compile(r"^(?:Current )?[Tt]hread 0x[0-9a-fA-F]+ \(most recent call first\):$")
_CHAIN_CONTEXT = re.compile(r"^During handling of the above exception, another exception occurred")
_CHAIN_CAUSE = re.compile(r"^The above exception was the direct cause of the following exception")
_CLEANUP_MARK = re.compile(r"^(?:Exception ignored in\b|Error in atexit\._run_exitfuncs)")
_CPP_FRAME = re.compile(r"^(?:frame #\d+:|#\d+\s+0x[0-9a-fA-F]+ |C\+\+ CapturedTraceback:|\d+: 0x[0-9a-fA-F]+ )")
# A Markdown fence: up to three spaces before it (with an info string: ```python), or a line that is nothing but a
# fence at any indentation (pasted from a list item or a quoted block); never part of a message.
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)|^\s*(?:```|~~~)[\w+.-]*\s*$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f\ufffd]")

# Frames of a cleanup path: an error raised there comes after the real one.
_CLEANUP_FUNCS: Final = frozenset(rules.load("vocabulary")["cleanup_functions"])

# `raise SomeError("literal message" ...` in the deepest frame of a cut traceback.
_RAISE = re.compile(r"^raise\s+(?P<type>(?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,80})\s*"
                    r"(?:\(\s*[rfbuRFBU]{0,2}(?P<q>['\"]{1,3})(?P<msg>[^'\"\n]{0,500}))?")
_OPEN_RAISE = re.compile(r"^raise\s+[\w.]{1,200}\($")      # `raise X(` whose arguments follow on the next lines
_FORMAT_FIELD = re.compile(r"\{[^{}\n]{0,120}\}")             # `{device.name}` in an f-string message

# Inline prose mentions with no type: `got error `Attempting to unscale FP16 gradients``.
_ERROR_WORD = re.compile(r"(?:\berror|\bexception|\bmessage|\bwarning|\braised?|\bthrows?|\bfails? with|报错|错误|异常|提示)"
                         r"[^`]{0,40}$", re.I)
_QUOTED_TYPED = re.compile(r"[\"'“\[(]\[?(?P<span>(?:[A-Za-z_]\w{0,80}\.){0,8}[A-Z]\w{0,80}\s?:\s?"
                           r"[^\"'”\]\n]{4,600})\]?[\"'”\])]")

# Events that often stand in for an out-of-memory condition; the parser notes them, the matcher decides.
_OOM_STANDINS: Final[list[tuple[re.Pattern[str], str]]] = [
    (re.compile(r"CUBLAS_STATUS_(?:NOT_INITIALIZED|ALLOC_FAILED)"),
     "CUBLAS_STATUS_NOT_INITIALIZED/ALLOC_FAILED often stands in for a CUDA out-of-memory at handle creation"),
    (re.compile(r"exitcode\s{0,2}:\s{0,2}-9\b|Signal 9 \(SIGKILL\)|return code = -9|^Killed$|signal SIGKILL"),
     "exit code -9 / SIGKILL often means the host ran out of RAM (kernel OOM killer), not a Python error"),
]


@dataclass
class _State:
    notes: list[str] = field(default_factory=list)
    carets: int = 0
    cut_tracebacks: int = 0
    unanswered_headers: int = 0     # `Traceback (most recent call last):` with neither a frame nor an exception after it
    next_chain: int = 0
    consumed: set[int] = field(default_factory=set)   # line indices that belong to an event


def _cut(text: str, max_chars: int, notes: list[str]) -> tuple[str, bool]:
    if len(text) <= max_chars:
        return text, False
    head = int(max_chars * HEAD_SHARE)
    tail = max_chars - head
    notes.append(f"input cut to {max_chars} chars (kept the first {head} and the last {tail} of {len(text)})")
    return text[:head] + "\n" + text[-tail:], True


def _sanitize(text: str, notes: list[str]) -> str:
    sample = text[:200_000]
    bad = len(_CONTROL.findall(sample))
    if bad:
        if bad > len(sample) * 0.05:
            notes.append(f"input looks binary ({bad} control characters in the first {len(sample)}); dropped them")
        text = _CONTROL.sub("", text)
    return text


# IPython / Jupyter tracebacks: `RuntimeError      Traceback (most recent call last)`, frames as
# `/env/.../train.py in train_model(model, cfg)` (IPython 7) or `File /env/.../module.py:1501, in Module._call_impl(...)`
# (IPython 8) or `Cell In[3], line 5`, and numbered source lines with `--->` at the one that ran.
_IPY_HEAD = re.compile(r"^\s*[A-Za-z_][\w.]*(?:Error|Exception|Interrupt)\s{3,}Traceback \(most recent call last\)",
                       re.M)
_IPY_FRAME = re.compile(r"^\s*(?:File (?P<f8>[^\s,]+?\.py):(?P<n8>\d+), in (?P<fn8>[\w.<>]+)"
                        r"|(?P<f7>(?:[\w.~-]*[\\/])+[\w.-]+\.py|<ipython-input-[\w-]+>) in (?P<fn7>[\w.<>]+))\(?")
_IPY_CELL = re.compile(r"^\s*(?:Cell In ?\[\d+\], line (?P<n>\d+)|Input In \[\d+\], in <cell line: (?P<n2>\d+)>)",
                       re.M)
_IPY_ARROW = re.compile(r"^\s*-*>\s*(?P<n>\d+)\s(?P<code>.*)$")
_IPY_CONTEXT = re.compile(r"^\s*\d+\s")


def _raised(code: str) -> tuple[str, str | None] | None:
    """(type, message) of a `raise Type("...")` source line, the message's format fields (`{device.name}`) read as
    `<var>`; the message is None when the line raises no literal. None when the line is no `raise`."""
    m = _RAISE.match(code)
    if m is None:
        return None
    return m.group("type"), None if m.group("msg") is None else _FORMAT_FIELD.sub("<var>", m.group("msg"))


def _raised_literal(out: list[str], etype: str) -> str | None:
    """The message of `raise etype("...")` when that is the last source line of a traceback (rewritten form)."""
    raised = _raised(next((ln.strip() for ln in reversed(out) if ln.startswith("    ")), ""))
    if raised is None or raised[0].rsplit(".", 1)[-1] != etype or not raised[1]:
        return None
    return raised[1]


def _from_ipython(text: str, notes: list[str]) -> str:
    """Rewrite an IPython traceback into Python's own form (frame lines with the line that ran), so the rest of the
    parser reads it like any other. Text without one is returned unchanged."""
    if not (_IPY_HEAD.search(text) or _IPY_CELL.search(text)):
        return text                                   # a plain Python traceback, or none: nothing to rewrite
    out: list[str] = []
    inside = False
    pending: str | None = None       # the type the header named, until its exception line is seen
    end = 0                          # where in `out` the open traceback's last line went

    def close_cut() -> None:
        # IPython names the type in its header, so a paste cut before the exception line still says what was raised;
        # when the line that ran last raises that type with a literal message, the message is that literal.
        nonlocal pending
        if pending:
            said = _raised_literal(out[:end], pending)
            out.insert(end, f"{pending}: {said}" if said else f"{pending}:")
            notes.append(f"IPython traceback cut before its exception line; its header names {pending}"
                         + (", and the line that ran last raises it with its message" if said else ""))
            pending = None

    for raw in text.splitlines():
        head, frame, cell = _IPY_HEAD.match(raw), _IPY_FRAME.match(raw), _IPY_CELL.match(raw)
        if pending and re.match(rf"\s*{re.escape(pending)}\s?:", raw):
            pending = None
        if head:
            close_cut()
            pending = raw.split()[0]
            inside = True
            out.append("Traceback (most recent call last):")
        elif cell:
            inside = True
            out.append(f'  File "<cell>", line {cell.group("n") or cell.group("n2")}, in <module>')
        elif inside and frame:
            if frame.group("f8"):
                func = frame.group("fn8").rsplit(".", 1)[-1]      # `Module._call_impl`: Python prints `_call_impl`
                out.append(f'  File "{frame.group("f8")}", line {frame.group("n8")}, in {func}')
            else:
                out.append(f'  File "{frame.group("f7")}", in {frame.group("fn7")}')
        elif inside and (arrow := _IPY_ARROW.match(raw)):
            out.append("    " + arrow.group("code").strip())
        elif inside and _IPY_CONTEXT.match(raw):
            continue                                  # the lines around the one that ran
        else:
            if raw.strip() and not raw.startswith(" "):
                inside = False
            out.append(raw)
        if inside:
            end = len(out)
    close_cut()
    notes.append("read an IPython/Jupyter traceback")
    return "\n".join(out)


def _lines(text: str) -> list[Line]:
    out: list[Line] = []
    fence = False
    for raw in text.splitlines():
        for part in L.split_glued(raw):
            rest, rank, stamped, logged_error = L.strip_prefixes(part)
            s = L.clean_line(rest)
            if _FENCE.match(rest):
                fence = not fence
                out.append(Line(len(out), rest, s, rank, stamped, fence, True, None, None))
                continue
            found = L.locate_error(rest)
            if (found is None and logged_error and s and rest[:1] not in (" ", "\t") and not _TB_HEAD.match(s)
                    and not L.PATTERNS["boilerplate"].match(s)):
                found = ("log", s)     # a record the logger marked ERROR, in words no pattern knows
            kind = found[0] if found else None
            tail = found[1] if found and found[1] != s else None
            quoted = _QUOTED_TYPED.search(s) if kind is not None and not fence else None
            if quoted and len(L.WORD.findall(s[:quoted.start()])) >= 3 and ":" not in s[:quoted.start()]:
                kind, tail = None, None      # a sentence quoting the errors it asks about: its quotes are the events
            if tail is not None and s.startswith("`") and s.endswith("`") and s.strip("`").strip() == tail:
                s, tail = tail, None             # a whole line in inline code is a line, not prose
            out.append(Line(len(out), rest, s, rank, stamped, fence, False, kind, tail))
    said = [ln for ln in out if ln.s and not ln.fence_mark]
    if sum(ln.fence_mark for ln in out) <= 2 and said and all(ln.fence for ln in said):
        # The whole paste in one code block tells nothing about which lines are program output: read it as text,
        # so the reporter's sentences in it are prose again.
        out = [replace(ln, fence=False) for ln in out]
    return _labelled_blocks([_said_error(ln) for ln in out])


def _said_error(ln: Line) -> Line:
    """A line no pattern knows may still print the failure: a program's output in a code block that says it in
    words (`Failed to initialize NVML: ...`). The same rule finds such lines in postmortems (kb.traceback.lines), so
    both sides of a match see them."""
    if ln.kind is None and not ln.fence_mark and ln.s and L.quoted_output(ln.text, ln.fence):
        return replace(ln, kind="log")
    return ln


def _embedded_events(lines: list[Line]) -> list[ErrorEvent]:
    """Exception headers inside Chinese sentences (`出现XError: ...的错误`): the error the reporter means when nothing
    is printed on a line of its own (beside a printed error, such a sentence tells of another, earlier one)."""
    out = []
    for ln in lines:
        if ln.fence or ln.kind is not None:
            continue
        for tail in L.embedded_errors(ln.s):
            head = L.traceback_head(tail)
            out.append(ErrorEvent(kind=L.classify_line(tail) or "exception", type=head[0] if head else None,
                                  message=(head[1] or "").strip() if head else tail, lines=[tail], origin="inline",
                                  position=ln.idx))
    return out


# A line that only labels the block below it: `Error:`, `Error message:`, `报错信息：`.
_BLOCK_LABEL = re.compile(r"^(?:\*\*)?(?:the\s)?(?:error|errors|error\smessage|error\slog|exception|"
                          r"错误|错误信息|报错|报错信息|异常)(?:\*\*)?\s?[:：]?(?:\*\*)?$", re.I)


def _labelled_blocks(lines: list[Line]) -> list[Line]:
    """`Error:` above a code block is the reporter's label, not an exception named `Error`; and when nothing in the
    block reads as an error line, its first line is the message they mean (an untyped one, such as transformers'
    `Please correct the following DeepSpeed config values that mismatch TrainingArguments values:`)."""
    for i, ln in enumerate(lines):
        if ln.fence or not _BLOCK_LABEL.match(ln.s):
            continue
        nxt = next((j for j in range(i + 1, len(lines)) if lines[j].s), None)
        if nxt is None:
            continue
        lines[i] = replace(ln, kind=None, tail=None)
        # the block: a fenced one, or the lines up to the next blank one
        fenced = lines[nxt].fence_mark
        block = []
        for j in range(nxt + 1 if fenced else nxt, len(lines)):
            if lines[j].fence_mark if fenced else not lines[j].s:
                break
            if lines[j].s:
                block.append(j)
        first = block[0] if block else None
        if (first is not None and not any(lines[j].kind is not None for j in block)
                and not L.CJK.search(lines[first].s) and not REPORTER.search(lines[first].s)):
            lines[first] = replace(lines[first], kind="log")
    return lines


def _streams(lines: list[Line], notes: list[str]) -> list[list[Line]]:
    ranks = {ln.rank for ln in lines if ln.rank is not None}
    if not ranks:
        return [lines]
    groups: dict[str | None, list[Line]] = {}
    for ln in lines:
        groups.setdefault(ln.rank, []).append(ln)
    if len(ranks) > 1:
        notes.append(f"split the log into {len(ranks)} rank streams ({', '.join(sorted(ranks)[:8])}"
                     f"{', ...' if len(ranks) > 8 else ''})")
    return list(groups.values())


# ------------------------------------------------------------------------------------------------------------------
# One stream → events
# ------------------------------------------------------------------------------------------------------------------

# A line that starts a record of its own (`x.cu:12: kernel: block: [...] Assertion ...`, `[E file.cpp:3]`).
_RECORD_START = re.compile(r"^(?:terminate called|\S{1,400}\.\w{1,4}:\d+:\s|\[[EWIF] [\w.]+:\d+\]|[\w.-]{1,80}:\d+:\d+ \[\d+\] NCCL)")



_LIST_ITEM = re.compile(r"^(?:[-*•]\s|\(?\d{1,2}[.)]\s)")


def _continues(ln: Line, prev_text: str, header: str, header_kind: str, after_traceback: bool) -> bool:
    """Whether `ln` continues the message of the event whose first line is `header`."""
    s = ln.s
    if ln.fence_mark or not s:
        return False
    if ln.stamped:
        # A stamped line is a new log record, unless the collector stamps every line (kubectl --timestamps, Ray,
        # CI logs): then an indented line or a load_state_dict detail line still belongs to the message above.
        return (bool(ln.indent > 0 or L.PATTERNS["state_dict_detail"].match(s))
                and not (_TB_HEAD.match(s) or FRAME_RE.match(s)))
    if header_kind == "launcher" and (L.exception_head(header) or header.startswith("Root Cause")):
        # torchrun's ChildFailedError block: `====`, `Failures:`, `[0]:`, `  exitcode  : -9 (pid: 1)`, `Root Cause`
        return not (_TB_HEAD.match(s) or FRAME_RE.match(s) or (L.exception_head(s) and ln.indent == 0))
    if _RECORD_START.match(s) or L.dedupe_key(s) == L.dedupe_key(header):
        return False
    if ln.kind == "frame" and not _CPP_FRAME.match(s):
        return False
    if ln.kind in ("launcher", "warning"):
        return False
    head = L.exception_head(s)
    if head is not None and head[0].rsplit(".", 1)[-1][:1].isupper() and ln.indent == 0:
        return False                       # a new Python exception (lower-case `ncclSystemError:` continues)
    if L.PATTERNS["state_dict_detail"].match(s) or L.PATTERNS["boilerplate"].match(s) or _CPP_FRAME.match(s):
        return True
    if ln.kind in ("cuda", "nccl", "cpp", "log", "exception"):
        return True
    if L.CJK.search(s):
        return False
    opened = L.exception_head(header)
    if prev_text == header and opened is not None and not (opened[1] or "").strip():
        return True                        # `ImportError:` alone on its line: the message is the next one
    if (ln.indent > 0 or _LIST_ITEM.match(s)) and header.rstrip().endswith(":") and not REPORTER.search(s):
        return True                        # a message announcing a list (`xFormers was built for:`) goes on below
    if L.looks_like_prose(s):
        # a message may go on in sentences (`Make sure to have access to it at ...`) right under a traceback,
        # and a message announcing a list (`from one of:`) goes on until a blank line
        return not REPORTER.search(s) and (after_traceback and not ln.fence and prev_text == header
                                           or header.rstrip().endswith(":"))
    if ln.indent > 0 or s.startswith("\t"):
        return True
    return prev_text.rstrip().endswith(":") or (len(s) <= 80 and s.endswith(":"))


def _event_from_header(lines: list[Line], i: int, st: _State, after_traceback: bool = False
                       ) -> tuple[ErrorEvent, int]:
    """Build an event from the error line at `i` and its continuation lines; return it and the next index."""
    ln = lines[i]
    s = ln.tail or ln.s
    kind = ln.kind if ln.kind not in (None, "frame") else "exception"
    head = L.traceback_head(s)
    etype: str | None = None
    message = s
    if head is not None and (L.exception_head(s) is not None or kind == "exception"):
        etype, msg = head
        message = (msg or "").strip()
        if message.startswith("`") and message.endswith("`") and message.count("`") == 2:
            message = message[1:-1]            # `Error: \`param: copying a param with shape ...\``
    m = re.search(r"instance of '([\w:]{1,80})'", s)
    if etype is None and m:
        etype = m.group(1)
    w = _WARN_AT.match(s)
    if etype is None and w:
        etype, message = w.group("type"), w.group("msg")
    verbatim = [s]
    parts = [message] if message else []
    j = i + 1
    prev = s
    st.consumed.add(ln.idx)
    if w and j < len(lines) and lines[j].indent > 0 and _WARN_SOURCE.match(lines[j].s):
        st.consumed.add(lines[j].idx)      # the source line Python echoes under a warning (`  warnings.warn(`)
        j += 1
    # A compiler's line is whole: what follows it is its source excerpt or the next diagnostic.
    whole = L.compiler_diagnostic(s)
    while (not whole and j < len(lines) and j - i <= MAX_CONTINUATION
           and _continues(lines[j], prev, s, kind, after_traceback)
           and (not ln.tail or L.PATTERNS["state_dict_detail"].match(lines[j].s))):
        st.consumed.add(lines[j].idx)
        c = lines[j].s
        verbatim.append(c)
        if not (L.PATTERNS["boilerplate"].match(c) or _CPP_FRAME.match(c)):
            parts.append(c)
        prev = c
        j += 1
    ev = ErrorEvent(kind=kind, type=etype, message="\n".join(parts), lines=verbatim, position=ln.idx,
                    origin="inline" if ln.tail else "line")
    return ev, j


def _frames_block(lines: list[Line], i: int, st: _State) -> tuple[list[Frame], int]:
    """Read consecutive frame lines (each with its code line, carets skipped) starting at `i`."""
    frames: list[Frame] = []
    j = i
    while j < len(lines):
        ln = lines[j]
        if not ln.s:
            j += 1                                # blank lines inside pasted tracebacks
            continue
        fr = parse_frame(ln.s) if ln.kind == "frame" and FRAME_RE.match(ln.s) else None
        if fr is None:
            if L.CARETS.match(ln.s):
                st.carets += 1
                j += 1
                continue
            break
        j += 1
        # its source line: the next line, unless that is structure or an exception header
        while j < len(lines) and lines[j].s and L.CARETS.match(lines[j].s):
            st.carets += 1
            j += 1
        if j < len(lines):
            nxt = lines[j]
            if (nxt.s and not nxt.fence_mark and nxt.kind != "frame" and not L.traceback_head(nxt.s)
                    and nxt.indent >= ln.indent and not (L.CJK.search(nxt.s) and not nxt.fence)):
                code = nxt.s
                j += 1
                if _OPEN_RAISE.match(code.strip()):
                    # Python 3.11+ prints the whole statement: the message of `raise X(\n f"..."\n)` is below it.
                    while (j < len(lines) and len(code) < 2000 and lines[j].s and lines[j].kind != "frame"
                           and lines[j].indent > nxt.indent and not L.traceback_head(lines[j].s)):
                        code += " " + lines[j].s.strip()
                        j += 1
                    if j < len(lines) and lines[j].s.strip() == ")":
                        code += ")"
                        j += 1
                fr = fr.model_copy(update={"code": code})
            elif nxt.s and nxt.kind is None and L.traceback_head(nxt.s) and nxt.indent > ln.indent:
                fr = fr.model_copy(update={"code": nxt.s})   # an indented `Foo(x): ...`-like source line
                j += 1
        frames.append(fr)
    return frames, j


def _inferred_from_frames(frames: list[Frame], pos: int) -> ErrorEvent:
    """An event for a traceback cut before its exception line: the deepest frame's `raise`/code line."""
    deepest = frames[-1]
    code = deepest.code or ""
    etype, message = None, code
    raised = _raised(code)
    if raised is not None:
        etype = raised[0]
        message = raised[1] if raised[1] is not None else code
    if not message:
        message = f"in {deepest.module or deepest.file}:{deepest.function}"
    kind = "launcher" if all(is_launcher_frame(f) or f.library is None and f.module in (None, "<module>")
                             for f in frames[-3:]) and is_launcher_frame(deepest) else "exception"
    return ErrorEvent(kind=kind, type=etype, message=message, lines=[code] if code else [], frames=frames,
                      origin="frame", position=pos)


def documents_error(ev: ErrorEvent, printed_elsewhere: bool) -> bool:
    """Whether a postmortem's traceback event says something of its error. A traceback the writer cut before its
    exception line leaves only the deepest frame's source line (`sys.exit(main())`); when that is no `raise` and the
    document prints its error elsewhere, the source line is no error line of the document."""
    if ev.origin == "prose":
        return False
    return not (ev.origin == "frame" and ev.type is None and printed_elsewhere)


def _parse_stream(lines: list[Line], st: _State) -> list[ErrorEvent]:
    events: list[ErrorEvent] = []
    frames: list[Frame] | None = None      # an open traceback block
    block_pos = 0
    link: str | None = None                # "context"/"cause" from a chain marker, applied to the next exception
    cleanup = False
    prev_exc: ErrorEvent | None = None

    fault: str | bool = False              # the open block is a faulthandler dump ("current": the crashing thread)
    unanswered = False                     # a traceback header no frame or exception has followed yet

    def close_block() -> None:
        nonlocal frames, fault
        if frames and fault:
            frames.reverse()
            for k in range(len(events) - 1, -1, -1):
                if events[k].message.startswith("Fatal Python error") or "Fatal Python error" in events[k].lines[0]:
                    if not events[k].frames or fault == "current":   # the crashing thread wins over the others
                        events[k] = events[k].model_copy(update={"frames": frames})
                    break
        elif frames:
            st.cut_tracebacks += 1
            events.append(_mark(_inferred_from_frames(frames, block_pos)))
        frames = None
        fault = False

    def _mark(ev: ErrorEvent) -> ErrorEvent:
        nonlocal link, cleanup, prev_exc, unanswered
        update: dict = {}
        if cleanup or any(f.function in _CLEANUP_FUNCS for f in ev.frames):
            update["role"] = "cleanup"
        cleanup = False
        if ev.kind != "warning":
            if link and prev_exc is not None:
                update["chain_id"] = prev_exc.chain_id
                update["chain_pos"] = prev_exc.chain_pos + 1
            else:
                update["chain_id"] = st.next_chain
                st.next_chain += 1
        else:
            update["chain_id"] = st.next_chain
            st.next_chain += 1
        link = None
        ev = ev.model_copy(update=update)
        if ev.kind != "warning":
            prev_exc = ev
            unanswered = False
        return ev

    i = 0
    n = len(lines)
    while i < n and len(events) < MAX_EVENTS:
        ln = lines[i]
        s = ln.s
        if ln.fence_mark:
            close_block()
            i += 1
            continue
        if not s:
            i += 1
            continue
        if _TB_HEAD.match(s) or _FAULT_HEAD.match(s):
            close_block()
            st.unanswered_headers += unanswered
            unanswered = not _FAULT_HEAD.match(s)
            frames, block_pos = [], ln.idx
            fault = ("current" if s.startswith("Current") else True) if _FAULT_HEAD.match(s) else False
            i += 1
            continue
        if _CHAIN_CONTEXT.match(s) or _CHAIN_CAUSE.match(s):
            close_block()
            link = "cause" if _CHAIN_CAUSE.match(s) else "context"
            i += 1
            continue
        if _CLEANUP_MARK.match(s):
            close_block()
            cleanup = True
            i += 1
            continue
        if ln.kind == "frame" and FRAME_RE.match(s):
            if frames is None:
                frames, block_pos = [], ln.idx
                if not events:
                    st.notes.append("traceback starts mid-way (no `Traceback (most recent call last):` header)")
            got, i = _frames_block(lines, i, st)
            frames.extend(got)
            unanswered = unanswered and not got
            continue
        if ln.kind == "frame":                     # C++ frames outside a message
            i += 1
            continue
        if frames and ln.kind is None and L.traceback_head(s) and ln.indent <= 2 and not L.CJK.search(s):
            ln = Line(ln.idx, ln.text, s, ln.rank, ln.stamped, ln.fence, False, "exception", None)
            lines[i] = ln
        if ln.kind is not None:
            ev, i = _event_from_header(lines, i, st, after_traceback=bool(frames))
            if frames and fault:
                close_block()
            if frames and ev.kind != "warning":
                ev = ev.model_copy(update={"frames": frames, "origin": "traceback", "position": block_pos})
                frames = None
            elif frames:
                close_block()
            events.append(_mark(ev))
            continue
        if frames is not None and (L.CJK.search(s) or L.looks_like_prose(s) or not ln.fence and ln.indent == 0):
            close_block()
        i += 1
    close_block()
    st.unanswered_headers += unanswered
    return events


# ------------------------------------------------------------------------------------------------------------------
# Inline errors in prose
# ------------------------------------------------------------------------------------------------------------------

def _inline_events(lines: list[Line]) -> list[ErrorEvent]:
    out: list[ErrorEvent] = []
    for ln in lines:
        # (a fenced line counts when it is the reporter talking: the whole paste went into one code block)
        if ln.kind is not None or not ln.s or ln.fence and not is_prose(ln):
            continue
        s = ln.s
        for mark, before, span in L.marked_spans(s):
            if len(span) < 8:
                continue
            found = L.locate_error(span)
            head = L.exception_head(span) if found else None
            if mark != "`" and not head:
                continue       # bold is emphasis too: only a typed message in it is an error line
            if found and found[0] not in ("frame",):
                if head is not None and not head[1]:
                    continue
                etype, msg = (head[0], (head[1] or "").strip()) if head else (None, span)
                out.append(ErrorEvent(kind=found[0], type=etype, message=msg, lines=[span], origin="inline",
                                      position=ln.idx))
            elif not L.CJK.search(span) and L.said_failure(span):
                # a library's message in words, set apart in the sentence (the same rule as in postmortems)
                out.append(ErrorEvent(kind="log", message=span, lines=[span], origin="inline", position=ln.idx))
            elif " " in span and _ERROR_WORD.search(before) and not re.search(r"[=(){}\[\]]", span[:3]):
                out.append(ErrorEvent(kind="log", message=span, lines=[span], origin="prose", position=ln.idx))
        for m in _QUOTED_TYPED.finditer(s):
            span = m.group("span").strip()
            head = L.traceback_head(span)
            if head and L.PATTERNS["type_suffix"].search(head[0]):
                out.append(ErrorEvent(kind="exception", type=head[0], message=(head[1] or "").strip(), lines=[span],
                                      origin="inline", position=ln.idx))
    return out


# ------------------------------------------------------------------------------------------------------------------
# Entry point
# ------------------------------------------------------------------------------------------------------------------

# A prose sentence that mentions a failure (used only when no error line was printed).
_MENTION = re.compile(r"(?i)\berror\b|\bexception\b|\bOOM\b|out of (?:\w{2,6} )?memory|\bcrash|\bfail(?:s|ed|ure)?\b"
                      r"|\bkilled\b|\bhang(?:s|ing)?\b|\bstuck\b|报错|错误|异常|失败|溢出|显存不足|爆显存|崩溃|卡住|挂起")

_QUOTES_CODE = re.compile(r"[`'\"{}\[\]=]")
_SIZE_MISMATCH_CUT = re.compile(r"copying a param with shape .{0,80}(?<!\)\.)$")
_SIZE_MISMATCH_FULL = re.compile(r"current model is torch\.Size\(\[[\d, ]*\]\)\.?$")


def parse_report(text: str, max_chars: int = MAX_CHARS) -> Report:
    """Parse a pasted failure report.

    Args:
        text: the report: free text, Markdown, Python tracebacks, multi-rank logs, in any language.
        max_chars: work budget; a longer input keeps its head and (mostly) its tail, with a note.

    Returns:
        A `Report`. Never raises on odd input (empty, binary, huge); the `notes` say what was done.
    """
    notes: list[str] = []
    if not text or not text.strip():
        return Report(notes=["empty input"])
    text, cut = _cut(text, max_chars, notes)
    text = _sanitize(text, notes)
    text = _from_ipython(text, notes)
    lines = _lines(text)
    st = _State(notes=notes)
    streams = _streams(lines, notes)
    events: list[ErrorEvent] = []
    for stream in streams:
        evs = _parse_stream(stream, st)
        rank = stream[0].rank if stream else None
        if rank is not None:
            evs = [e.model_copy(update={"ranks": [rank]}) for e in evs]
        events.extend(evs)
    events.extend(_inline_events(lines))
    events = merge_events(events, notes, multi_rank=len(streams) > 1)

    said = [ln for ln in lines if ln.s.strip() and not ln.fence_mark]
    others = [ln for ln in said if not L.CJK.search(ln.s) and not REPORTER.search(ln.s)]
    if (not events and len(others) == 1 and not _MENTION.search(others[0].s)
            and (len(said) == 1 or _QUOTES_CODE.search(others[0].s))):
        # A report of one line that is not the reporter talking ("it runs out of memory") is the message they saw,
        # `Type: ` or not; so is the one such line beside the reporter's own sentences when it quotes code.
        one = others[0]
        events.append(ErrorEvent(kind="log", message=one.s.strip()[:2000], lines=[one.s], position=one.idx))
    if not any(tier(e) <= 2 for e in events):
        events.extend(_embedded_events(lines))
    if not any(tier(e) <= 2 or e.origin == "prose" for e in events):
        # Nothing printed and no message quoted in a sentence: sentences that mention the failure are the best
        # evidence left. (Beside a quoted message, "I got the error below" would only compete with it.)
        mentions = [ln for ln in lines if is_prose(ln) and _MENTION.search(ln.s)]
        for ln in mentions[:3]:
            events.append(ErrorEvent(kind="log", message=prose_text(ln)[:400], lines=[ln.s], origin="prose",
                                     position=ln.idx))
    events, primary = assign_roles(events, notes, error_cut=st.unanswered_headers > 0)

    if st.carets:
        notes.append(f"dropped {st.carets} caret lines (^^^ / ~~~ markers)")
    for rx, why in _OOM_STANDINS:
        if any(rx.search(x) for e in events for x in [e.message, *e.lines]):
            notes.append(why)
    truncated = cut
    if primary is not None and primary.origin == "frame":
        truncated = True
    last_lines = [ln.s for ln in lines if ln.s]
    if last_lines and _SIZE_MISMATCH_CUT.search(last_lines[-1]) and not _SIZE_MISMATCH_FULL.search(last_lines[-1]):
        truncated = True
        notes.append("the last line is cut mid-message")

    env: dict[str, str] = {}
    prose: list[str] = []
    error_lines: list[str] = []
    seen: set[str] = set()
    for ln in lines:
        if ln.kind not in (None, "frame") and not (ln.fence_mark):
            text_ = ln.tail or ln.s
            key = L.dedupe_key(text_)
            if key not in seen:
                seen.add(key)
                error_lines.append(text_)
        if ln.kind is None or ln.tail is not None:
            for name, ver in env_of(ln.s):
                env.setdefault(name, ver)
        if ln.idx not in st.consumed and is_prose(ln) and not (ln.kind is None and env_of(ln.s) and not L.CJK.search(ln.s)
                                  and len(L.WORD.findall(ln.s)) <= 6):
            p = prose_text(ln)
            if p:
                prose.append(p)
    for ev in events:
        if ev.origin in ("inline",) and ev.lines and L.dedupe_key(ev.lines[0]) not in seen:
            seen.add(L.dedupe_key(ev.lines[0]))
            error_lines.append(ev.lines[0])
    return Report(events=events, primary=primary, error_lines=error_lines, env=env, prose="\n".join(prose),
                  notes=notes, truncated=truncated)
