"""Pydantic models of a parsed report: frames, error events and the report itself."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EventKind = Literal["exception", "cpp", "cuda", "nccl", "warning", "launcher", "log"]
Role = Literal["primary", "cause", "wrapper", "cleanup", "secondary"]
Origin = Literal["line", "traceback", "inline", "frame", "prose"]


class Frame(BaseModel):
    """One Python stack frame (`File "...", line N, in f` plus its source line)."""

    model_config = ConfigDict(extra="forbid")

    file: str
    module: str | None = None        # dotted module for library files (`torch.nn.modules.module`), file stem otherwise
    function: str = ""
    lineno: int | None = None
    code: str | None = None          # the source line printed under the frame header
    library: str | None = None       # top-level package of a site-/dist-packages path (torch, transformers, ...),
    #                                  "stdlib" for the standard library, None for user code


class ErrorEvent(BaseModel):
    """One error, warning or log record found in a report.

    `lines` are the verbatim (prefix-stripped) lines it was read from; `message` is the text after `Type: ` with its
    continuation lines (load_state_dict details, NCCL "Last error:" lines) joined by newlines.
    """

    model_config = ConfigDict(extra="forbid")

    kind: EventKind
    type: str | None = None          # exception type as printed (`torch.OutOfMemoryError`), None for untyped lines
    message: str = ""
    lines: list[str] = Field(default_factory=list)
    frames: list[Frame] = Field(default_factory=list)   # outermost first, as Python prints them
    role: Role = "secondary"
    origin: Origin = "line"          # where it came from: a log line, the end of a traceback, inline code in prose,
    #                                  the deepest frame of a cut traceback, or a prose sentence
    chain_id: int = 0                # events of one exception chain share an id
    chain_pos: int = 0               # 0 for the first exception of a chain (the root), 1.. for the ones raised later
    ranks: list[str] = Field(default_factory=list)      # rank prefixes the event was seen under, when any
    count: int = 1                   # how many copies (threads, ranks, repeats) were merged into this one
    position: int = 0                # index of its first line in the report (reading order)

    @property
    def inferred(self) -> bool:
        """True when no error line was printed and the event was reconstructed (from a frame or from prose)."""
        return self.origin in ("frame", "prose")


class Report(BaseModel):
    """A parsed report: every event, the primary one, error lines, environment, prose, and what the parser did."""

    model_config = ConfigDict(extra="forbid")

    events: list[ErrorEvent] = Field(default_factory=list)
    primary: ErrorEvent | None = None
    error_lines: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    prose: str = ""
    notes: list[str] = Field(default_factory=list)
    truncated: bool = False

    def chain(self, event: ErrorEvent | None = None) -> list[ErrorEvent]:
        """The exception chain `event` (default: the primary) belongs to, root first."""
        event = event or self.primary
        if event is None:
            return []
        return sorted((e for e in self.events if e.chain_id == event.chain_id), key=lambda e: e.chain_pos)
