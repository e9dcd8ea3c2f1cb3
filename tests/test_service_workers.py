"""`triage serve` with diagnosis worker processes: diagnoses run in parallel with no lock in the service process,
the answers are the bytes the in-process service gives, and feedback recorded by the service counts in the
workers."""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from bot.service.app import create_app
from kb.config import Settings
from kb.index import tokenize
from tests.service_support import REPORTS, LiveServer, small_kb

pytestmark = pytest.mark.slow

REPORTS_USED = sorted(REPORTS.glob("*.txt"))[:4]


@pytest.fixture(scope="module")
def kb_dir(cache_dir, tmp_path_factory):
    return small_kb(cache_dir, tmp_path_factory.mktemp("workers") / "kb")


def _answers(url: str, texts: list[str], clients: int) -> list[str]:
    with httpx.Client(base_url=url, timeout=120) as c, ThreadPoolExecutor(clients) as pool:
        def one(text):
            r = c.post("/v1/diagnose", json={"text": text, "name": "r"})
            assert r.status_code == 200, r.text
            return r.text
        return list(pool.map(one, texts))


def test_worker_processes_answer_in_parallel_with_the_same_bytes_and_no_lock(cache_dir, kb_dir):
    texts = [p.read_text(encoding="utf-8") for p in REPORTS_USED] * 2
    with LiveServer(create_app(Settings(cache_dir=cache_dir, kb=kb_dir), workers=0)) as srv:
        expected = _answers(srv.url, texts, 1)
    app = create_app(Settings(cache_dir=cache_dir, kb=kb_dir), workers=2)
    with LiveServer(app) as srv:
        state = app.state.triage
        assert state.pool is not None and state.pool.workers == 2
        # The in-process lock is not on the path: held, it holds nothing up.
        with state._diagnose_lock:
            got = _answers(srv.url, texts, 8)
        assert got == expected
        pids = {state.pool.call(os.getpid) for _ in range(8)}
        assert os.getpid() not in pids and 1 <= len(pids) <= 2
        # Workers keep jieba's cache and word table where the service does (TRIAGE_CACHE_DIR), not in a default.
        assert state.pool.call(tokenize._jieba_dir) == str(cache_dir / "jieba")
    # The service stopped: its worker processes are gone, none left holding a KB and an encoder.
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_feedback_recorded_by_the_service_counts_in_the_workers(cache_dir, kb_dir):
    import json

    from kb.feedback import Feedback

    text = (REPORTS / "zero3_model_side.txt").read_text(encoding="utf-8")
    app = create_app(Settings(cache_dir=cache_dir, kb=kb_dir), workers=1)
    with LiveServer(app) as srv:
        first = json.loads(_answers(srv.url, [text], 1)[0])
        assert first["verdict"] == "match"
        top = first["matches"][0]
        app.state.triage.record_feedback(Feedback(source="test", user="u", entry_id=top["entry_id"],
                                                  signature=first["query"]["signature"], verdict="wrong"))
        again = json.loads(_answers(srv.url, [text], 1)[0])
        assert top["entry_id"] not in [m["entry_id"] for m in again["matches"]]
