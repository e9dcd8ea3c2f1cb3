"""Text from reports and entries reaches the terminal as it was written: brackets are not rich markup, control
characters cannot drive the terminal, and nothing in it can crash a renderer."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import bot.render.terminal as render
from kb.models import Diagnosis, Evidence, FixOut, MatchOut, QueryOut

ROOT = Path(__file__).resolve().parents[1]

# (what the text is, how it must appear on the screen)
NASTY = [
    ("[/INST]", "[/INST]"),
    ("[rank0]: RuntimeError", "[rank0]: RuntimeError"),
    ("[red]not red[/red]", "[red]not red[/red]"),
    ("[bold]", "[bold]"),
    ("[/]", "[/]"),
    ("[link=http://x]click[/link]", "[link=http://x]click[/link]"),
    ("a trailing backslash \\", "a trailing backslash \\"),
    ("\\[escaped] already", "\\[escaped] already"),
    ("\x1b[31mRuntimeError\x1b[0m", "\\x1b[31mRuntimeError\\x1b[0m"),
    ("cursor home \x1b[H and clear \x1b[2J", "cursor home \\x1b[H and clear \\x1b[2J"),
    ("bell\x07 backspace\x08 cr\rdone", "bell\\x07 backspace\\x08 cr\\x0ddone"),
    ("emoji 🔥💥 and 中文 显存不足", "emoji 🔥💥 and 中文 显存不足"),
    ("rtl \u200fמודל\u200e mark and \u202eoverride\u202c", "rtl \u200fמודל\u200e mark and \u202eoverride\u202c"),
    (":warning: :smile:", ":warning: :smile:"),
]


@pytest.fixture
def screen(monkeypatch):
    """Capture what the renderers print: a wide, colourless console, so the text is not wrapped or styled."""
    buf = io.StringIO()
    plain = render.make_console(file=buf, width=4000, color_system=None)
    monkeypatch.setattr(render, "console", plain)
    monkeypatch.setattr(render, "err_console", plain)
    return buf


def _match(text: str) -> MatchOut:
    return MatchOut(entry_id=f"id {text}", title=f"title {text}", source=f"src {text}", score=0.9,
                    root_cause=f"cause {text}", fixes=[FixOut(text=f"fix {text}", verified=True, verified_by="maintainer"),
                                                       FixOut(text=f"fix2 {text}", verified=False)],
                    evidence_items=[Evidence(kind="note", note=f"report line: {text}")], reason=f"because {text}")


def _diagnosis(text: str, verdict: str) -> Diagnosis:
    m = _match(text)
    return Diagnosis(input=f"in {text}", verdict=verdict, confidence=0.8,
                     matches=[m, m] if verdict == "match" else [], related=[m] if verdict == "no_match" else [],
                     query=QueryOut(exception_type=f"Err{text}", message=f"msg {text}", signature="s",
                                    notes=[f"note {text}"]),
                     reason=f"reason {text}")


@pytest.mark.parametrize("text,want", NASTY, ids=[repr(t) for t, _ in NASTY])
def test_every_renderer_shows_report_and_entry_text_verbatim(screen, text, want):
    for verdict in ("match", "no_match"):
        render.print_diagnosis(_diagnosis(text, verdict),
                               SimpleNamespace(verdict="confirmed", reason=f"why {text}", duration_s=1.0,
                                               reproduced=f"repro {text}"))
    render.print_search_results([SimpleNamespace(score=0.5, source=f"src {text}", section=f"sec {text}",
                                                 text=f"chunk {text}")])
    render.print_ingest_report(SimpleNamespace(added=[], updated=[], unchanged=[], removed=[], documents=1, chunks=1,
                                               embedded=0, seconds=0.1, skipped=[(f"file {text}", f"why {text}")],
                                               notes=[f"note {text}"]), Path(f"kb {text}"))
    render.print_recipes([{"id": f"r {text}", "entry_id": f"e {text}", "kind": "cpu", "needs_gpu": False,
                           "world_size": 1, "last": {"reproduce": None, "fix": None}}])
    render.print_repro_results([SimpleNamespace(recipe_id=f"r {text}", entry_id=f"e {text}", mode="reproduce",
                                                status="reproduced", duration_s=1.0, environment={}, backend="local",
                                                reason=f"why {text}")])
    out = screen.getvalue()
    prefixes = ["in", "title", "id", "src", "cause", "fix", "fix2", "report line:", "because", "reason", "msg",
                "note", "why", "repro", "sec", "file", "r", "e"]
    if " ".join(text.split()) == text:      # a search snippet is the chunk's words on one line
        prefixes.append("chunk")
    if "//" not in text:                    # a Path makes // into /
        prefixes.append("kb")
    for prefix in prefixes:
        assert f"{prefix} {want}" in out, (prefix, want)
    assert f"Err{want}" in out
    assert "\x1b" not in out and "\x07" not in out and "\x08" not in out


def test_the_helper_leaves_ordinary_text_alone():
    for text in ("RuntimeError: CUDA out of memory", "torch.Size([0])", "a[0] = b[1]", "显存不足", "tab\tand\nline"):
        assert render.shown(text) == text


def test_renderers_do_not_crash_on_a_real_terminal(monkeypatch):
    buf = io.StringIO()
    monkeypatch.setattr(render, "console", render.make_console(file=buf, width=100, force_terminal=True,
                                                               color_system="truecolor"))
    for text, want in NASTY:
        render.print_diagnosis(_diagnosis(text, "match"))
    assert "[/INST]" in buf.getvalue() and "\\x1b[31m" in buf.getvalue()


# --- the commands, end to end on a real KB whose entry and report carry the brackets ---------------------------

ENTRY = """# Chat template tokens leak into the loss: [/INST] trained as text

[rank0]: ValueError: label id -100 found after [/INST] marker in every sample

## Root cause

The tokenizer was given the chat template as plain text, so `[/INST]` and `[rank0]` style markers became ordinary
tokens; the loss mask was computed on the wrong offsets.

## Fix

Apply the chat template with the tokenizer's own `apply_chat_template`, and recompute the mask after it.
"""


@pytest.mark.slow
def test_diagnose_and_search_show_brackets_from_report_and_entry(tmp_path, cache_dir):
    from ingest.build import ingest
    from kb.config import Settings

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "inst.md").write_text(ENTRY, encoding="utf-8")
    kb_dir = tmp_path / "kb"
    ingest([corpus], kb_dir, Settings(cache_dir=cache_dir))
    report = tmp_path / "report.txt"
    report.write_text("[rank0]: Traceback (most recent call last):\n[rank0]:   File \"train.py\", line 3\n"
                      "[rank0]: ValueError: label id -100 found after [/INST] marker \x1b[31m[red]x[/red]\x1b[0m\n",
                      encoding="utf-8")
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir), "COLUMNS": "300"}

    def cli(*args, script="triage"):
        code = ("import sys; from bot.cli import diagnose_main; sys.argv[0]='diagnose'; diagnose_main()"
                if script == "diagnose" else "from bot.cli import main; main()")
        return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)

    got = cli(str(report), "--kb", str(kb_dir), script="diagnose")
    assert got.returncode == 0, got.stderr
    assert "MarkupError" not in got.stderr
    assert "[/INST] marker" in got.stdout and "[red]x[/red]" in got.stdout
    assert "\x1b" not in got.stdout

    got = cli("search", "[/INST] marker", "--kb", str(kb_dir))
    assert got.returncode == 0, got.stderr
    assert "leak into the loss: [/INST] trained as text" in got.stdout

    got = cli(str(report), "--kb", str(kb_dir), "--json", script="diagnose")
    assert "[/INST]" in json.loads(got.stdout)["query"]["message"]
