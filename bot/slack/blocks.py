"""Slack Block Kit pieces, always inside Slack's limits, and the feedback buttons. Pure: no I/O. (An answer's
blocks are bot.render.slack's, built from these.)

Slack rejects a whole message when one part is too long (section text over 3000 characters, a header over 150, more
than 50 blocks, a button value over 2000) and, in practice, when all the blocks together pass about 13k characters.
So every piece of text is escaped, then cut to its own budget, and the budgets add up to well under that.
"""
from __future__ import annotations

import json
import re

from kb.evidence import clip
from kb.messages import msg
from kb.traceback.signature import SIGNATURE_VERSION, signature_ref

SECTION_MAX = 3000
HEADER_MAX = 150
CONTEXT_ELEMENTS_MAX = 10
BLOCKS_MAX = 50
BUTTON_VALUE_MAX = 2000

ACTION_FIXED = "triage_fixed"
ACTION_WRONG = "triage_wrong"
FEEDBACK_ACTIONS_ID = "triage_feedback"
FEEDBACK_STATUS_ID = "triage_feedback_status"
VERDICT_LABEL = {"fixed": ":white_check_mark: Fixed it", "wrong": ":x: Not it"}

_PARTIAL_ENTITY = re.compile(r"&[a-z]{0,4}$")


def escape(text: str) -> str:
    """Slack's mrkdwn treats &, < and > as control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cut(text: str, limit: int, mark: str = "…") -> str:
    """At most `limit` characters, cut at a word boundary (kb.evidence.clip, keeping the lines); never leaves half
    of an escaped entity behind."""
    if len(text) <= limit:
        return text
    return _PARTIAL_ENTITY.sub("", clip(text, limit - len(mark), mark="", one_line=False)) + mark


def code_block(text: str, limit: int) -> str:
    """A ``` block whose fences survive the cut."""
    body = cut(escape(text).replace("```", "'''"), limit - 8)
    return f"```{body}```"


def section(mrkdwn: str, block_id: str | None = None) -> dict:
    block = {"type": "section", "text": {"type": "mrkdwn", "text": cut(mrkdwn, SECTION_MAX)}}
    if block_id:
        block["block_id"] = block_id
    return block


def header(text: str) -> dict:
    return {"type": "header", "text": {"type": "plain_text", "text": cut(text, HEADER_MAX), "emoji": True}}


def context(*mrkdwn: str, block_id: str | None = None) -> dict:
    elements = [{"type": "mrkdwn", "text": cut(t, SECTION_MAX)} for t in mrkdwn if t][:CONTEXT_ELEMENTS_MAX]
    block = {"type": "context", "elements": elements}
    if block_id:
        block["block_id"] = block_id
    return block


def notice(text: str) -> list[dict]:
    """A one-section message (progress, verification results, errors)."""
    return [section(escape(text))]


def feedback_value(entry_id: str, signature: str) -> str:
    """The button value: the entry and the report's signature, so a click can be recorded without a lookup. The
    signature is named by its ref (fixed length: kb.traceback.signature_ref), which is what the vote is matched on,
    and by the rules version that made it; its text rides along for people reading the vote, shortened to what
    fits."""
    ref = signature_ref(signature)

    def value(keep: int) -> str:
        return json.dumps({"entry": entry_id, "ref": ref, "ver": SIGNATURE_VERSION, "signature": signature[:keep]},
                          ensure_ascii=False)

    lo, hi = 0, len(signature)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(value(mid)) <= BUTTON_VALUE_MAX:
            lo = mid
        else:
            hi = mid - 1
    return value(lo)


def parse_feedback_value(value: str) -> tuple[str, str, str, str]:
    """(entry id, signature text as carried, signature ref, rules version). A button sent before refs has no ref:
    the text's; one sent before versions has none ("")."""
    data = json.loads(value)
    signature = data["signature"]
    return data["entry"], signature, data.get("ref") or signature_ref(signature), data.get("ver", "")


def feedback_actions(entry_id: str, signature: str, lang: str = "en") -> dict:
    value = feedback_value(entry_id, signature)
    return {
        "type": "actions",
        "block_id": FEEDBACK_ACTIONS_ID,
        "elements": [
            {"type": "button", "action_id": ACTION_FIXED, "style": "primary", "value": value,
             "text": {"type": "plain_text", "text": msg("fixed_it", lang), "emoji": True}},
            {"type": "button", "action_id": ACTION_WRONG, "value": value,
             "text": {"type": "plain_text", "text": msg("not_it", lang), "emoji": True}},
        ],
    }


def with_feedback(blocks: list[dict], user_id: str, verdict: str) -> list[dict]:
    """The answer's blocks with a line saying who gave which feedback; a second vote by the same person replaces
    their first. The buttons stay, so others can vote too."""
    mine = f"<@{user_id}>"
    votes: list[str] = []
    out: list[dict] = []
    for block in blocks:
        if block.get("block_id") == FEEDBACK_STATUS_ID:
            votes = [e["text"] for e in block.get("elements", []) if not e["text"].startswith(mine)]
            continue
        out.append(block)
    votes.append(f"{mine}: {VERDICT_LABEL[verdict]}")
    status = context(*votes[-CONTEXT_ELEMENTS_MAX:], block_id=FEEDBACK_STATUS_ID)
    at = next((i + 1 for i, b in enumerate(out) if b.get("block_id") == FEEDBACK_ACTIONS_ID), len(out))
    out.insert(at, status)
    return fit(out)


def fit(blocks: list[dict]) -> list[dict]:
    """At most 50 blocks; the feedback buttons, when present, are kept."""
    if len(blocks) <= BLOCKS_MAX:
        return blocks
    keep = [b for b in blocks if b.get("block_id") in (FEEDBACK_ACTIONS_ID, FEEDBACK_STATUS_ID)]
    rest = [b for b in blocks if b not in keep][: BLOCKS_MAX - len(keep) - 1]
    return rest + [context("(cut: the answer was longer than a Slack message allows)")] + keep
