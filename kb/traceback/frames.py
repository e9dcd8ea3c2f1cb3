"""Python frame lines → `Frame`, with the library a file belongs to, and the `module:function` reduction.

The names of libraries and launchers are data: kb/data/rules/vocabulary.toml.
"""
from __future__ import annotations

import re
from typing import Final

from kb import rules
from kb.traceback.models import Frame

_WORDS = rules.load("vocabulary")

# `File "/x/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl` (the `in f` part may be cut).
# faulthandler prints `File "...", line N in f` (no comma before `in`).
FRAME_RE = re.compile(
    r'^\s{0,40}File "(?P<file>[^"\n]{1,1000})"(?:, line (?P<lineno>\d{1,7}))?(?:,? in (?P<func>.{1,300}))?$'
)

# Installed packages: everything after `site-packages/` or `dist-packages/` (either slash, any case on Windows).
_SITE = re.compile(r"[\\/](?:site|dist)-packages[\\/](?P<rest>[^\n]{1,800})$", re.I)
# The standard library: `/usr/lib/python3.10/json/decoder.py`, `C:\Python310\Lib\json\decoder.py`.
_STDLIB = re.compile(r"(?:[\\/]lib[\\/]python\d(?:\.\d{1,2})?|[A-Za-z]:[\\/][^\n]{0,200}?[\\/]Lib)[\\/](?P<rest>[^\n]{1,800})$")
# `<frozen importlib._bootstrap>` names a stdlib module; `<string>`, `<stdin>` name nothing.
_FROZEN = re.compile(r"^<frozen (?P<mod>[\w.]{1,200})>$")
# Console scripts of launchers: `/env/bin/torchrun` belongs to torch.
_SCRIPTS: Final[dict[str, str]] = _WORDS["launcher_scripts"]
_SCRIPT = re.compile(r"[\\/]bin[\\/](?P<name>[\w.-]{1,60})$")

# Libraries recognised in a source checkout (`/workspace/flash-attention/flash_attn/x.py`, `src/liger_kernel/...`),
# where no site-packages marks them.
KNOWN_LIBRARIES: Final = rules.words(_WORDS["known_libraries"])

# Frames of launchers; an error whose deepest frame is in one of these is the launcher's, not the job's.
LAUNCHER_MODULES: Final = tuple(_WORDS["launcher_modules"])


def _dotted(rest: str) -> list[str]:
    parts = [p for p in re.split(r"[\\/]", rest) if p and not p.endswith((".egg", ".egg-link"))]
    if not parts:
        return []
    last = parts[-1]
    if last.endswith((".py", ".pyx", ".pyc")):
        parts[-1] = last.rsplit(".", 1)[0]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return parts


def locate_file(path: str) -> tuple[str | None, str | None]:
    """(module, library) for a file path from a frame.

    Installed packages give their dotted module and top-level package; the standard library gives library
    "stdlib"; known libraries in a source checkout are recognised too; anything else is user code: module is the
    file stem, library None.
    """
    m = _FROZEN.match(path)
    if m:
        return m.group("mod"), "stdlib"
    if path.startswith("<"):
        return None, None
    m = _SITE.search(path)
    if m:
        parts = _dotted(m.group("rest"))
        if parts:
            lib = parts[0].split("-")[0]
            return ".".join(parts), lib
    m = _SCRIPT.search(path)
    if m and m.group("name") in _SCRIPTS:
        return m.group("name"), _SCRIPTS[m.group("name")]
    m = _STDLIB.search(path)
    if m and "site-packages" not in path.lower():
        parts = _dotted(m.group("rest"))
        if parts:
            return ".".join(parts), "stdlib"
    parts = _dotted(path)
    for i, part in enumerate(parts[:-1]):
        if part in KNOWN_LIBRARIES:
            return ".".join(parts[i:]), part
    return (parts[-1] if parts else None), None


def parse_frame(line: str) -> Frame | None:
    """A `Frame` from one `File "...", line N, in f` line (no code yet), or None."""
    m = FRAME_RE.match(line)
    if not m:
        return None
    file = m.group("file")
    module, library = locate_file(file)
    lineno = m.group("lineno")
    return Frame(file=file, module=module, function=(m.group("func") or "").strip(),
                 lineno=int(lineno) if lineno else None, library=library)


def frame_key(frame: Frame) -> str:
    """`module:function`, the reduction a frame contributes to a signature (`torch.nn.modules.module:load_state_dict`)."""
    return f"{frame.module or frame.file.rsplit('/', 1)[-1]}:{frame.function or '?'}"


def reduce_frames(frames: list[Frame], *, libraries_only: bool = False, limit: int = 12) -> list[str]:
    """Innermost-first `module:function` keys, consecutive duplicates (recursion) collapsed.

    Args:
        frames: outermost first, as parsed.
        libraries_only: keep only library frames (evidence that travels between reports; user code does not).
        limit: at most this many keys.
    """
    out: list[str] = []
    for f in reversed(frames):
        if libraries_only and (f.library is None or f.library == "stdlib"):
            continue
        key = frame_key(f)
        if not out or out[-1] != key:
            out.append(key)
        if len(out) >= limit:
            break
    return out


def is_launcher_frame(frame: Frame) -> bool:
    return bool(frame.module) and frame.module.startswith(LAUNCHER_MODULES)  # type: ignore[union-attr]
