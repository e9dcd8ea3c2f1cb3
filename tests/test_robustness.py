"""The same report, pasted the ways people paste it, gets the same answer: log lines with rank prefixes or
timestamps, ANSI colours, Windows line ends, tabs, a sentence before and after. Run over every bundled example."""
from __future__ import annotations

import pytest

from kb.traceback.context import Line, is_prose
from kb.traceback.lines import classify_line
from tests.test_examples import EXAMPLES, expectations

pytestmark = pytest.mark.slow


def _log_lines(text: str, change) -> str:
    """Apply `change(i, line)` to the lines a program printed (inside code blocks, or not the reporter's prose)."""
    out, fenced = [], False
    for i, line in enumerate(text.splitlines()):
        if line.strip().startswith("```"):
            fenced = not fenced
            out.append(line)
            continue
        probe = Line(i, line, line.strip(), None, False, False, False, classify_line(line.strip()), None)
        out.append(change(i, line) if line.strip() and (fenced or not is_prose(probe)) else line)
    return "\n".join(out)


PASTES = {
    "rank_prefix": lambda t: _log_lines(t, lambda i, line: f"[rank3]: {line}"),
    "timestamps": lambda t: _log_lines(t, lambda i, line: f"2024-05-01 12:00:{i % 60:02d},123 - {line}"),
    "ansi": lambda t: _log_lines(t, lambda i, line: f"\x1b[31m{line}\x1b[0m" if "Error" in line else line),
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "tabs": lambda t: t.replace("    ", "\t"),
    "sentences": lambda t: "Hi all, our job died with this:\n\n" + t + "\n\nAny idea what causes it? Thanks!",
}


# An answer this far from the decision's threshold is firm: pasting the report differently must not change it.
# Closer to the threshold, the small differences a paste makes to the signals may tip the verdict.
FIRM = 0.15


@pytest.mark.parametrize("paste", sorted(PASTES))
def test_examples_keep_their_answer_when_pasted_differently(starter_diagnoser, paste):
    threshold = starter_diagnoser.matcher.model.threshold
    changed, checked = [], 0
    for name, _ in expectations():
        text = (EXAMPLES / name).read_text(encoding="utf-8")
        before = starter_diagnoser.matcher.match(text)
        top = max((c.probability for c in before.ranked if c.features), default=0.0)
        if abs(top - threshold) < FIRM:
            continue
        checked += 1
        diag = starter_diagnoser.diagnose(PASTES[paste](text), name=name)
        # a firm no-match stays one; which unrelated entry is nearest then is not an answer
        got = (diag.verdict, diag.matches[0].entry_id if diag.matches else None)
        want = (before.verdict, before.ranked[0].doc_id if before.verdict == "match" else None)
        if got != want:
            changed.append(f"{name}: {want} became {got} ({diag.reason})")
    assert checked >= 12, "too few firm answers among the examples to check"
    assert not changed, "\n".join(changed)
