"""`triage slack --socket`: the Slack bot over Socket Mode, for workspaces that cannot reach a public URL.

Over HTTP the bot is part of `triage serve` (POST /slack/events). Socket Mode needs no signing secret: Slack
authenticates the websocket opened with the app-level token instead.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path

import click

from bot.clikit import guarded, kb_option, settings_from


@click.command()
@click.option("--socket", is_flag=True, help="Connect to Slack over Socket Mode (needs TRIAGE_SLACK_APP_TOKEN).")
@kb_option
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["debug", "info", "warning", "error"]))
@click.pass_context
@guarded
def slack(ctx: click.Context, socket: bool, kb_dir: Path | None, log_level: str) -> None:
    """Run the Slack bot over Socket Mode (`--socket`); over HTTP it runs inside `triage serve`."""
    if not socket:
        raise click.UsageError("over HTTP the Slack bot runs inside `triage serve` (POST /slack/events); "
                               "add --socket to connect over Socket Mode instead")
    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from slack_sdk.errors import SlackApiError

    from bot.service.logs import configure_logging
    from bot.service.state import ServiceState
    from bot.slack.app import check_settings, create_slack_bot, secret

    settings = settings_from(ctx)
    if kb_dir is not None:
        settings = settings.model_copy(update={"kb": kb_dir})
    check_settings(settings, socket=True)
    configure_logging(getattr(logging, log_level.upper()))
    state = ServiceState(settings=settings)
    # The KB loads while the websocket opens: a bad token fails at once, and events that arrive before the KB is
    # ready are answered "still loading" rather than lost.
    loader = threading.Thread(target=state.load, name="kb-load", daemon=True)
    loader.start()
    bot = create_slack_bot(settings, state, socket=True)
    handler = SocketModeHandler(bot.app, secret(settings.slack_app_token))
    try:
        handler.connect()
    except SlackApiError as exc:
        bot.close()
        raise click.ClickException(
            f"Slack refused the Socket Mode connection ({exc.response.get('error')}): check TRIAGE_SLACK_APP_TOKEN "
            "(an xapp- token with connections:write) and that Socket Mode is on for the app") from None
    try:
        loader.join()
        if state.load_error:
            raise click.ClickException(f"the knowledge base failed to load: {state.load_error}")
        click.echo("Slack bot connected over Socket Mode; Ctrl-C stops it.", err=True)
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        handler.close()
        bot.close()


def register(group) -> None:
    group.add_command(slack)
