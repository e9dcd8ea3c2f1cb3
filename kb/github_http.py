"""Reading GitHub REST answers: what the bot's client (bot.github.api) and the tracker importer
(ingest.github_import) both need, kept here because ingest may not import bot."""
from __future__ import annotations

import httpx


def error_message(resp: httpx.Response) -> str:
    """GitHub's own `message` of an error answer (cut to 200 characters), else the HTTP reason."""
    try:
        body = resp.json()
    except ValueError:
        return resp.reason_phrase
    return str(body.get("message", ""))[:200] if isinstance(body, dict) else ""


def next_link(resp: httpx.Response, base: httpx.URL) -> str | None:
    """The `next` page, only when it points back at the API we talk to (never follow a link elsewhere)."""
    nxt = resp.links.get("next", {}).get("url")
    if not nxt:
        return None
    url = httpx.URL(nxt)
    return nxt if (url.scheme, url.host, url.port) == (base.scheme, base.host, base.port) else None
