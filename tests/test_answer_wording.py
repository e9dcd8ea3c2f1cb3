"""What a person reads in an answer, in the terminal, on GitHub and in Slack: one number (the confidence)."""
from __future__ import annotations

import io
import re

import pytest

import bot.render as render
from bot.github.comment import render_match, render_no_match
from bot.slack.blocks import diagnosis_blocks
from kb.models import Diagnosis, FixOut, MatchOut, QueryOut

NUMBER = re.compile(r"\d+(?:\.\d+)?%|\d\.\d+")


def _entry(entry_id: str, score: float, **kw) -> MatchOut:
    fields = dict(entry_id=entry_id, title=f"Title of {entry_id}", source=f"{entry_id}.md", score=score,
                  root_cause="The cause.", fixes=[FixOut(text="Do A.", verified=False),
                                                  FixOut(text="Do B.", verified=True, verified_by="maintainer")],
                  evidence=["your line: RuntimeError: boom", "the entry's line: RuntimeError: boom",
                            "same exception: RuntimeError"],
                  signals={"signature": 0.97, "bm25": 0.41})
    return MatchOut(**{**fields, **kw})


def _diag(verdict: str) -> Diagnosis:
    entries = [_entry("first", 0.91), _entry("second", 0.55, reason="not the cause")]
    return Diagnosis(input="report", verdict=verdict, confidence=0.87,
                     matches=entries if verdict == "match" else [], related=entries if verdict != "match" else [],
                     query=QueryOut(exception_type="RuntimeError", message="boom", signature="s"),
                     reason="why")


@pytest.fixture
def screen(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(render, "console", render.make_console(file=buf, width=200, color_system=None))
    return buf


def _slack_text(blocks: list[dict]) -> str:
    out = []
    for b in blocks:
        if "text" in b and isinstance(b["text"], dict):
            out.append(b["text"]["text"])
        out.extend(e.get("text", "") for e in b.get("elements", []) if isinstance(e.get("text"), str))
    return "\n".join(out)


@pytest.mark.parametrize("verdict", ["match", "no_match"])
def test_the_terminal_shows_one_number_the_confidence(screen, verdict):
    render.print_diagnosis(_diag(verdict))
    assert NUMBER.findall(screen.getvalue()) == ["0.87"], screen.getvalue()


@pytest.mark.parametrize("verdict", ["match", "no_match"])
def test_slack_shows_one_number_the_confidence(verdict):
    text = _slack_text(diagnosis_blocks(_diag(verdict)))
    assert set(NUMBER.findall(text)) <= {"0.87"}, text
    if verdict == "match":
        assert NUMBER.findall(text) == ["0.87"], text


@pytest.mark.parametrize("verdict", ["match", "no_match"])
def test_github_shows_one_number_the_confidence(verdict):
    diag = _diag(verdict)
    body = render_match(diag, {}) if verdict == "match" else render_no_match(diag)
    body = body.split("\n", 1)[1]           # the hidden marker carries no number anyone reads
    assert set(NUMBER.findall(body)) <= {"87%"}, body
