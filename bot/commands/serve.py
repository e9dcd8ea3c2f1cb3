"""`triage serve`: the HTTP service (JSON API, GitHub webhook, Slack events) under uvicorn."""
from __future__ import annotations

import logging
from pathlib import Path

import click

from bot.clikit import guarded, kb_option, settings_from


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0 in a container).")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535))
@kb_option
@click.option("--workers", type=click.IntRange(0), default=None,
              help="Diagnosis worker processes (default: $TRIAGE_WORKERS, else one per core; 0: in the service "
                   "process, one at a time).")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]))
@click.pass_context
@guarded
def serve(ctx: click.Context, host: str, port: int, kb_dir: Path | None, workers: int | None, log_level: str) -> None:
    """Run the HTTP service: /v1/diagnose, /v1/search, /v1/entries, /healthz, /github/webhook (docs at /docs)."""
    import uvicorn

    from bot.service.app import create_app
    from bot.service.logs import configure_logging

    settings = settings_from(ctx)
    if kb_dir is not None:
        if not kb_dir.is_dir():
            raise click.ClickException(f"{kb_dir}: no such knowledge-base folder")
        settings = settings.model_copy(update={"kb": kb_dir})
    configure_logging(getattr(logging, log_level.upper()))
    if workers is None:
        from bot.service.pool import default_workers

        workers = settings.workers if settings.workers is not None else default_workers()
    uvicorn.run(create_app(settings, workers=workers), host=host, port=port, log_config=None, log_level=log_level)


def register(group) -> None:
    group.add_command(serve)
