"""Two replicas of `triage serve` share one PostgreSQL database (TRIAGE_DATABASE_URL) and one GitHub: 50 signed
deliveries spread across both, some sent to both, and one replica killed (SIGKILL) while it holds a delivery. At
the end every delivery is done, every issue has exactly one comment of ours (never a second post), and the edits
are in place: none lost, none processed twice at once. Everything runs on 127.0.0.1."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from tests.fakes.github_api import FakeGitHub
from tests.service_support import REPORTS, ServeProcess, issue_payload, post_webhook, small_kb, wait_until

pytestmark = pytest.mark.slow

SECRET = "webhook-secret-for-replicas"
TOKEN = "token-for-replicas"
REPO = "acme/replicas"
ZERO3 = (REPORTS / "zero3_model_side.txt").read_text()
NCCL = ("NCCL crashes at start inside our training container\n\n```\n"
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, unhandled system error\n"
        "Error while creating shared memory segment /dev/shm/nccl-abc123 (size 9637888)\n```\n")
ISSUES = 42           # 42 issues opened, 8 of them edited afterwards: 50 deliveries
EDITED = range(1, 9)
HELD = 30             # the issue whose processing stalls, so that the replica holding it dies mid-delivery
LEASE_S = 2.0


def rows(url: str) -> dict[str, tuple]:
    with psycopg.connect(url) as conn:
        return {r[0]: r[1:] for r in conn.execute("SELECT id, status, owner, attempts, result FROM deliveries")}


def test_two_replicas_share_the_work_and_survive_one_being_killed(postgres, cache_dir, tmp_path):
    url = postgres.new_database()
    kb_dir = small_kb(cache_dir, tmp_path / "kb")      # read-only for both: their state is in PostgreSQL
    with FakeGitHub(token=TOKEN) as gh:
        env = {"TRIAGE_CACHE_DIR": str(cache_dir), "TRIAGE_GITHUB_WEBHOOK_SECRET": SECRET, "TRIAGE_GITHUB_TOKEN": TOKEN,
               "TRIAGE_GITHUB_API_URL": gh.url, "TRIAGE_GITHUB_RETRY_BACKOFF_S": "0.01",
               "TRIAGE_DATABASE_URL": url, "TRIAGE_DELIVERY_LEASE_S": str(LEASE_S)}
        replicas = {name: ServeProcess(kb_dir, {**env, "TRIAGE_REPLICA_ID": name}, tmp_path / f"{name}.log")
                    for name in ("a", "b")}
        release = gh.hold("GET", rf"/repos/{REPO}/issues/{HELD}/comments$")
        try:
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(ServeProcess.start, replicas.values()))

            def send(to: str, delivery_id: str, action: str, number: int) -> int:
                body = NCCL if (action == "edited") == (number % 2 == 1) else ZERO3
                resp = post_webhook(replicas[to].url, "issues", issue_payload(number, f"issue {number}", body,
                                                                              action=action, repo=REPO),
                                    SECRET, delivery=delivery_id)
                return resp.status_code

            # First half: opened issues to a and b in turn, every fifth also to the other one, four at a time.
            first = [(("a", "b")[n % 2], f"open-{n}", "opened", n) for n in range(1, 26)]
            first += [(("b", "a")[n % 2], f"open-{n}", "opened", n) for n in range(1, 26, 5)]
            with ThreadPoolExecutor(4) as pool:
                codes = list(pool.map(lambda job: send(*job), first))
            assert set(codes) <= {200, 202}, codes
            # Edits of issues opened above, to the replica that did not get the opening.
            for n in EDITED:
                assert send(("b", "a")[n % 2], f"edit-{n}", "edited", n) in (200, 202)
            # The held issue goes to both; whichever replica claims it stalls on its first API call, and is killed.
            for name in ("a", "b"):
                assert send(name, f"open-{HELD}", "opened", HELD) in (200, 202)
            assert gh.wait_for_call("GET", rf"/issues/{HELD}/comments$", timeout=30)
            holder = wait_until(lambda: rows(url).get(f"open-{HELD}", (None, ""))[1], 10)
            assert holder in replicas
            replicas[holder].kill()
            release.set()
            survivor = "b" if holder == "a" else "a"
            rest = [n for n in range(26, ISSUES + 1) if n != HELD]
            with ThreadPoolExecutor(4) as pool:
                codes = list(pool.map(lambda n: send(survivor, f"open-{n}", "opened", n), rest))
            assert set(codes) <= {200, 202}, codes

            state = wait_until(lambda: (r := rows(url)) and all(v[0] == "done" for v in r.values()) and r, 45,
                               interval=0.2)
            assert state, {k: v for k, v in rows(url).items() if v[0] != "done"}
        finally:
            release.set()
            for proc in replicas.values():
                proc.stop()

        assert len(state) == ISSUES + len(EDITED) == 50
        # Exactly one comment per issue, never posted twice, and each edit answered in place.
        for n in range(1, ISSUES + 1):
            [comment] = gh.bot_comments(REPO, n)
            expected = "nccl_shm" if (n in EDITED) == (n % 2 == 1) else "zero3_load"
            assert f"entry={expected}" in comment["body"], (n, comment["body"][:80])
        assert len(gh.calls_to("POST", rf"/repos/{REPO}/issues/\d+/comments$")) == ISSUES
        assert len(gh.calls_to("PATCH", r"/issues/comments/\d+$")) == len(EDITED)
        # Both replicas did work; the killed one's delivery was taken over by the survivor after its lease ran out.
        owners = {owner for _, owner, _, _ in state.values()}
        assert owners == {"a", "b"}
        assert state[f"open-{HELD}"][1:3] == (survivor, 2)
        assert f"resuming delivery open-{HELD} (left unfinished by {holder}" in replicas[survivor].log()
        assert not (kb_dir / "state.sqlite").exists()


def test_a_database_that_cannot_be_reached_is_said_in_one_line(cache_dir, tmp_path, caplog):
    import logging

    import httpx

    from bot.service.app import create_app
    from kb.config import Settings
    from tests.service_support import LiveServer, free_port

    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    url = f"postgresql://triage:hunter2@127.0.0.1:{free_port()}/triage"
    settings = Settings(cache_dir=cache_dir, kb=kb_dir, github_webhook_secret=SECRET, github_token=TOKEN,
                        database_url=url)
    caplog.set_level(logging.ERROR)
    with LiveServer(create_app(settings), wait_ready=False) as srv:
        health = wait_until(lambda: (r := httpx.get(f"{srv.url}/healthz", timeout=10)).json()["status"] == "failed"
                            and r, 30)
        assert health and health.status_code == 503
        error = health.json()["error"]
        assert error.startswith("the state database postgresql://triage:***@127.0.0.1:") and "cannot be reached" in error
        resp = post_webhook(srv.url, "issues", issue_payload(1, "t", ZERO3, repo=REPO), SECRET)
        assert resp.status_code == 503 and "deliveries table did not open" in resp.json()["error"]
    logged = [r.getMessage() for r in caplog.records]
    assert any("GitHub webhooks are unavailable" in m and "cannot be reached" in m for m in logged), logged
    assert all("hunter2" not in m and "\n" not in m for m in logged)
    assert not (kb_dir / "state.sqlite").exists()
