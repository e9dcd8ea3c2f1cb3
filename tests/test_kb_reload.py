"""The service sees a new generation of its KB folder without a restart (TRIAGE_KB_RELOAD_S): the app under uvicorn
on 127.0.0.1 with a small real KB, a real `ingest` into the same folder while it runs, real HTTP requests."""
from __future__ import annotations

import threading
import time

import httpx
import pytest

from bot.service.app import create_app
from ingest.build import ingest
from kb.config import Settings
from kb.index import store
from tests.service_support import REPORTS, LiveServer, small_kb, wait_until

pytestmark = pytest.mark.slow

PAD_TRACE = (REPORTS / "pad_token_collate.txt").read_text(encoding="utf-8")
PAD_ENTRY = f"""\
# SFT collate fails: the tokenizer has no padding token

## Symptoms
```
{PAD_TRACE}```

## Root cause
Llama-style tokenizers ship without a pad token; batching with `padding=True` needs one.

## Fix
Set `tokenizer.pad_token = tokenizer.eos_token` (and `model.config.pad_token_id`) before building batches.
"""

PAD_REPORT = """\
Traceback (most recent call last):
  File "/home/u/train_sft.py", line 77, in collate_fn
    enc = tok(batch_texts, padding=True, return_tensors="pt")
ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via `tokenizer.add_special_tokens({'pad_token': '[PAD]'})`.
"""


def _answer(client: httpx.Client) -> dict:
    resp = client.post("/v1/diagnose", json={"text": PAD_REPORT, "name": "pad.txt"})
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_a_new_generation_is_answered_from_without_a_restart(cache_dir, tmp_path):
    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    settings = Settings(cache_dir=cache_dir, kb=kb_dir, kb_reload_s=0.2)
    first_gen = store.current_generation(kb_dir).name
    with LiveServer(create_app(settings)) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        state = server.app.state.triage
        before = _answer(client)
        assert before["verdict"] == "no_match" and before["kb"]["documents"] == 3
        assert all(m["entry_id"] != "pad_token_missing" for m in before["matches"] + before["related"])

        # Requests keep coming while a later ingest writes a new generation into the same folder.
        failures: list[str] = []
        stop = threading.Event()

        def keep_asking() -> None:
            with httpx.Client(base_url=server.url, timeout=60) as c:
                while not stop.is_set():
                    resp = c.post("/v1/diagnose", json={"text": PAD_REPORT})
                    if resp.status_code != 200:
                        failures.append(f"{resp.status_code} {resp.text[:200]}")

        asker = threading.Thread(target=keep_asking)
        asker.start()
        try:
            new = tmp_path / "more"
            new.mkdir()
            time.sleep(1.1)      # built_at has one-second resolution: the new generation is built in a later second
            (new / "pad_token_missing.md").write_text(PAD_ENTRY, encoding="utf-8")
            built = ingest([new], kb_dir, Settings(cache_dir=cache_dir))
            assert built.added and store.current_generation(kb_dir).name != first_gen
            assert wait_until(lambda: state.reloads >= 1, 60), "the service never switched to the new generation"
            after = _answer(client)
        finally:
            stop.set()
            asker.join(60)
        assert not failures, failures[:3]
        assert after["kb"]["documents"] == 4 and after["kb"]["built_at"] != before["kb"]["built_at"]
        assert after["verdict"] == "match", after["reason"]
        assert after["matches"][0]["entry_id"] == "pad_token_missing"
        assert "eos_token" in after["matches"][0]["fixes"][0]["text"]
        health = client.get("/healthz").json()
        assert health["entries"] == 4
        # Nothing changed since: it stays on that generation (no reload per look).
        time.sleep(1.0)
        assert state.reloads == 1


def test_a_generation_that_does_not_load_leaves_the_old_one_answering(cache_dir, tmp_path, caplog):
    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    settings = Settings(cache_dir=cache_dir, kb=kb_dir, kb_reload_s=0.2)
    with LiveServer(create_app(settings)) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        state = server.app.state.triage
        # CURRENT names a generation that is not there (a half-copied folder, a broken deploy).
        broken = kb_dir / "gen-20990101000000-deadbeef"
        broken.mkdir()
        (kb_dir / "CURRENT").write_text(broken.name + "\n")
        assert wait_until(lambda: state._failed_generation == broken.name, 30)
        resp = client.post("/v1/diagnose", json={"text": PAD_REPORT})
        assert resp.status_code == 200 and resp.json()["kb"]["documents"] == 3
        assert state.reloads == 0
        assert any("did not load" in r.getMessage() for r in caplog.records)
        # CURRENT names a folder that is not there at all: said once (not at every look), the old KB answers on.
        broken.rmdir()
        time.sleep(1.5)
        said = [r for r in caplog.records if "looking for a new generation" in r.getMessage()]
        assert len(said) == 1 and "points to a missing generation" in said[0].getMessage()
        resp = client.post("/v1/diagnose", json={"text": PAD_REPORT})
        assert resp.status_code == 200 and resp.json()["kb"]["documents"] == 3


def test_zero_turns_it_off(cache_dir, tmp_path):
    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    with LiveServer(create_app(Settings(cache_dir=cache_dir, kb=kb_dir, kb_reload_s=0))) as server:
        assert server.app.state.triage._reloader is None


def test_a_reopened_generation_shares_the_query_encoder_only_when_it_was_embedded_the_same_way(cache_dir, tmp_path):
    from kb.index.hybrid import KnowledgeBase

    kb_dir = small_kb(cache_dir, tmp_path / "kb")
    old = KnowledgeBase.open(kb_dir, Settings(cache_dir=cache_dir))
    loaded = object()                      # stands for a query encoder already loaded
    old._embedder = loaded
    same = old.reopen()
    assert same._embedder is loaded
    old.manifest = {**old.manifest, "encoder": "some-other-encoder"}      # as if embedded by another encoder
    other = old.reopen()
    assert other._embedder is None         # it loads the encoder that embedded it
    for kb in (old, same, other):
        kb.close()
