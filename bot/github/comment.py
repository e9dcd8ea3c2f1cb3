"""The bot's issue comment: Markdown for a Diagnosis, and the hidden marker that finds (and explains) it later.

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

from kb.evidence import ENTRY_LINE, YOUR_LINE, verified_first
from kb.messages import msg
from kb.models import Diagnosis, Document, FixOut, IssueOut
from kb.traceback.signature import SIGNATURE_VERSION, signature_ref

MARKER_PREFIX = "<!-- triage-kb"
_MARKER = re.compile(r"<!-- triage-kb(?P<attrs>[^>]*?)-->")
_ATTR = re.compile(r"(\w+)=(\S*)")
_COMMAND = re.compile(r"^\s*/triage\s+(?P<verdict>wrong|fixed)\b", re.IGNORECASE | re.MULTILINE)

EVIDENCE_MAX = 6
FEEDBACK_HELP = msg("gh_feedback_help")


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


def render_match(diag: Diagnosis, docs: dict[str, Document], repro_env: dict | None = None) -> str:
    """`repro_env`: the environment (python, torch, cuda, device) of the repro run that confirmed the top
    entry's fix, when one did."""
    best = diag.matches[0]
    doc = docs.get(best.entry_id)
    lang = diag.lang            # labels from the message table (kb/data/messages.json), in the answer's language
    lines = [marker(best.entry_id, diag.query.signature),
             f"### {msg('gh_known', lang)}",
             "",
             f"**{_inline(best.title)}**",
             f"{msg('gh_confidence', lang, pct=f'{diag.confidence:.0%}')} · "
             f"{msg('gh_entry_source', lang, entry=best.entry_id, source=_inline(best.source))}",
             "",
             *_issue_lines(best.issue),
             f"**{msg('root_cause', lang)}**",
             "",
             _inline(best.root_cause) or msg("gh_not_recorded", lang),
             ""]
    # The same parts in the same order as the terminal and Slack: root cause, fixes (verified first), evidence.
    if best.fixes:
        lines.extend([f"**{msg('fixes', lang)}**", ""])
        lines.extend(f"- {_fix_label(f, doc, repro_env, lang)}{_inline(f.text)}" for f in verified_first(best.fixes))
        lines.append("")
    if best.versions:
        lines.extend([f"**{msg('versions', lang)}**", ""])
        lines.extend(f"- {_inline(v)}" for v in best.versions)
        lines.append("")
    evidence = best.evidence[:EVIDENCE_MAX]
    if evidence:
        lines.extend([f"<details><summary>{msg('gh_why', lang)}</summary>", ""])
        lines.extend(f"- {_evidence_line(e)}" for e in evidence)
        lines.extend(["", "</details>", ""])
    env = _environment(doc)
    if env:
        lines.extend([env, ""])
    others = diag.matches[1:]
    if others:
        lines.append(f"{msg('also_possible_cap', lang)}: "
                     + "; ".join(f"`{m.entry_id}` {_inline(m.title)}" for m in others))
        lines.append("")
    lines.extend(["---", f"<sub>{msg('gh_feedback_help', lang)}</sub>"])
    return "\n".join(lines)


def render_no_match(diag: Diagnosis, previous: Marker | None = None, why: str = "it no longer applies") -> str:
    """The short comment for a report no postmortem fits (or no longer fits, after an edit or `/triage wrong`)."""
    lang = diag.lang
    lines = [marker("", diag.query.signature), f"### {msg('gh_no_fit', lang)}", ""]
    if previous and previous.entry_id:
        lines.extend([msg("gh_earlier", lang, entry=previous.entry_id, why=_inline(why)), ""])
    if diag.reason:
        lines.extend([_inline(diag.reason), ""])
    if diag.related:
        lines.append(msg("gh_nearest", lang))
        lines.extend(f"- `{m.entry_id}` {_inline(m.title)}" + (f" ({_inline(m.reason)})" if m.reason else "")
                     for m in diag.related)
        lines.append("")
    lines.extend(["---", f"<sub>{msg('gh_never_closes', lang)}</sub>"])
    return "\n".join(lines)


def _issue_lines(issue: IssueOut | None) -> list[str]:
    """For an imported issue thread: "This looks like #N (closed, fixed by #M)", its link and who resolved it.
    (A reference only: the bot never closes the new issue nor marks it as a duplicate.)"""
    if issue is None:
        return []
    state = issue.state or "open"
    if issue.pull_request:
        state += f", fixed by {issue.repo}#{issue.pull_request}"     # GitHub shows #M within the same repository
    ref = f"{issue.repo}#{issue.number}"
    line = f"This looks like {ref} ({state})"
    if issue.url:
        line = f"This looks like [{ref}]({issue.url}) ({state})"
    res = issue.resolution
    if res is not None:
        who = {"maintainer": f"a maintainer ({res.author_association or '?'})", "reporter": "the reporter",
               "pull_request": "the closing pull request", "commit": "the closing commit"}[res.kind]
        line += f"; resolution from {who}"
    return [line + ".", ""]


def _fix_label(fix: FixOut, doc: Document | None, repro_env: dict | None, lang: str = "en") -> str:
    recipe = f" `{doc.repro}`" if doc is not None and doc.repro else ""
    if fix.verified_by == "repro":
        if not fix.verified:
            return msg("gh_repro_pending", lang, recipe=recipe)
        env = ", ".join(f"{k} {_inline(str(repro_env[k]))}" for k in ("python", "torch", "cuda", "device")
                        if repro_env and repro_env.get(k))
        return msg("gh_verified_repro", lang) + recipe + (f" on {env}" if env else "") + ("：" if lang == "zh" else ": ")
    if fix.verified:
        who = msg(f"who_{fix.verified_by}", lang) if lang != "en" else fix.verified_by
        return msg("gh_verified_by", lang, who=who)
    return ""


def _environment(doc: Document | None) -> str:
    if doc is None:
        return ""
    parts = []
    if doc.affected:
        parts.append(f"affected: {_inline(doc.affected)}")
    if doc.fixed_in:
        parts.append(f"fixed in: {_inline(doc.fixed_in)}")
    if doc.versions:
        parts.append("versions seen: " + ", ".join(f"`{_inline(v)}`" for v in doc.versions[:5]))
    if doc.references:
        parts.append("references: " + ", ".join(_inline(r) for r in doc.references[:5]))
    return "**Environment.** " + "; ".join(parts) if parts else ""


def _evidence_line(text: str) -> str:
    """Quoted lines (yours, the entry's) as inline code; the rest is prose."""
    for label in (YOUR_LINE, ENTRY_LINE):
        if text.startswith(label):
            return f"{label}`{text[len(label):].replace('`', chr(39))}`"
    return _inline(text)


def _inline(text: str) -> str:
    """One line, with nothing that could close our marker, start HTML, or @-mention someone."""
    return " ".join((text or "").split()).replace("<", "&lt;").replace("@", "@\u200b")
