"""Read what a recipe printed: which of its events carries the expected signature, and what status that makes.

The output is parsed with the matcher's own report parser and compared with the matcher's signature similarity, so
"reproduced" means the same thing as "this entry explains the report": a close template and no conflicting hard
fact (the zero on the same side of a size mismatch, the same load-key byte, ...).
"""
from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Final, Literal

from kb.traceback.models import ErrorEvent
from kb.traceback.parse import parse_report
from kb.traceback.signature import (SIG_ACCEPT, Signature, hard_conflicts, signature_of_event, signature_of_line,
                                    similarity)

Status = Literal["reproduced", "not_reproduced", "fix_verified", "fix_failed", "skipped", "timeout", "error"]
OK_STATUSES: Final = frozenset({"reproduced", "fix_verified", "skipped"})

CHECK_MARKER: Final = "repro-check: passed"   # what a recipe prints once its fix-mode check succeeded


@dataclass(frozen=True)
class Found:
    """The event of an output closest to an expected signature."""

    line: str
    signature: Signature
    score: float
    conflicts: list[str]

    @property
    def agrees(self) -> bool:
        return self.score >= SIG_ACCEPT and not self.conflicts


def event_line(ev: ErrorEvent, expected: Signature | None = None) -> str:
    """One line for people: the type and, of a multi-line message, the line sharing most words with `expected`."""
    lines = [ln.strip() for ln in ev.message.splitlines() if ln.strip()] or ev.lines[:1] or [""]
    text = lines[0]
    if expected is not None and len(lines) > 1:
        want = set(expected.tokens)
        text = max(lines, key=lambda ln: len(want & set(ln.lower().replace(".", " ").replace(":", " ").split())))
    return (f"{ev.type}: {text}" if ev.type else text)[:300]


def closest(output: str, expected: Signature) -> Found | None:
    """The output's event most like `expected`; among equals, one without conflicting facts."""
    best: Found | None = None
    for ev in parse_report(output).events:
        sig = signature_of_event(ev)
        score, _why = similarity(sig, expected)
        found = Found(event_line(ev, expected), sig, score, hard_conflicts(sig, expected))
        if best is None or (found.agrees, found.score) > (best.agrees, best.score):
            best = found
    return best


def primary_line(output: str) -> str | None:
    primary = parse_report(output).primary
    return event_line(primary) if primary is not None else None


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def classify(expected_line: str, fix: bool, benign: bool, exit_code: int, output: str
             ) -> tuple[Status, str, Found | None]:
    """(status, one-line reason, closest event) of a finished run.

    Args:
        expected_line: the recipe's expected signature (an entry signature line).
        fix: whether the run had the fix switched on.
        benign: the fix keeps the failure's line (a warning the entry calls harmless); the check decides.
        exit_code: the script's exit status (negative: killed by that signal).
        output: what it printed (stdout and stderr together).
    """
    found = closest(output, signature_of_line(expected_line))
    hit = found is not None and found.agrees
    signalled = exit_code < 0
    if not fix:
        if hit:
            return "reproduced", f"{found.line} (similarity {found.score:.2f})", found
        if signalled:
            return "error", f"killed by {_signal_name(exit_code)} before the failure appeared", found
        return "not_reproduced", _miss(exit_code, output, found), found
    if signalled:
        return "error", f"killed by {_signal_name(exit_code)}", found
    if exit_code != 0:
        return "fix_failed", f"exited with code {exit_code}: {primary_line(output) or 'no error line'}", found
    if hit and not benign:
        return "fix_failed", f"the failure still occurs with the fix: {found.line}", found
    if benign and not hit:
        return "fix_failed", "the line the entry calls harmless did not appear, so the check proves nothing", found
    check = [ln.strip() for ln in output.splitlines() if ln.strip().startswith(CHECK_MARKER)]
    if not check:
        return "fix_failed", f"exited 0 but printed no `{CHECK_MARKER}` line", found
    # Only a line that is the failure's counts as matched: with the fix on, an unrelated warning is not news.
    return "fix_verified", check[-1][:300], found if hit else None


def _miss(exit_code: int, output: str, found: Found | None) -> str:
    closest_part = ""
    if found is not None:
        closest_part = f"; closest line: {found.line[:160]} (similarity {found.score:.2f}"
        closest_part += f", conflicts: {'; '.join(found.conflicts)})" if found.conflicts else ")"
    if exit_code == 0:
        return "exited 0 without the expected failure" + closest_part
    return f"failed differently (exit code {exit_code}): {primary_line(output) or 'no error line'}" + closest_part
