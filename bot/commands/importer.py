"""`triage import github OWNER/REPO...`: import issue threads into a knowledge base (ingest/github_import.py)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from bot.clikit import guarded, kb_option, settings_from
from bot.compose import resolve_kb_for_writing


@click.group("import")
def import_group() -> None:
    """Import knowledge from elsewhere (an issue tracker) into a knowledge base."""


@import_group.command("github")
@click.argument("repos", nargs=-1, required=True)
@kb_option
@click.option("--since", default=None, metavar="DATE",
              help="Only issues updated on or after this date (2024-05-01); a later stored cursor wins.")
@click.option("--state", "state", type=click.Choice(["closed", "all"]), default="closed", show_default=True,
              help="Closed issues only, or open ones too.")
@click.option("--max", "limit", type=click.IntRange(1), default=None, metavar="N",
              help="At most N threads in this run; the next run goes on from there.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the run's figures.")
@click.pass_context
@guarded
def github(ctx: click.Context, repos: tuple[str, ...], kb_dir: Path | None, since: str | None, state: str,
           limit: int | None, as_json: bool) -> None:
    """Import the issue threads of OWNER/REPO... (TRIAGE_GITHUB_API_URL, TRIAGE_GITHUB_TOKEN): each thread becomes a
    document with its resolution (a maintainer's diagnosis, the reporter's confirmation or the closing pull
    request), or is kept as unresolved. Incremental: a second run asks only for what changed."""
    from bot.compose import import_threads
    from bot.progress import progress_bar

    settings = settings_from(ctx)
    target = resolve_kb_for_writing(settings, kb_dir)
    with progress_bar(enabled=not as_json) as tick:
        report = import_threads(list(repos), target, settings, state=state, since=since, limit=limit, progress=tick)
    if as_json:
        click.echo(json.dumps(report.as_dict(), ensure_ascii=False))
        return
    from bot.render.terminal import print_import_report

    print_import_report(report, list(repos), target)


def register(group) -> None:
    group.add_command(import_group)
