"""deploy/slack-manifest.yaml agrees with the bot: the command, shortcut, event, URLs and the scopes its calls need."""
from __future__ import annotations

from pathlib import Path

import yaml

from bot.slack.handlers import COMMAND, SHORTCUT

MANIFEST = Path(__file__).resolve().parents[1] / "deploy" / "slack-manifest.yaml"


def test_manifest_declares_what_the_bot_listens_to_and_the_scopes_it_uses():
    m = yaml.safe_load(MANIFEST.read_text())
    features, settings = m["features"], m["settings"]
    [command] = features["slash_commands"]
    [shortcut] = features["shortcuts"]
    assert command["command"] == COMMAND
    assert shortcut["type"] == "message" and shortcut["callback_id"] == SHORTCUT
    assert settings["event_subscriptions"]["bot_events"] == ["app_mention"]
    assert settings["interactivity"]["is_enabled"] is True
    for url in (command["url"], settings["event_subscriptions"]["request_url"],
                settings["interactivity"]["request_url"]):
        assert url.startswith("https://") and url.endswith("/slack/events")
    # commands; the app_mention event; chat.postMessage/update/postEphemeral; conversations.replies; files.info
    needed = {"commands", "app_mentions:read", "chat:write", "channels:history", "groups:history", "files:read"}
    assert needed <= set(m["oauth_config"]["scopes"]["bot"])
    assert settings["socket_mode_enabled"] is False and len(m["display_information"]["name"]) <= 35
