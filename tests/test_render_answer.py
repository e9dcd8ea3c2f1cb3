"""The answer carries its evidence as structured items and everything any surface shows of an entry; the terminal,
GitHub and Slack renderers read those fields (never the JSON strings) and say the same things."""
from __future__ import annotations

import io
import json

import pytest

import bot.render.terminal as render
from bot.render.markdown import render_match, render_no_match
from bot.render.slack import diagnosis_blocks
from bot.slack.blocks import escape
from kb.models import Diagnosis, Evidence, FixOut, IssueOut, MatchOut, QueryOut

ITEMS = [
    Evidence(kind="line", report_line="RuntimeError: size mismatch `x`", entry_line="RuntimeError: size mismatch y"),
    Evidence(kind="type", note="same exception: RuntimeError"),
    Evidence(kind="fact", fact="mismatch.zero_side", note="the `[0]` is on the model side in both"),
    Evidence(kind="conflict", fact="oom.kind", note="which memory ran out: GPU memory in your line, host memory in "
                                                    "the entry's"),
    Evidence(kind="note", note="no error line; your report says: loss is nan"),
]
SAID = ["the `[0]` is on the model side in both", "same exception: RuntimeError",
        "which memory ran out: GPU memory in your line, host memory in the entry's",
        "no error line; your report says: loss is nan"]
VERSIONS = [f"pkg{i}==1.{i}" for i in range(7)]


def _match(**fields) -> MatchOut:
    values = dict(entry_id="e1", title="Title", source="e1.md", score=0.9, root_cause="The cause.",
                  fixes=[FixOut(text="Run the recipe's fix.", verified=True, verified_by="repro"),
                         FixOut(text="Do B.", verified=False)],
                  evidence_items=ITEMS, affected="torch>=2.6", fixed_in="torch 2.7", versions_seen=VERSIONS,
                  references=["acme/trainer#12", "https://example.invalid/post"], repro="recipe-1",
                  verified_on={"python": "3.11", "torch": "2.13.0", "cuda": None, "device": "NVIDIA H100"})
    return MatchOut(**{**values, **fields})


def _diag(match: MatchOut | None = None, verdict: str = "match") -> Diagnosis:
    m = match or _match()
    return Diagnosis(input="r", verdict=verdict, confidence=0.9, matches=[m] if verdict == "match" else [],
                     related=[m] if verdict != "match" else [], reason="why",
                     query=QueryOut(exception_type="RuntimeError", message="boom", signature="RuntimeError: boom"))


@pytest.fixture
def terminal(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(render, "console", render.make_console(file=buf, width=1000, color_system=None))

    def shown(diag: Diagnosis) -> str:
        render.print_diagnosis(diag)
        return buf.getvalue()
    return shown


def _slack(diag: Diagnosis) -> str:
    out = []
    for b in diagnosis_blocks(diag):
        if isinstance(b.get("text"), dict):
            out.append(b["text"]["text"])
        out.extend(e.get("text", "") for e in b.get("elements", []) if isinstance(e.get("text"), str))
    return "\n".join(out)


def test_the_json_strings_are_written_from_the_items_and_both_travel():
    m = _match()
    assert m.evidence == ["your line: RuntimeError: size mismatch `x`",
                          "the entry's line: RuntimeError: size mismatch y", "same exception: RuntimeError", "the `[0]` is on the model side in both",
                          "which memory ran out: GPU memory in your line, host memory in the entry's",
                          "no error line; your report says: loss is nan"]
    data = json.loads(m.model_dump_json())
    assert data["evidence"] == m.evidence and data["evidence_items"][0]["kind"] == "line"
    again = MatchOut.model_validate(data)
    assert again == m and again.evidence_items == ITEMS


def test_every_surface_renders_each_kind_of_evidence(terminal):
    diag = _diag()
    text = terminal(diag)
    assert "your line: RuntimeError: size mismatch `x`" in text
    assert "the entry's line: RuntimeError: size mismatch y" in text
    body = render_match(diag)
    # GitHub quotes the two lines as code (a backtick inside becomes a quote), the rest is prose.
    assert "- your line: `RuntimeError: size mismatch 'x'`" in body
    assert "- the entry's line: `RuntimeError: size mismatch y`" in body
    slack = _slack(diag)
    assert "```your line: RuntimeError: size mismatch `x`\n" in slack       # Slack's code block
    for said in SAID:
        assert said in text and said in slack, said
    for said in SAID[1:]:                      # GitHub shows the first six lines: the pair and four more
        assert said in body, said


def test_every_surface_shows_the_entrys_environment_without_the_kb(terminal):
    diag = _diag()
    body = render_match(diag)
    assert ("**Environment.** affected: torch>=2.6; fixed in: torch 2.7; versions seen: "
            + ", ".join(f"`{v}`" for v in VERSIONS[:5])
            + "; references: acme/trainer#12, https://example.invalid/post") in body
    text, slack = terminal(diag), _slack(diag)
    for part in ("affected", "torch>=2.6", "fixed in", "torch 2.7", "versions seen", *VERSIONS[:5], "references",
                 "acme/trainer#12"):
        assert part in text and escape(part) in slack, part
    for out in (body, text, slack):
        assert VERSIONS[5] not in out and VERSIONS[6] not in out      # at most five of each list


def test_every_surface_says_how_a_fix_was_verified_or_that_no_run_confirmed_it(terminal):
    diag = _diag()
    assert "✔ verified by repro recipe-1 on python 3.11, torch 2.13.0, device NVIDIA H100: Run" in terminal(diag)
    assert ("✅ **verified by repro** `recipe-1` on python 3.11, torch 2.13.0, device NVIDIA H100: Run"
            in render_match(diag))
    assert "*verified* (repro `recipe-1` on python 3.11, torch 2.13.0, device NVIDIA H100): Run" in _slack(diag)

    pending = _diag(_match(fixes=[FixOut(text="Run the recipe's fix.", verified=False, verified_by="repro")],
                           verified_on=None))
    said = "repro recipe{} (not yet confirmed by a run): Run the recipe's fix."
    assert said.format(" recipe-1") in terminal(pending)
    assert said.format(" `recipe-1`") in render_match(pending) and said.format(" `recipe-1`") in _slack(pending)


def test_an_issue_thread_is_named_alike_everywhere(terminal):
    issue = IssueOut(repo="acme/trainer", number=12, title="Crash", state="closed", url="https://github.com/acme/"
                     "trainer/issues/12", pull_request=50)
    diag = _diag(_match(issue=issue))
    assert "acme/trainer#12 (closed, fixed by #50)" in terminal(diag)
    assert "<https://github.com/acme/trainer/issues/12|acme/trainer#12 (closed, fixed by #50)>" in _slack(diag)
    assert "[acme/trainer#12](https://github.com/acme/trainer/issues/12) (closed, fixed by acme/trainer#50)" \
        in render_match(diag)
    related = _diag(_match(issue=issue, reason="not resolved"), verdict="no_match")
    for out in (terminal(related), _slack(related)):
        assert "acme/trainer#12 (closed, fixed by #50)" in out
    assert "- `e1` Title (not resolved)" in render_no_match(related)
