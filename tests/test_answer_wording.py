"""What a person reads in an answer, in the terminal, on GitHub and in Slack: one number (the confidence)."""
from __future__ import annotations

import io
import re

import pytest

import bot.render.terminal as render
from bot.render.markdown import render_match, render_no_match
from bot.render.slack import diagnosis_blocks
from kb.models import Diagnosis, Evidence, FixOut, MatchOut, QueryOut

NUMBER = re.compile(r"\d+(?:\.\d+)?%|\d\.\d+")


def _entry(entry_id: str, score: float, **kw) -> MatchOut:
    fields = dict(entry_id=entry_id, title=f"Title of {entry_id}", source=f"{entry_id}.md", score=score,
                  root_cause="The cause.", fixes=[FixOut(text="Do A.", verified=False),
                                                  FixOut(text="Do B.", verified=True, verified_by="maintainer")],
                  evidence_items=[Evidence(kind="line", report_line="RuntimeError: boom",
                                           entry_line="RuntimeError: boom"),
                                  Evidence(kind="type", note="same exception: RuntimeError")],
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
    monkeypatch.setattr(render, "console", render.make_console(file=buf, width=1000, color_system=None))
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
    assert "None" not in screen.getvalue()          # an entry without a recorded reason shows none


@pytest.mark.parametrize("verdict", ["match", "no_match"])
def test_slack_shows_one_number_the_confidence(verdict):
    text = _slack_text(diagnosis_blocks(_diag(verdict)))
    assert set(NUMBER.findall(text)) <= {"0.87"}, text
    if verdict == "match":
        assert NUMBER.findall(text) == ["0.87"], text


@pytest.mark.parametrize("verdict", ["match", "no_match"])
def test_github_shows_one_number_the_confidence(verdict):
    diag = _diag(verdict)
    body = render_match(diag) if verdict == "match" else render_no_match(diag)
    body = body.split("\n", 1)[1]           # the hidden marker carries no number anyone reads
    assert set(NUMBER.findall(body)) <= {"87%"}, body


# --- evidence in plain words ------------------------------------------------------------------------------------

from bot.slack import blocks as slack_blocks          # noqa: E402
from kb import evidence                                # noqa: E402
from kb.traceback.signature import signature_of_line as signature_of, similarity  # noqa: E402


def _said(why: str) -> str | None:
    item = evidence.why_item(why)
    return item.note if item is not None else None


def test_the_matchers_reasons_read_as_plain_words():
    said = {
        "type unknown or generic on one side (None / None)": None,
        "score 1.000": None,
        "template overlap 0.50 (jaccard 0.40, containment 0.70; shared: a, b)": None,
        "same type RuntimeError": "same exception: RuntimeError",
        "fact mismatch.zero_side agrees: current_model": "the `[0]` is on the model side in both",
        "fact mismatch.param_role not compared: both sides are 0-sized placeholders, so every parameter fails alike":
            "which parameter fails to load does not matter here: both sides are 0-sized placeholders, so every "
            "parameter fails alike",
        "fact oom.kind CONFLICTS (hard): cuda vs host_killed → ×0.25":
            "which memory ran out: GPU memory in your line, host memory (the process was killed) in the entry's",
    }
    for why, want in said.items():
        assert _said(why) == want, why


def test_every_reason_the_similarity_gives_reads_without_internal_terms():
    pairs = [("RuntimeError: Error(s) in loading state_dict for M:\n\tsize mismatch for model.embed_tokens.weight: "
              "copying a param with shape torch.Size([0]) from checkpoint, the shape in current model is "
              "torch.Size([32000, 4096]).",
              "size mismatch for lm_head.weight: copying a param with shape torch.Size([32000, 4096]) from "
              "checkpoint, the shape in current model is torch.Size([0])."),
             ("_pickle.UnpicklingError: invalid load key, '<'.", "_pickle.UnpicklingError: invalid load key, 'v'."),
             ("torch.cuda.OutOfMemoryError: CUDA out of memory.", "ValueError: x")]
    for a, b in pairs:
        _, why = similarity(signature_of(a), signature_of(b))
        for line in filter(None, map(_said, why)):
            assert not any(t in line for t in ("None", "fact ", "mismatch.", "CONFLICTS", "×", "score")), line


def test_a_reason_names_the_entry_and_carries_no_second_number():
    title = "ZeRO-3 leaves embeddings empty"
    assert (evidence.plain_reason("the report's error is not one this entry describes", title)
            == f"your error is not one that “{title}” describes")
    got = evidence.plain_reason("not likely enough to be the cause (probability 0.42; an answer needs 0.50)", title)
    assert got == f"“{title}” is not likely enough to be the cause"
    assert _said("fact mismatch.delta agrees: >1024") == "by how many rows the shapes differ: more than 1024 rows in both"
    got = evidence.plain_reason("same kind of error, but a detail that tells the causes apart differs "
                                "(mismatch.zero_side: report has checkpoint, entry has current_model)", title)
    assert got.endswith("(which side has the empty `[0]` shape: the checkpoint side in your line, the model side "
                        "in the entry's)")


LONG = "RuntimeError: " + " ".join(["checkpoint"] * 60)


def _whole_words_then_ellipsis(text: str) -> None:
    assert text.endswith("…"), text
    assert text[:-1].split()[-1] in ("checkpoint", "RuntimeError:"), text


def test_clip_cuts_at_a_word_boundary():
    for limit in range(40, 200, 7):
        got = evidence.clip(LONG, limit)
        assert len(got) <= limit
        _whole_words_then_ellipsis(got)
    assert evidence.clip("short", 10) == "short"
    assert evidence.clip("/" + "x" * 100, 20) == "/" + "x" * 18 + "…"     # one long word: cut where it must


def test_the_report_line_is_cut_at_a_word_boundary_in_the_terminal_and_slack(screen):
    diag = _diag("no_match").model_copy(update={"query": QueryOut(exception_type="RuntimeError",
                                                                  message=LONG[14:], signature="s")})
    render.print_diagnosis(diag)
    line = next(x for x in screen.getvalue().splitlines() if "your report:" in x)
    _whole_words_then_ellipsis(line.split("your report: ", 1)[1].rstrip())
    said = next(e["text"] for b in diagnosis_blocks(diag) for e in b.get("elements", [])
                if isinstance(e.get("text"), str) and e["text"].startswith("Report:"))
    _whole_words_then_ellipsis(said.removeprefix("Report: `").removesuffix("`"))
    assert len(slack_blocks.cut(LONG, 50)) <= 50


# --- the same headed parts, in the same order, everywhere --------------------------------------------------------

def _in_order(text: str, parts: list[str]) -> None:
    at = [text.find(p) for p in parts]
    assert -1 not in at and at == sorted(at), (parts, at, text)


def test_the_terminal_heads_root_cause_fixes_evidence_with_verified_fixes_first(screen):
    render.print_diagnosis(_diag("match"))
    out = screen.getvalue()
    lines = [line.strip() for line in out.splitlines()]
    for heading in ("Root cause", "Fixes", "Evidence"):
        assert heading in lines, out                      # a heading is a line of its own
    _in_order(out, ["Root cause", "The cause.", "Fixes", "✔ verified by the maintainer: Do B.", "- Do A.",
                    "Evidence", "your line: RuntimeError: boom"])


def test_github_and_slack_put_the_parts_in_the_same_order():
    body = render_match(_diag("match"))
    _in_order(body, ["**Root cause**", "The cause.", "**Fixes**", "✅ verified by the maintainer: Do B.", "- Do A.",
                     "Evidence", "your line: `RuntimeError: boom`"])
    text = _slack_text(diagnosis_blocks(_diag("match")))
    _in_order(text, ["*Root cause*", "The cause.", "*Fixes*", ":white_check_mark: *verified* (maintainer): Do B.",
                     "• Do A.", "*Evidence*", "your line: RuntimeError: boom"])
