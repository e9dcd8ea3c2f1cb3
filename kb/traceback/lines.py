"""Line-level recognition of error, warning and log lines.

`classify_line` tells what kind of line one line of a report or postmortem is; `find_error_lines` pulls the error and
warning lines out of a whole text (ingest uses it on postmortems, the parser on reports).

Every pattern is a named, commented regex in a table (sentry `parameterization.py` style). All patterns are linear:
no nested unbounded quantifiers, and lines are capped at `MAX_LINE_CHARS` before any matching.
"""
from __future__ import annotations

import re
from typing import Final

ERROR_KINDS: Final = ("exception", "cuda", "nccl", "cpp", "warning", "launcher", "log")

MAX_LINE_CHARS: Final = 4000      # longer lines are junk (minified JSON, binary); only their head is looked at

# ---------------------------------------------------------------------------------------------------------------
# Cleaning: what is stripped from a line before it is classified (and before it is returned as "verbatim").
# ---------------------------------------------------------------------------------------------------------------

# ANSI colour / cursor sequences (CSI, OSC, two-byte escapes) and stray carriage-return overwrites.
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,40}[ -/]{0,4}[@-~]|\x1b\][^\x07\x1b]{0,400}(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

# Per-process prefixes added by launchers, stripped repeatedly (they can stack: `[default0]:[rank0]:`).
_PREFIXES: Final[list[tuple[str, re.Pattern[str]]]] = [
    # torchrun --tee / --log-line-prefix-template: `[rank3]:`, `[default0]:`, `[Rank 2]:`
    ("rank", re.compile(r"^\s{0,8}\[(?:rank|default|Rank |local_rank)\s?\d{1,6}\]:\s?")),
    # mpirun --tag-output: `[1,0]<stderr>:`
    ("mpi", re.compile(r"^\s{0,8}\[\d{1,6},\d{1,6}\]<(?:stdout|stderr)>:\s?")),
    # Ray workers: `(RayWorkerWrapper pid=1234)` / `(pid=1234, ip=10.0.0.1)`
    ("ray", re.compile(r"^\s{0,8}\((?:\w{1,60} )?pid=\d{1,9}(?:, ip=[\d.]{7,15})?\)\s?")),
    # srun -l / pdsh / deepspeed multi-node: `0: `, `worker-1: `, `node03: ` (lower-case host ending in a digit so
    # that `RuntimeError: ` is never taken for a host name, nor a library `libnccl.so.2: `)
    ("host", re.compile(r"^\s{0,8}(?!\S{0,40}\.so\.\d)(?:\d{1,4}|[a-z][a-z0-9_.-]{0,40}\d|localhost):\s(?=\S)")),
    # ISO-ish timestamps, optionally bracketed: `2024-05-01 12:03:04,512`, `[2024-05-01T12:03:04.5Z]`
    ("timestamp", re.compile(
        r"^\s{0,8}\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?\]?"
        r"(?:\s{0,4}[|-]\s{0,4}|\s{1,4}|:\s|$)")),
    # bare clock times: `12:03:04 `, `[12:03:04.123]`
    ("clock", re.compile(r"^\s{0,8}\[?\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?\]?\s{1,4}")),
    # tqdm progress bar glued in front of the real line: `  0%|          | 0/10 [00:00<?, ?it/s]`
    ("progress", re.compile(r"^\s{0,8}\d{1,3}%\|[^|\n]{0,200}\|[^\[\n]{0,80}\[[^\]\n]{0,80}\]")),
    # vLLM-style logger: `ERROR 09-27 06:46:46 engine.py:157] ` (the level stays in the message when it matters)
    # (newer releases bracket the location: `ERROR 04-06 20:46:48 [serving_chat.py:885] `)
    ("logger", re.compile(r"^\s{0,8}(?:INFO|DEBUG|WARNING|ERROR|CRITICAL)\s\d{2}-\d{2}\s\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?"
                          r"\s\[?[\w.\-]{1,80}:\d{1,6}\]\s")),
    # what is left of such a prefix when the reporter cut the level and the time: `[serving_chat.py:885] `
    ("location", re.compile(r"^\s{0,8}\[[\w.\-]{1,80}\.py:\d{1,6}\]\s")),
    # docker compose service prefix: `vllm_1   | `, `api-1  | `
    ("compose", re.compile(r"^\s{0,8}[A-Za-z][\w.\-]{0,40}[_-]\d{1,3}\s{1,12}\|\s")),
    # the margin of a boxed banner: `** WARNING: The BPE pre-tokenizer was not recognized!`
    ("banner", re.compile(r"^\s{0,8}\*{2,3}\s+(?=\S)")),
]

# A rank prefix in the middle of a line: output of several ranks glued together without a newline.
_MIDLINE_RANK = re.compile(r"(?<=\S)(?=\[(?:rank|default)\d{1,6}\]:)")

_ONLY_PREFIXES = re.compile(r"^(?:\s{0,8}\[(?:rank|default)\d{1,6}\]:)+\s*$")

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


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
            elif name in ("timestamp", "clock", "logger", "location"):
                stamped = True
                logged_error = logged_error or name == "logger" and m.group(0).lstrip().startswith(("ERROR", "CRITICAL"))
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
# Classification rules. Each entry: (name, kind, regex, anchored). Anchored rules only look at the start of the
# cleaned line; unanchored ones search anywhere but are vetoed on prose (see `looks_like_prose`).
# Order matters: the first rule that fires decides the kind.
# ---------------------------------------------------------------------------------------------------------------

# `File "x.py", line 3, in f` (Python), `Traceback (most recent call last):`, chain markers, C++ frames.
_FRAME = re.compile(
    r"""^(?:
        File\ "[^"\n]{1,1000}",\ line\ \d+            # python frame header
      | File\ "[^"\n]{1,1000}"$                       # frame without a line number (rare, cut logs)
      | (?:Original\ )?Traceback\ \(most\ recent\ call\ last\):?
      | During\ handling\ of\ the\ above\ exception
      | The\ above\ exception\ was\ the\ direct\ cause
      | Exception\ ignored\ in\b                      # marks a cleanup error (`__del__`); the parser ranks it
      | frame\ \#\d+:                                 # c10 C++ backtrace
      | \#\d+\ {1,4}0x[0-9a-fA-F]+\ in\ \S            # gdb / glibc backtrace
      | C\+\+\ CapturedTraceback:
      | Stack\ trace\ \(most\ recent\ call\ last\)
      | (?:Current\ )?[Tt]hread\ 0x[0-9a-fA-F]+\ \(most\ recent\ call\ first\):   # faulthandler dump
    )""",
    re.X,
)

# Python exception header: `pkg.mod.SomeError: message` or a bare `SomeError`. Type names are checked afterwards
# against `_TYPE_SUFFIX` / `_BARE_TYPES`, so `Note: ...` or `Config: ...` are not taken for exceptions.
_EXC_HEAD = re.compile(r"^(?P<type>(?:[A-Za-z_][\w]{0,80}\.){0,10}[A-Z_][\w]{0,80})(?:\s?:(?:\s(?P<msg>.*)|$)|$)")
_TYPE_SUFFIX = re.compile(r"(?:Error|Exception|Exit|Interrupt|Failure|Failed|Warning|Iteration)$")
_BARE_TYPES: Final = frozenset({"StopIteration", "KeyboardInterrupt", "SystemExit", "GeneratorExit"})

# Lines that are the body of a load_state_dict error even when the header line was cut away.
_STATE_DICT_DETAIL = re.compile(
    r"""^(?:
        Error\(s\)\ in\ loading\ (?:state_dict|the\ state_dict)     # header without its `RuntimeError:`
      | size\ mismatch\ for\ \S                                   # per-parameter detail line
      | size\ mismatch\b                                          # `size mismatch, got input (2), mat (2x4096)`
      | (?:Missing|Unexpected)\ key\(s\)\ in\ state_dict
      | [\w.\-]{1,200}:\ copying\ a\ param\ with\ shape           # detail with the `size mismatch for` cut off
    )""",
    re.X,
)

_LAUNCHER = re.compile(
    r"""(?:
        \bChildFailedError\b                                  # torch.distributed.elastic wrapper
      | \bexitcode\s{0,2}:\s{0,2}-?\d+                        # `failed (exitcode: -9) local_rank: 0`
      | \bexits?\ with\ return\ code\ ?=\ ?-?\d+              # deepspeed launcher
      | \bSignal\ \d{1,2}\ \(SIG[A-Z]{2,8}\)\ received          # torchrun forwarding a signal
      | \bclosing\ signal\ SIG[A-Z]{2,8}                       # torchrun killing the sibling ranks
      | \bProcessExitedException\b                            # torch.multiprocessing.spawn
      | \bprocess\ \d+\ terminated\ with\ (?:signal|exit\ code)
      | \bdied\ with\ <Signals\.SIG[A-Z]{2,8}
      | \bCalledProcessError\b.{0,400}\bnon-zero\ exit\ status  # launcher re-raising a failed child
      | ^Root\ Cause\ \(first\ observed\ failure\)
      | ^Killed$                                              # the shell's note after SIGKILL (often host OOM)
    )""",
    re.X,
)

_CUDA = re.compile(
    r"""(?:
        \bCUDA\ error\b                                       # `CUDA error: device-side assert triggered`
      | \bCUDA\ runtime\ error\b                              # old torch: `CUDA runtime error (59)`
      | \bCUDA\ driver\ error\b
      | \bdevice-side\ assert
      | \bCU(?:BLAS|DNN|SPARSE|FFT|SOLVER)_STATUS_[A-Z_]+      # library status names
      | \bcuDNN\ error\b
      | \bCUDA_ERROR_[A-Z_]+
      | \bAssertion\ `[^`\n]{1,300}`\ failed                   # kernel assert, repeated per thread
      | \.cuh?:\d+:\ \w+:\ block:\ \[                          # `Indexing.cu:1289: indexSelectLargeIndex: block: [`
      | \billegal\ memory\ access\ was\ encountered
      | \bunspecified\ launch\ failure
      | \bno\ kernel\ image\ is\ available
    )""",
    re.X,
)

_NCCL = re.compile(
    r"""(?:
        \bnccl[A-Z]\w{0,40}Error\b                            # ncclInternalError, ncclSystemError, ...
      | \bNCCL\ (?:WARN|ERROR)\b                              # NCCL's own log lines
      | \bNCCL\ error\b
      | \bNCCL\ communicator\b.{0,80}\b(?:abort|fail|timeout)
      | \bProcessGroupNCCL\b.{0,400}\b(?:timeout|timed\ out|abort|error|fail|Watchdog)
      | \bWatchdog\ caught\ collective\ operation\ timeout
      | \bDistBackendError\b
    )""",
    re.X | re.I,
)

_CPP = re.compile(
    r"""(?:
        \bc10::\w{0,40}Error\b                                # c10::Error, c10::CUDAError (not `c10::cuda::SetDevice`)
      | ^terminate\ called\ after\ throwing
      | ^what\(\):
      | ^Exception\ raised\ from\ \S+\ at\ \S
      | \bstd::(?:bad_alloc|runtime_error|out_of_range|logic_error|invalid_argument|system_error)\b
      | \[enforce\ fail\ at\ 
      | ^Segmentation\ fault\b | ^Bus\ error\b | ^Floating\ point\ exception\b
      | \bAborted\ \(core\ dumped\) | \(core\ dumped\)
      | ^Fatal\ Python\ error:
      | ^undefined\ symbol:\ \S | \bsymbol\ lookup\ error:        # the dynamic loader (`ldd -r`, a failed exec)
      | ^\*\*\*\ (?:Aborted|SIGSEGV|SIGABRT|Error\ in)\b
    )""",
    re.X,
)

# A compiler's or linker's diagnostic, in any locale: native builds of extensions (flash-attn, apex, DeepSpeed ops)
# fail with these, and the header, option or library they name is the cause.
_COMPILER = re.compile(
    r"""(?:
        ^\S{1,300}:\d{1,6}(?::\d{1,4})?:\ (?:fatal\ )?error:\ \S               # `x.cu:12:10: fatal error: cuda.h: ...`
      | ^(?:\S{0,200}/)?(?:gcc|g\+\+|c\+\+|cc1(?:plus)?|clang(?:\+\+)?|nvcc|ld|collect2)(?:-\d{1,2})?(?:\.exe)?
        \s{0,4}:?\s{0,4}(?:fatal\ error|fatal|error|致命错误|错误)\s{0,4}[:：]      # `gcc: 致命错误：`, `nvcc fatal   : ...`
      | ^(?:\S{0,200}/)?ld(?:\.\w{1,10})?:\ cannot\ find\ -l\S                # `/usr/bin/ld: cannot find -lcuda`
    )""",
    re.X,
)


def compiler_diagnostic(line: str) -> bool:
    return _COMPILER.match(clean_line(line)) is not None


# Warnings that are not in `SomethingWarning: msg` form.
_WARNING = re.compile(
    r"""(?:
        ^\[W\ [\w.]+:\d+\]                                    # c10 warning: `[W ProcessGroupNCCL.cpp:123]`
      | ^\S{1,400}\.py:\d{1,6}:\ \w{0,40}Warning:              # warnings.warn: `/x/checkpoint.py:31: UserWarning: ...`
      | ^W\d{4}\ \d{2}:\d{2}:\d{2}                            # glog warning
      | ^WARNING\b | ^\[WARNING\] | \[WARNING\]\ \[ | ^WARN\b | ^Warning:
      | ^[A-Z][A-Z0-9_]{1,30}:\ WARN(?:ING)?\b                  # a component's warning: `CUDA_SETUP: WARNING! ...`
      | \|\ WARNING\ \|                                       # loguru
      | \bnot\ in\ (?:the\ )?state_dict\b                     # `x.w1w3 not in state_dict, loading ...`
      | ^Some\ weights\ of\ .{1,300}\ were\ not\ (?:initialized|used)
      | ^You\ should\ probably\ TRAIN\ this\ model
      | (?:^|\]\ )OVERFLOW!\ Rank\ \d+\ Skipping\ step            # DeepSpeed fp16 loss scaler
      | ^Gradient\ overflow\.\s+Skipping\ step                  # apex / Megatron loss scaler
      | ^Some\ parameters\ are\ on\ the\ meta\ device\b           # accelerate: weights offloaded at load
    )""",
    re.X,
)

# Well-known library messages that read like sentences; without this they would be taken for the reporter's words.
_KNOWN_MESSAGE = re.compile(
    r"^(?:\[[\w\s.:-]{1,40}\]\s*)?(?:Some\ weights\ of\ .{1,300}\ were\ not\ (?:initialized|used)"
    r"|(?:.{0,300}\ )?were\ not\ (?:initialized|used)\ (?:from|when\ initializing)\ .{0,300}"   # its wrapped lines
    r"|and\ are\ newly\ initialized(?:\ because\ the\ shapes\ did\ not\ match)?:"
    r"|You\ should\ probably\ TRAIN\ this\ model|OVERFLOW!\ Rank\ \d+\ Skipping\ step"
    r"|Gradient\ overflow\.\s+Skipping\ step|Current\ loss\ scale\ already\ at\ minimum"
    r"|Some\ parameters\ are\ on\ the\ meta\ device\b"
    # transformers' generation warnings
    r"|A\ decoder-only\ architecture\ is\ being\ used,\ but\ right-padding\ was\ detected"
    r"|The\ attention\ mask\ and\ the\ pad\ token\ id\ were\ not\ set"
    r"|The\ attention\ mask\ is\ not\ set\ and\ cannot\ be\ inferred"
    r"|Input\ length\ of\ input_ids\ is\ \d+,\ but\ `max_length`\ is\ set\ to"
    r"|This\ is\ a\ friendly\ reminder\ -\ the\ current\ text\ generation\ call\ will\ exceed)",
    re.X,
)

# Other error-ish log lines.
_LOG = re.compile(
    r"""(?:
        ^(?:ERROR|FATAL|CRITICAL)\b                           # python logging / plain level word
      | ^\[(?:ERROR|FATAL|CRITICAL|E)\]
      | \[(?:ERROR|FATAL|CRITICAL)\]\ \[                      # deepspeed: `[ERROR] [engine.py:12:f]`
      | ^\[E\ [\w.]+:\d+\]                                    # c10 error log line
      | ^[EF]\d{4}\ \d{2}:\d{2}:\d{2}                         # glog error / fatal
      | \|\ (?:ERROR|CRITICAL)\ \|                            # loguru
      | ^error:\ \S                                           # compilers, pip: `error: subprocess-exited-with-error`
      | ^Error\ (?:while|when|in|during|loading|occurred|on)\b # `Error while creating shared memory segment ...`
      | \bOut\ of\ memory:\ Kill(?:ed)?\ process\b            # kernel OOM killer (dmesg)
      | \boom-kill(?:er)?\b
      | \bCUDA\ out\ of\ memory\b                             # OOM text without its exception type
      | \bOutOfMemoryError\b
      | \.so(?:\.\d[\w.]{0,20})?:\ (?:undefined\ symbol:|cannot\ open\ shared\ object\ file)   # the dynamic loader
      | \bexpected\ (?:shape\ )?[(\[][\d,\ x]{1,80}[)\]],?\ (?:but\ )?got\ [(\[]   # `expected (75968, 1024), got (151936, 1024)`
    )""",
    re.X,
)

# Boilerplate that follows real errors; never an error line of its own.
_BOILERPLATE = re.compile(
    r"""^(?:
        CUDA\ kernel\ errors\ might\ be\ asynchronously\ reported
      | For\ debugging\ consider\ passing\ CUDA_LAUNCH_BLOCKING
      | Compile\ with\ `TORCH_USE_CUDA_DSA`
      | To\ enable\ traceback\ see:
      | See\ https?://
      | \*{5,}$
      | Setting\ OMP_NUM_THREADS\ environment\ variable
      | Set\ XFORMERS_MORE_DETAILS=1\ for\ more\ details
      | You\ should\ probably\ TRAIN\ this\ model                  # always follows `Some weights of ... were not`
      | You\ may\ consider\ adding\ `ignore_mismatched_sizes=True`
      | ={10,}$ | -{10,}$                                     # separators of a launcher's summary
      | Root\ Cause\ \(first\ observed\ failure\):$            # torch elastic's summary heading
      | [\w./-]{1,200}\.py\ FAILED$                               # ... and its `train.py FAILED` line
      | ninja:\ build\ stopped:\ subcommand\ failed              # printed under every failed compile
      | ninja:\ no\ work\ to\ do
    )""",
    re.X,
)

# Source lines quoted inside a traceback (`raise RuntimeError(`) name an error but are code.
_CODE = re.compile(r"^(?:raise|return|assert|except|elif|if|def|class|import|from|print)\b[ (]")
# A logger prefix with nothing after it (`WARNING:torch.distributed.run:`).
_EMPTY_LOG = re.compile(r"^(?:WARNING|INFO|ERROR|DEBUG):[\w.]{1,120}:$")

# A shell that cannot find the command it was asked to run, in each shell's words (bash, sh, zsh, cmd.exe, PowerShell,
# the last two also in Chinese Windows): the command is group `cmd` of whichever alternative matched.
MISSING_COMMAND = re.compile(
    r"""^(?:
        (?:[\w/.-]{0,40}/)?(?:ba|z|k|da|fi)?sh:\ (?:line\ \d{1,6}:\ |\d{1,6}:\ )?(?P<c1>[^\s:'"]{1,120}):\ (?:command\ )?not\ found
      | zsh:\ command\ not\ found:\ (?P<c2>\S{1,120})
      | (?P<c3>[\w./+-]{1,120}):\ command\ not\ found
      | '(?P<c4>[^'\n]{1,120})'\ (?:is\ not\ recognized\ as\ an\ internal\ or\ external\ command|不是内部或外部命令)
      | (?:\S{1,120}\ :\ )?(?:The\ term\ '(?P<c5>[^'\n]{1,120})'\ is\ not\ recognized\ as\ (?:the\ )?name\ of\ a\ cmdlet
                               |无法将[“"](?P<c6>[^”"\n]{1,120})[”"]项识别为\ ?cmdlet)
    )""",
    re.X,
)


def missing_command(line: str) -> str | None:
    """The command a shell could not find, lower-case without its directory, when `line` says so."""
    m = MISSING_COMMAND.match(line.strip())
    if m is None:
        return None
    cmd = next(g for g in m.groups() if g)
    return cmd.replace("\\", "/").rsplit("/", 1)[-1].lower()


# Line starts that mark tool output whatever words follow; such lines are never vetoed as prose.
_STRONG_START = re.compile(
    r"^(?:terminate\ called|what\(\):|Exception\ raised\ from|Segmentation\ fault|Bus\ error|Fatal\ Python\ error"
    r"|(?:ERROR|FATAL|CRITICAL|WARNING|WARN)\b|Warning:|\[[EW]\ |\[(?:ERROR|WARNING|FATAL|CRITICAL)\]"
    r"|[EFW]\d{4}\ |error:\ |Killed$|Root\ Cause|[A-Z][A-Z0-9_]{1,30}:\ WARN(?:ING)?\b"
    r"|\S{1,400}\.py:\d{1,6}:\ \w{0,40}Warning:)",                  # warnings.warn: `/x/y.py:12: UserWarning: ...`
    re.X,
)

# Carets under a code line (`^^^^`, `~~~~^^^^`).
_CARETS = re.compile(r"^[\^~ ]+$")

# Small, common English words: a line full of them is a sentence, not a log line.
_STOPWORDS: Final = frozenset(
    "the a an to is are was were be been i we you it this that these those when which while with and or but of in "
    "on for my our your get got getting have has had do does did not can could would should will if so then there "
    "any some me us like how why what after before because also just still try tried seems seem as by from at".split()
)
_WORD = re.compile(r"[A-Za-z']{1,40}")


def looks_like_prose(line: str) -> bool:
    """True for a human sentence (CJK text, or English with many function words), False for log output."""
    if _CJK.search(line):
        return True
    words = _WORD.findall(line[:600])
    if len(words) < 6:
        return False
    small = sum(1 for w in words if w.lower() in _STOPWORDS)
    return small >= 3 and small / len(words) >= 0.25


def _exception_head(line: str) -> tuple[str, str | None] | None:
    """(type, message|None) when `line` starts with a Python exception header, else None."""
    m = _EXC_HEAD.match(line)
    if not m:
        return None
    typ = m.group("type")
    last = typ.rsplit(".", 1)[-1]
    if not (_TYPE_SUFFIX.search(last) or last in _BARE_TYPES):
        return None
    return typ, m.group("msg")


def _classify_clean(line: str) -> str | None:
    """Classify an already cleaned line."""
    if not line or _CARETS.match(line) or _BOILERPLATE.match(line) or _EMPTY_LOG.match(line):
        return None
    if _FRAME.match(line):
        return "frame"
    head = _exception_head(line)
    compiler = _COMPILER.match(line) is not None
    anchored = (head is not None or _STATE_DICT_DETAIL.match(line) is not None or _STRONG_START.match(line) is not None
                or _KNOWN_MESSAGE.match(line) is not None or compiler)
    if MISSING_COMMAND.match(line):
        return "log"
    if not anchored and (_CODE.match(line) or looks_like_prose(line)):
        return None
    if _LAUNCHER.search(line):
        return "launcher"
    if compiler:
        return "cpp"
    if head is not None and head[0].endswith("Warning"):
        return "warning"
    if (_WARNING.match(line) or _KNOWN_MESSAGE.match(line)) and not _NCCL.search(line):
        return "warning"
    if _CUDA.search(line):
        return "cuda"
    if _NCCL.search(line):
        return "nccl"
    if _CPP.search(line):
        return "cpp"
    if head is not None or _STATE_DICT_DETAIL.match(line):
        return "exception"
    if _WARNING.search(line):
        return "warning"
    if _LOG.search(line):
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
    if _CODE.match(cleaned) or "Error" not in cleaned and "Exception" not in cleaned:
        return None
    for m in _TAIL_START.finditer(cleaned):
        tail = cleaned[m.end():]
        if _CJK.search(tail):
            continue
        head = _exception_head(tail)
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


# A failure said in words, without an exception type: what a library prints when it gives up (`Could not load
# bitsandbytes native library: ...`, `Asking to pad but the tokenizer does not have a padding token.`).
_FAILURE_WORD = re.compile(
    r"\b(?:not|no|cannot|can't|could\ not|couldn't|unable|fail(?:ed|s|ure)?|errors?|invalid|unsupported|too\ old"
    r"|mismatch(?:ed)?|missing|none|unknown|exceeds?|out\ of|unhandled|denied|refused|timed\ out|killed)\b", re.I | re.X)
# What reads as code, a command, a path or a table rather than a message.
_NOT_MESSAGE = re.compile(
    r"""^(?:[\w.\[\]'"]{1,80}\s{0,2}=(?!=)                # an assignment
      | [\w.]{1,80}\(.*\)$                            # a call
      | (?:\$|>>>|\#|//|pip|python3?|conda|export|torchrun|deepspeed|accelerate|git|cd|sudo|apt(?:-get)?|nvidia-smi
         |CUDA_\w{1,40}=|INFO\b|DEBUG\b|\[INFO\]|\|\s|\+-)          # a command, an info record, a table row
      | [\w./\\:-]{1,300}$                              # one token: a path, a name
      | \w{1,80}:\ [\w.\[\],\ ]{1,120}\ =\ .{1,200}$       # a parameter with its type and default (source code)
    )|\s--\w|\w=\S.{0,400}\w=\S                          # (an option; a dump of settings)
    |\ -\ (?:INFO|WARNING|WARN|DEBUG)\ -\ |\[(?:INFO|WARNING|WARN|DEBUG)\]   # a record below error level, its level mid-line
    """, re.X)


def _reads_as_message(span: str) -> bool:
    """Several words, nothing that reads as code, a command, a setting or a frame."""
    return (len(_WORD.findall(span)) >= 4 and _NOT_MESSAGE.search(span) is None and not _CODE.match(span)
            and not _FRAME.match(span))


def said_failure(span: str) -> bool:
    """Whether a quoted span or a line of tool output is a failure message in words (a message, one of its words a
    failure word)."""
    return _reads_as_message(span) and _FAILURE_WORD.search(span) is not None


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
    if (not cleaned or cleaned.startswith(("- ", "* ", "...")) or _BOILERPLATE.match(cleaned) or _CJK.search(cleaned)
            or _ADVICE.match(cleaned) or _classify_clean(cleaned) is not None):
        return None
    return cleaned


# The advice a library prints after its failure message (`Please run ...`, `In some cases, a minor-version mismatch
# will not cause later errors`): part of the message above it, not a failure of its own.
_ADVICE = re.compile(r"^(?:Please|If|You|For|In|Maybe|Try|To|See|Note|This|Consider|Alternatively|Otherwise|When|"
                     r"Make\ sure|Check)\b", re.X)


def _inline_errors(line: str) -> list[tuple[str, str]]:
    out = []
    for span in _backticked(line):
        if len(span) < 8:
            continue
        head = _exception_head(span)
        # a bare name (`KeyError`) is a mention, not an error line: ask for a message or a strong pattern
        if head is not None and not head[1]:
            continue
        kind = _classify_clean(span)
        if kind is not None and kind not in ("frame", "log"):
            out.append((kind, span))
        elif kind is None and _CJK.search(span) is None and said_failure(span):
            out.append(("log", span))          # a library's message quoted in a sentence
    if not out and _CJK.search(line):
        for m in _QUOTED.finditer(line):
            span = m.group(1).strip()
            if not _CJK.search(span) and _SHAPE_MSG.search(span):
                out.append(("log", span))
    return out


# Parts of a line that differ between ranks/threads of one failure; masked only to decide duplicates.
_DEDUPE_MASKS: Final[list[tuple[str, re.Pattern[str], str]]] = [
    ("cuda_coords", re.compile(r"\b(block|thread): \[\d+,\s?\d+,\s?\d+\]"), r"\1: [*]"),
    ("rank_pid", re.compile(r"\b(rank|Rank|local_rank|pid|PID|process)(\s?[:=]?\s?)\d+"), r"\1\2*"),
    ("nccl_host", re.compile(r"^[\w.-]{1,80}:\d+:\d+ \[\d+\]"), "<host>"),
]


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

    for raw in text[:max_chars].splitlines():
        for part in split_glued(raw):
            found = locate_error(part)
            if found is not None and found[0] != "frame":
                add(found[1])
            elif inline:
                for _kind, span in _inline_errors(part):
                    add(span)
    return out
