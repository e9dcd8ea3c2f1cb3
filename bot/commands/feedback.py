"""`triage feedback list [--json]`: what people said about answers (Slack buttons, GitHub `/triage` comments)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import click

from bot.clikit import guarded, kb_option, settings_from
from bot.compose import kb_folder


@click.group()
def feedback() -> None:
    """Feedback on answers ("fixed it" / "not it"), kept in the knowledge-base folder."""


@feedback.command("list")
@kb_option
@click.option("--limit", type=click.IntRange(1), default=None, help="Only the N most recent.")
@click.option("--json", "as_json", is_flag=True, help="A JSON array, newest first.")
@click.pass_context
@guarded
def list_cmd(ctx: click.Context, kb_dir: Path | None, limit: int | None, as_json: bool) -> None:
    """Recorded votes, latest first: when, where from, who (and why they may vote), verdict, entry and report
    signature. Each person has one vote per entry and error; a changed vote shows once, as it stands now."""
    from kb.feedback import FeedbackStore
    from kb.state import state_for

    settings = settings_from(ctx)
    folder = kb_folder(settings, kb_dir)
    # Listing must not create a state file (nor the folder) where nothing was ever recorded.
    rows = FeedbackStore(state_for(settings, folder, create=False)).list(limit)
    if as_json:
        click.echo(json.dumps([fb.as_dict() for fb in rows], ensure_ascii=False))
        return
    if not rows:
        where = "the state database" if settings.database_url is not None else str(folder)
        click.echo(f"No feedback recorded in {where}.")
        return
    for fb in rows:
        when = datetime.fromtimestamp(fb.updated_at or fb.created_at, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")
        where = _where(fb.context) or fb.scope
        who = f"{fb.user} ({fb.role})" if fb.role else fb.user
        click.echo(f"{when}  {fb.source:<6}  {fb.verdict:<5}  {fb.entry_id}  by {who}  {where}".rstrip())
        click.echo(f"    {fb.signature[:160]}")


def _where(context: dict) -> str:
    if context.get("repo"):
        return f"{context['repo']}#{context.get('issue', '?')}"
    if context.get("channel"):
        return f"channel {context['channel']} message {context.get('message_ts', '?')}"
    return ""


def register(group) -> None:
    group.add_command(feedback)
