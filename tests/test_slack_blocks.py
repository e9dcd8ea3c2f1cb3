"""Block Kit rendering within Slack's limits, feedback button values, and reading reports out of Slack markup."""
from __future__ import annotations

import json

from bot.render import slack as answer
from bot.slack import blocks
from bot.slack.report import plain_text, text_report
from kb.models import Diagnosis, Evidence, FixOut, MatchOut, QueryOut
from kb.traceback.signature import SIGNATURE_VERSION, signature_ref
from tests.fakes.slack_api import LIMITS, block_problems

HUGE = 20_000


def _entry(entry_id: str, size: int, **kw) -> MatchOut:
    return MatchOut(
        entry_id=entry_id, title="T" * size, source="https://example.invalid/" + "p" * size, score=0.91,
        root_cause="<root> & cause " * (size // 15),
        fixes=[FixOut(text=f"fix {i} " + "x" * size, verified=i % 2 == 0, verified_by="repro" if i % 2 == 0 else "none")
               for i in range(60)],
        evidence_items=[Evidence(kind="note", note=f"report line: {'```' + 'e' * size}")] * 60, **kw,
    )


def _query(size: int) -> QueryOut:
    return QueryOut(exception_type="RuntimeError", message="m" * size, signature="RuntimeError: " + "s" * size)


def test_a_20k_character_report_renders_valid_blocks_for_a_match():
    diag = Diagnosis(input="slack", verdict="match", confidence=0.93,
                     matches=[_entry(f"e{i}", HUGE) for i in range(8)], query=_query(HUGE), reason="r" * HUGE)
    out = answer.diagnosis_blocks(diag)
    assert block_problems(out) == []
    kinds = [b["type"] for b in out]
    assert kinds[0] == "header" and kinds[-1] == "actions"
    # Cut, not dropped: every part is there, and the code block's fences survived the cut.
    text = json.dumps(out)
    for part in ("Root cause", "Fixes", "Evidence", "Also possible", ":white_check_mark: *verified* (repro)"):
        assert part in text
    evidence = next(b["text"]["text"] for b in out if b.get("text", {}).get("text", "").startswith("*Evidence*"))
    assert evidence.endswith("```") and evidence.count("```") == 2 and "signals:" not in evidence
    assert "&lt;root&gt; &amp; cause" in text and "<root>" not in text
    assert len(answer.fallback_text(diag)) <= answer.FALLBACK_MAX


def test_a_no_match_names_the_nearest_entries_and_why_within_limits():
    related = [_entry(f"near{i}", HUGE, reason="zero_side differs: " + "z" * HUGE) for i in range(3)]
    diag = Diagnosis(input="slack", verdict="no_match", confidence=0.2, matches=[], related=related,
                     query=_query(HUGE), reason="no entry explains " + "q" * HUGE)
    out = answer.diagnosis_blocks(diag)
    assert block_problems(out) == []
    assert out[0]["text"]["text"] == "No known postmortem fits this report"
    nearest = next(b["text"]["text"] for b in out if "Nearest entries" in b.get("text", {}).get("text", ""))
    assert "`near0`" in nearest and "zero_side differs" in nearest
    assert not any(b["type"] == "actions" for b in out)


def test_cut_never_leaves_half_an_entity_and_fit_keeps_the_buttons():
    assert blocks.cut(blocks.escape("a" * 9 + "<b"), 12) == "a" * 9 + "…"
    many = [blocks.section(f"s{i}") for i in range(80)] + [blocks.feedback_actions("e", "sig")]
    fitted = blocks.fit(many)
    assert len(fitted) == LIMITS["blocks"] and fitted[-1]["type"] == "actions" and block_problems(fitted) == []


def test_feedback_value_round_trips_and_a_huge_signature_keeps_its_full_ref():
    assert blocks.parse_feedback_value(blocks.feedback_value("zero3_load", 'RuntimeError: "x"')) == \
        ("zero3_load", 'RuntimeError: "x"', signature_ref('RuntimeError: "x"'), SIGNATURE_VERSION)
    long_sig = 'KeyError: "\\' * 1000
    value = blocks.feedback_value("zero3_load", long_sig)
    entry, sig, ref, version = blocks.parse_feedback_value(value)
    assert len(value) <= LIMITS["button_value"] and entry == "zero3_load" and long_sig.startswith(sig) and sig
    assert sig != long_sig and ref == signature_ref(long_sig), "the text is cut to fit, the ref names the whole key"
    assert version == SIGNATURE_VERSION, "the rules version rides whole, never cut"
    # a button sent before refs carried only the text (and before versions, no version)
    old = json.dumps({"entry": "zero3_load", "signature": 'RuntimeError: "x"'})
    assert blocks.parse_feedback_value(old)[2:] == (signature_ref('RuntimeError: "x"'), "")


def test_feedback_status_lists_each_voter_once_under_the_buttons():
    answer = [blocks.header("Known issue: x"), blocks.feedback_actions("e", "sig"), blocks.context("Report: `x`")]
    once = blocks.with_feedback(answer, "UALICE", "fixed")
    twice = blocks.with_feedback(once, "UBOB", "wrong")
    changed = blocks.with_feedback(twice, "UALICE", "wrong")
    status = [b for b in changed if b.get("block_id") == blocks.FEEDBACK_STATUS_ID]
    assert len(status) == 1 and changed.index(status[0]) == 2
    assert [e["text"] for e in status[0]["elements"]] == ["<@UBOB>: :x: Not it", "<@UALICE>: :x: Not it"]
    assert block_problems(changed) == []


def test_slack_markup_is_undone_before_matching():
    raw = ("<@U123> see this:\n```Traceback (most recent call last):\n  x = a &lt;= b &amp;&amp; c\n"
           "RuntimeError: bad -&gt; <https://example.invalid/a|the docs> in <#C1|ml-infra>```")
    text = plain_text(raw)
    assert "<@U123>" not in text and "```" not in text
    assert "x = a <= b && c" in text and "RuntimeError: bad -> the docs in #ml-infra" in text
    big = text_report("RuntimeError: boom\n" + "y" * 5000, max_bytes=1000)
    assert len(big.text.encode()) < 1200 and "bytes cut" in big.text
