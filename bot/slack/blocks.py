"""A Diagnosis as Slack Block Kit, always inside Slack's limits. Pure: no I/O.

Slack rejects a whole message when one part is too long (section text over 3000 characters, a header over 150, more
than 50 blocks, a button value over 2000) and, in practice, when all the blocks together pass about 13k characters.
So every piece of text is escaped, then cut to its own budget, and the budgets add up to well under that.
"""
from __future__ import annotations

import json
import re

from kb.evidence import verified_first
from kb.messages import msg
from kb.models import Diagnosis, MatchOut
from kb.traceback.signature import SIGNATURE_VERSION, signature_ref

SECTION_MAX = 3000
HEADER_MAX = 150
CONTEXT_ELEMENTS_MAX = 10
BLOCKS_MAX = 50
BUTTON_VALUE_MAX = 2000
FALLBACK_MAX = 300          # the notification text: a summary, never the report

# Budgets for the parts of an answer (characters of mrkdwn, after escaping).
ROOT_CAUSE_MAX = 2000
FIXES_MAX = 2500
EVIDENCE_MAX = 1500
LINE_MAX = 300
EVIDENCE_LINES = 8
ALSO_POSSIBLE = 3

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
    """At most `limit` characters, cut at a word boundary (mid-word only for one very long word); never leaves half
    of an escaped entity behind."""
    if len(text) <= limit:
        return text
    head = text[: limit - len(mark) + 1]
    space = head.rfind(" ")
    head = head[:space].rstrip(" ,;:") if space >= (limit - len(mark)) * 2 // 3 else head[: limit - len(mark)]
    head = _PARTIAL_ENTITY.sub("", head)
    return head + mark


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


def fallback_text(diag: Diagnosis) -> str:
    if diag.verdict == "match":
        best = diag.matches[0]
        return cut(f"{msg('known_issue', diag.lang, title=best.title)} ({msg('confidence', diag.lang)} "
                   f"{diag.confidence:.2f})", FALLBACK_MAX)
    return cut(msg("no_fit_reason", diag.lang, reason=diag.reason), FALLBACK_MAX)


def diagnosis_blocks(diag: Diagnosis) -> list[dict]:
    """The answer; a match carries the feedback buttons."""
    blocks = _match_blocks(diag) if diag.verdict == "match" else _no_match_blocks(diag)
    report = _report_line(diag)
    if report:
        blocks.append(context(report))
    if diag.verdict == "match":
        blocks.append(feedback_actions(diag.matches[0].entry_id, diag.query.signature, lang=diag.lang))
    return fit(blocks)


def _match_blocks(diag: Diagnosis) -> list[dict]:
    best = diag.matches[0]
    lang = diag.lang            # labels from the message table (kb/data/messages.json), in the answer's language
    blocks = [
        header(msg("known_issue", lang, title=best.title or best.entry_id)),
        context(f"*{msg('confidence_cap', lang)}* {diag.confidence:.2f}",
                f"*{msg('entry_cap', lang)}* `{escape(best.entry_id)}`",
                f"*{msg('source_cap', lang)}* {_source(best.source)}"),
        section(f"*{msg('root_cause', lang)}*\n"
                + cut(escape(best.root_cause or msg("no_root_cause", lang)), ROOT_CAUSE_MAX)),
    ]
    if best.fixes:
        blocks.append(section(f"*{msg('fixes', lang)}*\n" + _fixes(best, lang)))
    if best.versions:
        blocks.append(section(f"*{msg('versions', lang)}*\n" + "\n".join(escape(cut(v, LINE_MAX))
                                                                         for v in best.versions)))
    evidence = [line for line in best.evidence if not line.startswith("signals:")][:EVIDENCE_LINES]
    if evidence:
        text = "\n".join(cut(line, LINE_MAX) for line in evidence)
        blocks.append(section(f"*{msg('evidence', lang)}*\n" + code_block(text, EVIDENCE_MAX)))
    others = diag.matches[1:1 + ALSO_POSSIBLE]
    if others:
        blocks.append(context(*(f"{msg('also_possible_cap', lang)}: {escape(cut(o.title, LINE_MAX))} "
                                f"(`{escape(o.entry_id)}`)" for o in others)))
    return blocks


def _no_match_blocks(diag: Diagnosis) -> list[dict]:
    blocks = [
        header(msg("no_fit", diag.lang)),
        section(cut(escape(diag.reason or msg("nothing_explains", diag.lang)), ROOT_CAUSE_MAX)),
    ]
    if diag.related:
        lines = [_related_line(r) for r in diag.related]
        blocks.append(section(f"*{msg('nearest', diag.lang)}*\n" + cut("\n".join(lines), FIXES_MAX)))
    return blocks


def _fixes(best: MatchOut, lang: str = "en") -> str:
    lines = []
    for fix in verified_first(best.fixes):
        text = escape(cut(fix.text, LINE_MAX * 2))
        if fix.verified:
            who = msg(f"who_{fix.verified_by}", lang) if lang != "en" else fix.verified_by
            lines.append(f":white_check_mark: *{msg('verified', lang)}* ({who}): {text}")
        else:
            lines.append(f"• {text}")
    return cut("\n".join(lines), FIXES_MAX)


def _related_line(rel: MatchOut) -> str:
    why = f": {escape(cut(rel.reason, LINE_MAX))}" if rel.reason else ""
    title = escape(cut(rel.title or rel.entry_id, LINE_MAX))
    return f"• {title} (`{escape(rel.entry_id)}`){why}"


def _source(source: str) -> str:
    if source.startswith(("http://", "https://")) and len(source) <= LINE_MAX and not set("|<> ") & set(source):
        return f"<{escape(source)}|{escape(source)}>"
    return f"`{escape(cut(source, LINE_MAX))}`"


def _report_line(diag: Diagnosis) -> str:
    q = diag.query
    said = ": ".join(part for part in (q.exception_type, q.message.strip()) if part)
    said = " ".join(said.split()).replace("`", "'")   # one line of inline code: no newlines, no backticks
    return f"{msg('report', diag.lang)}: `{escape(cut(said, LINE_MAX))}`" if said else ""


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
