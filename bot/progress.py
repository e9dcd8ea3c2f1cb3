"""Progress bars for long work: a rich bar on a terminal, nothing when output is piped."""
from __future__ import annotations

import sys
from contextlib import contextmanager

STAGES = {"read": "Reading", "extract": "Extracting", "embed": "Embedding", "index": "Indexing", "build": "Building",
          "fetch": "Fetching"}


@contextmanager
def progress_bar(enabled: bool = True):
    """Yields tick(stage, done, total) for ingest.build.ingest; one bar per stage."""
    if not enabled or not sys.stderr.isatty():
        yield lambda stage, done, total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from rich.console import Console

    with Progress(
        TextColumn("{task.description:<11}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=Console(stderr=True), transient=True,
    ) as bar:
        tasks: dict[str, int] = {}

        def tick(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(STAGES.get(stage, stage), total=total or 1)
            bar.update(tasks[stage], completed=done, total=total or 1)

        yield tick
