"""Progress for long work (building a knowledge base, measuring sets): a rich bar on a terminal; plain lines when
stderr is piped or a log (`embedding 120/480 chunks`), at the start and end of each stage and every few seconds in
between, so a first build in CI or under `| tee` does not look hung."""
from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import TextIO

STAGES = {"read": "Reading", "extract": "Extracting", "embed": "Embedding", "index": "Indexing", "build": "Building",
          "fetch": "Fetching"}
# What a stage counts, for the plain lines.
UNITS = {"read": "files", "extract": "documents", "embed": "chunks", "fetch": "issues"}
LINE_EVERY_S = 5.0


@contextmanager
def progress_bar(enabled: bool = True, stream: TextIO | None = None, every_s: float = LINE_EVERY_S):
    """Yields tick(stage, done, total) for ingest.build.ingest; one bar per stage on a terminal, else lines."""
    out = stream if stream is not None else sys.stderr
    if not enabled:
        yield lambda stage, done, total: None
        return
    if not out.isatty():
        yield _line_ticker(out, every_s)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.console import Console

    with Progress(
        TextColumn("{task.description:<11}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=Console(file=out), transient=True,
    ) as bar:
        tasks: dict[str, int] = {}

        def tick(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(STAGES.get(stage, stage), total=total or 1)
            bar.update(tasks[stage], completed=done, total=total or 1)

        yield tick


def _line_ticker(out: TextIO, every_s: float):
    last: dict[str, tuple[float, int]] = {}      # stage -> (when its last line was written, the count it said)

    def tick(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        seen = last.get(stage)
        finished = done >= total
        if seen is not None and (seen[1] == done or (not finished and now - seen[0] < every_s)):
            return
        last[stage] = (now, done)
        name = STAGES.get(stage, stage).lower()
        unit = UNITS.get(stage)
        if unit:
            line = f"{name} {done}/{total} {unit}"
        else:
            line = f"{name}: done" if finished and seen is not None else f"{name}"
        out.write(line + "\n")
        out.flush()

    return tick
