"""One cap on a report's size, applied the same way by every surface: the CLI, the service, Slack and GitHub all keep
a huge report's head and tail with kb.report_input.cap_report, at Settings.max_report_bytes."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.testclient import TestClient

from bot.github.events import read_event
from bot.github.process import Processor
from bot.service.app import create_app
from bot.slack.report import ReportReader, text_report
from kb.config import Settings
from kb.report_input import cap_report, decode_report, read_report_bytes
from tests.service_support import issue_payload

CAP = 1000
HUGE = "RuntimeError: the first error\n" + "训练 step loss nan " * 400 + "\nValueError: the last error"


class Diagnosed(Exception):
    """Raised by the stand-in diagnoser once it has the text it was given."""


def _recorder(settings: Settings):
    got: list[str] = []

    def diagnose(text, *args, **kwargs):
        got.append(text)
        raise Diagnosed

    return SimpleNamespace(settings=settings, diagnose=diagnose, require_ready=lambda: None), got


def test_the_cut_keeps_head_and_tail_and_says_how_much_went():
    cut = cap_report(HUGE, CAP)
    assert len(cut.encode()) <= CAP < len(HUGE.encode())
    assert cap_report(cut, CAP) == cut                   # a cut report is not cut again
    assert cut.startswith("RuntimeError: the first error") and cut.endswith("ValueError: the last error")
    assert "bytes cut from the middle of this report]" in cut
    assert cap_report("short", CAP) == "short"


def test_a_file_and_its_text_are_cut_alike():
    # The CLI and the service's uploads decode bytes; whatever the encoding, the cut is the text's.
    assert read_report_bytes(HUGE.encode(), CAP).text == cap_report(HUGE, CAP)
    assert decode_report(HUGE.encode("utf-16"), CAP)[0] == cap_report(HUGE, CAP)


def test_slack_cuts_a_command_and_a_thread_alike():
    assert text_report(HUGE, CAP).text == cap_report(HUGE, CAP)
    thread = [{"text": HUGE[:3000]}, {"text": HUGE[3000:]}]
    joined = HUGE[:3000].strip() + "\n\n" + HUGE[3000:].strip()      # each message as Slack gives it
    assert ReportReader(client=None, max_bytes=CAP).read(thread).text == cap_report(joined, CAP)


def test_github_cuts_the_issue_before_diagnosing_it():
    state, got = _recorder(Settings(max_report_bytes=CAP))
    ev = read_event("issues", issue_payload(7, "NaN loss", HUGE))
    with pytest.raises(Diagnosed):
        Processor(state, client=None, deliveries=None, owner="test").report(ev)
    assert got == [cap_report(ev.report_text(), CAP)]


@pytest.mark.parametrize("how", ["json", "text", "file"])
def test_the_service_cuts_every_kind_of_body(how, tmp_path):
    settings = Settings(cache_dir=tmp_path, max_report_bytes=CAP)
    app = create_app(settings)            # not started: the stand-in state needs no KB
    app.state.triage, got = _recorder(settings)
    body = {"json": {"json": {"text": HUGE}}, "text": {"content": HUGE.encode(),
                                                      "headers": {"content-type": "text/plain"}},
            "file": {"files": {"file": ("r.log", HUGE.encode())}}}[how]
    TestClient(app, raise_server_exceptions=False).post("/v1/diagnose", **body)
    assert got == [cap_report(HUGE, CAP)]
