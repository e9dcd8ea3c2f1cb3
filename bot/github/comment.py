"""The bot's issue comment: the hidden marker that finds (and explains) it later, and `/triage` commands.

The comment's Markdown is bot.render.markdown's.

The marker is the comment's first line: `<!-- triage-kb entry=<id> ref=<signature ref> ver=<rules version>
sig=<signature> -->` (on one line), values percent-encoded (so `-->` can never occur inside). It lets the bot find its
own comment to edit in place, ignore its own comments as reports, and know which entry and report signature a
`/triage wrong` reply is about; the ref (kb.traceback.signature_ref) is what the vote is matched on, the version
(kb.traceback.SIGNATURE_VERSION) names the rules that made the signature.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

from kb.traceback.signature import SIGNATURE_VERSION, signature_ref

MARKER_PREFIX = "<!-- triage-kb"
_MARKER = re.compile(r"<!-- triage-kb(?P<attrs>[^>]*?)-->")
_ATTR = re.compile(r"(\w+)=(\S*)")
_COMMAND = re.compile(r"^\s*/triage\s+(?P<verdict>wrong|fixed)\b", re.IGNORECASE | re.MULTILINE)


@dataclass
class Marker:
    entry_id: str
    signature: str
    ref: str          # the signature's ref (a marker written before refs: the ref of its signature text)
    version: str = ""  # the rules version that made the signature ("" in a marker written before versions)


def has_marker(text: str | None) -> bool:
    return bool(text) and MARKER_PREFIX in text


def parse_marker(text: str) -> Marker | None:
    m = _MARKER.search(text or "")
    if m is None:
        return None
    attrs = {k: unquote(v) for k, v in _ATTR.findall(m.group("attrs"))}
    signature = attrs.get("sig", "")
    return Marker(entry_id=attrs.get("entry", ""), signature=signature,
                  ref=attrs.get("ref") or signature_ref(signature), version=attrs.get("ver", ""))


def feedback_command(text: str | None) -> str | None:
    """'wrong' or 'fixed' when a comment is a `/triage wrong|fixed` command (on a line of its own)."""
    m = _COMMAND.search(text or "")
    return m.group("verdict").lower() if m else None


def marker(entry_id: str, signature: str) -> str:
    return (f"{MARKER_PREFIX} entry={quote(entry_id, safe='')} ref={signature_ref(signature)} "
            f"ver={quote(SIGNATURE_VERSION, safe='')} sig={quote(signature, safe='')} -->")
