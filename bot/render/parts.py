"""The parts of an answer, decided once for every surface: the order of the fixes and how each is marked, the
evidence as lines, the entry's environment, how an entry or issue thread is named, and the report's own line.

The terminal, Markdown and Slack renderers read these and add only their markup and their length limits, so the
three say the same things in the same order.
"""
from __future__ import annotations

from dataclasses import dataclass

from kb.messages import msg
from kb.models import ENTRY_LINE, YOUR_LINE, FixOut, IssueOut, MatchOut, QueryOut

LIST_MAX = 5          # versions seen and references shown of an entry (the JSON has them all)
RAN_ON = ("python", "torch", "cuda", "device")


def verified_first(fixes: list[FixOut]) -> list[FixOut]:
    """Fixes in the order every rendering shows them: verified ones first, each group in the entry's order."""
    return sorted(fixes, key=lambda f: not f.verified)


@dataclass(frozen=True)
class FixMark:
    """How a fix is marked: verified (by a repro run, or by whom), a recipe no run has confirmed yet, or nothing."""

    verified: bool
    by_repro: bool          # marked "repro": a recipe verifies it (once a run confirmed it, when runs are known)
    who: str                # who verified it, as the answer's language names them
    recipe: str | None      # the entry's recipe, for a fix marked "repro"
    ran_on: str             # "torch 2.13.0, cuda 12.4, device NVIDIA H100": where a run confirmed it

    @property
    def pending(self) -> bool:
        return self.by_repro and not self.verified


def fix_mark(fix: FixOut, match: MatchOut, lang: str) -> FixMark:
    by_repro = fix.verified_by == "repro"
    who = msg(f"who_{fix.verified_by}", lang) if lang != "en" and fix.verified else fix.verified_by
    ran = match.verified_on or {}
    ran_on = ", ".join(f"{k} {ran[k]}" for k in RAN_ON if ran.get(k)) if by_repro and fix.verified else ""
    return FixMark(verified=fix.verified, by_repro=by_repro, who=who, recipe=match.repro if by_repro else None,
                   ran_on=ran_on)


@dataclass(frozen=True)
class EvidenceLine:
    label: str      # YOUR_LINE or ENTRY_LINE before a quoted line; empty before a sentence
    text: str

    @property
    def quoted(self) -> bool:
        return bool(self.label)


def evidence_lines(match: MatchOut, limit: int | None = None) -> list[EvidenceLine]:
    """The entry's evidence as the lines people read: a matched pair is the report's line, then the entry's."""
    out = []
    for item in match.evidence_items:
        if item.kind == "line":
            out += [EvidenceLine(YOUR_LINE, item.report_line or ""), EvidenceLine(ENTRY_LINE, item.entry_line or "")]
        else:
            out.append(EvidenceLine("", item.note))
    return out[:limit]


@dataclass(frozen=True)
class EnvironmentPart:
    label: str
    values: list[str]
    code: bool = False      # versions: each value is code


def environment(match: MatchOut, lang: str) -> list[EnvironmentPart]:
    """What the entry says of where it happens: affected and fixed-in versions, versions seen, references."""
    parts = []
    if match.affected:
        parts.append(EnvironmentPart(msg("env_affected", lang), [match.affected]))
    if match.fixed_in:
        parts.append(EnvironmentPart(msg("env_fixed_in", lang), [match.fixed_in]))
    if match.versions_seen:
        parts.append(EnvironmentPart(msg("env_versions_seen", lang), match.versions_seen[:LIST_MAX], code=True))
    if match.references:
        parts.append(EnvironmentPart(msg("env_references", lang), match.references[:LIST_MAX]))
    return parts


def issue_state(issue: IssueOut, qualified: bool = False) -> str:
    """closed, fixed by #50 (`qualified`: by acme/trainer#50, for a comment in another repository)."""
    state = issue.state or "?"
    if issue.state_reason and issue.state_reason != "completed":
        state += f" as {issue.state_reason.replace('_', ' ')}"
    if issue.pull_request:
        state += f", fixed by {issue.repo if qualified else ''}#{issue.pull_request}"
    return state


def issue_label(issue: IssueOut) -> str:
    """acme/trainer#12 (closed, fixed by #50): an imported issue thread as answers name it."""
    return f"{issue.repo}#{issue.number} ({issue_state(issue)})"


def where(match: MatchOut) -> str:
    """How a related entry is named beside its title: its id, or the issue thread it is."""
    return match.entry_id if match.issue is None else issue_label(match.issue)


def report_said(query: QueryOut) -> str:
    """The report's own error, `Type: message`, as the answer repeats it."""
    return ": ".join(part for part in (query.exception_type, query.message.strip()) if part)
