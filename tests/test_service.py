"""`triage serve`'s JSON API over real HTTP: the app under uvicorn on 127.0.0.1 with a small real KB."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import httpx
import pytest

from bot.service.app import create_app
from kb.config import Settings
from tests.service_support import REPORTS, ROOT, LiveServer, small_kb

pytestmark = pytest.mark.slow

ZERO3 = (REPORTS / "zero3_model_side.txt").read_text()
ERROR_KEYS = {"ok", "status", "code", "error", "request_id"}


@pytest.fixture(scope="module")
def kb_dir(cache_dir, tmp_path_factory):
    return small_kb(cache_dir, tmp_path_factory.mktemp("service") / "kb")


@pytest.fixture(scope="module")
def settings(cache_dir, kb_dir):
    return Settings(cache_dir=cache_dir, kb=kb_dir, max_request_bytes=100_000)


@pytest.fixture(scope="module")
def service(settings):
    app = create_app(settings)

    @app.get("/test-boom")  # a route that fails unexpectedly, to see the 500 in the common shape
    def boom():
        raise RuntimeError("secret internals")

    with LiveServer(app) as srv:
        yield srv


@pytest.fixture(scope="module")
def client(service):
    with httpx.Client(base_url=service.url, timeout=30) as c:
        yield c


def assert_error(resp: httpx.Response, status: int, code: str) -> dict:
    body = resp.json()
    assert resp.status_code == status
    assert ERROR_KEYS <= set(body) and body["ok"] is False and body["status"] == status and body["code"] == code
    assert body["request_id"] == resp.headers["x-request-id"]
    assert isinstance(body["error"], str) and body["error"] and "\n" not in body["error"]
    return body


def test_healthz_reports_the_loaded_kb(client, kb_dir):
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.json() == {"ok": True, "status": "ready", "entries": 3, "kb": str(kb_dir)}


def test_diagnose_returns_what_diagnose_json_prints(client, settings, kb_dir):
    report = REPORTS / "zero3_model_side.txt"
    resp = client.post("/v1/diagnose", json={"text": ZERO3, "name": str(report)})
    assert resp.status_code == 200
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(settings.cache_dir), "TRIAGE_KB": str(kb_dir)}
    cli = subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", "--json", str(report)], cwd=ROOT, env=env,
                         capture_output=True, timeout=120)
    assert cli.returncode == 0, cli.stderr.decode()
    assert resp.content == cli.stdout                   # the same bytes, not only the same object
    expected = json.loads(cli.stdout)
    assert expected["verdict"] == "match" and expected["matches"][0]["entry_id"] == "zero3_load"
    assert expected["kb"] == {"path": str(kb_dir.resolve()), "documents": 3, "built_at": expected["kb"]["built_at"]}
    assert expected["kb"]["built_at"]
    assert resp.headers["content-type"].startswith("application/json")


def test_diagnose_takes_a_file_upload_or_plain_text(client):
    up = client.post("/v1/diagnose", files={"file": ("report.txt", ZERO3.encode("gb18030"), "text/plain")},
                     data={"top": "1"})
    assert up.status_code == 200
    assert up.json()["input"] == "report.txt" and up.json()["matches"][0]["entry_id"] == "zero3_load"
    plain = client.post("/v1/diagnose", content=ZERO3.encode(), headers={"content-type": "text/plain"})
    assert plain.json()["verdict"] == "match"
    binary = client.post("/v1/diagnose", files={"file": ("core", b"\x00\x01\x02" * 100, "application/octet-stream")})
    assert "binary" in assert_error(binary, 400, "bad_input")["error"]


def test_diagnose_answers_in_the_reports_language_or_the_one_asked_for(client):
    # ZERO3's reporter writes Chinese: the answer says so in `lang` (every other key as before)
    auto = client.post("/v1/diagnose", json={"text": ZERO3}).json()
    assert auto["lang"] == "zh" and auto["matches"][0]["entry_id"] == "zero3_load"
    asked = client.post("/v1/diagnose", json={"text": ZERO3, "lang": "en"}).json()
    assert asked["lang"] == "en" and asked["confidence"] == auto["confidence"]
    assert set(asked) == set(auto)
    # a one-language postmortem is shown as written, whatever the language
    assert asked["matches"][0]["title"] == auto["matches"][0]["title"]
    english = client.post("/v1/diagnose", json={"text": "The run dies at start in our container:\n"
                                                        + ZERO3.split("\n", 2)[2]}).json()
    assert english["lang"] == "en"
    up = client.post("/v1/diagnose", files={"file": ("r.txt", ZERO3.encode(), "text/plain")}, data={"lang": "en"})
    assert up.json()["lang"] == "en"
    bad = client.post("/v1/diagnose", json={"text": ZERO3, "lang": "fr"})
    assert bad.status_code == 422 and "lang" in bad.json()["error"]


def test_search_and_entries(client):
    hits = client.get("/v1/search", params={"q": "NCCL shared memory in a container", "top": 2}).json()
    assert len(hits) == 2 and hits[0]["doc_id"] == "nccl_shm"
    entries = client.get("/v1/entries").json()
    assert sorted(e["entry_id"] for e in entries) == ["lfs_pointer_zh", "nccl_shm", "zero3_load"]
    entry = client.get("/v1/entries/zero3_load").json()
    assert entry["doc_id"] == "zero3_load" and "GatheredParameters" in entry["fixes"][0]["text"]


def test_every_error_has_the_same_shape(client):
    assert "nope" in assert_error(client.get("/v1/entries/nope"), 404, "not_found")["error"]
    assert_error(client.get("/no/such/path"), 404, "not_found")
    assert_error(client.delete("/healthz"), 405, "method_not_allowed")
    body = assert_error(client.post("/v1/diagnose", json={"txt": "x"}), 422, "invalid_request")
    assert body["details"][0]["loc"] == ["body", "text"]
    assert_error(client.get("/v1/search", params={"q": "x", "top": 0}), 422, "invalid_request")
    assert_error(client.post("/v1/diagnose", content=b"x", headers={"content-type": "image/png"}), 415,
                 "unsupported_media_type")
    # uvicorn closes the connection after an unhandled error: ask on a connection of its own.
    boom = assert_error(httpx.get(client.base_url.join("/test-boom"), timeout=30), 500, "internal_error")
    assert "secret internals" not in boom["error"]


def test_large_bodies_are_refused_with_413(client):
    big = json.dumps({"text": "x" * 150_000})
    assert_error(client.post("/v1/diagnose", content=big, headers={"content-type": "application/json"}), 413,
                 "payload_too_large")

    def chunks():  # no Content-Length: the limit is enforced while reading
        for _ in range(20):
            yield b"y" * 10_000

    assert_error(client.post("/v1/diagnose", content=chunks(), headers={"content-type": "text/plain"}), 413,
                 "payload_too_large")


def test_request_ids_are_echoed_or_made(client):
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"] == "abc-123"
    made = client.get("/healthz", headers={"X-Request-ID": "bad id\twith spaces"}).headers["x-request-id"]
    assert made != "bad id\twith spaces" and len(made) == 32
    assert client.get("/v1/entries/nope", headers={"X-Request-ID": "r-404"}).json()["request_id"] == "r-404"


def test_openapi_docs_are_served(client):
    spec = client.get("/openapi.json").json()
    assert {"/v1/diagnose", "/v1/search", "/v1/entries", "/v1/entries/{entry_id}", "/healthz",
            "/github/webhook"} <= set(spec["paths"])
    body_types = spec["paths"]["/v1/diagnose"]["post"]["requestBody"]["content"]
    assert {"application/json", "multipart/form-data"} <= set(body_types)
    answer = spec["paths"]["/v1/diagnose"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert set(spec["components"]["schemas"][answer["$ref"].rsplit("/", 1)[1]]["properties"]) >= {"verdict", "kb"}
    assert client.get("/docs").status_code == 200


def test_not_ready_until_the_kb_loads(cache_dir, tmp_path):
    missing = tmp_path / "no-kb-here"
    missing.mkdir()
    with LiveServer(create_app(Settings(cache_dir=cache_dir, kb=missing)), wait_ready=False) as srv:
        health = httpx.get(f"{srv.url}/healthz", timeout=10)
        assert health.status_code == 503 and health.json()["status"] in ("loading", "failed")
        body = assert_error(httpx.post(f"{srv.url}/v1/diagnose", json={"text": ZERO3}, timeout=10), 503, "not_ready")
        assert "knowledge base" in body["error"]


def test_ready_only_once_the_surfaces_ready_hooks_ran(settings, kb_dir):
    # /healthz says ready from this flag; a webhook let in while a surface is still opening its stores got a 500.
    from bot.service.errors import NotReady
    from bot.service.state import ServiceState
    from kb.index.hybrid import KnowledgeBase

    state = ServiceState(settings=settings)
    entered, release = threading.Event(), threading.Event()
    state.ready_hooks.append(lambda s: (entered.set(), release.wait(30)))
    loading = threading.Thread(target=state.load, args=(KnowledgeBase.open(kb_dir, settings),))
    loading.start()
    try:
        assert entered.wait(60)
        assert not state.ready
        with pytest.raises(NotReady):
            state.require_ready()
    finally:
        release.set()
        loading.join(60)
    assert state.ready and state.load_error is None


@pytest.mark.parametrize("body,says", [
    (b"[" * 30_000 + b"]" * 30_000, "nested too deeply"),
    (b'{"a":' * 15_000 + b'"x"' + b"}" * 15_000, "nested too deeply"),
    (b'{"text": "RuntimeError: boom \\ud800 here"}', "lone surrogate"),
    (json.dumps({"text": ZERO3}).encode("utf-16"), "UTF-16"),
    (json.dumps({"text": ZERO3}).encode("utf-16-le"), "UTF-16"),
    (b"\xef\xbb\xbf" + json.dumps({"text": ZERO3}).encode(), "byte-order mark"),
    (b'{"text": "caf\xe9"}', "not UTF-8"),
])
def test_malformed_json_gets_a_clear_400_never_a_500(client, body, says):
    resp = client.post("/v1/diagnose", content=body, headers={"content-type": "application/json"})
    assert says in assert_error(resp, 400, "bad_request")["error"]


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(service):
    import socket
    import time
    from urllib.parse import urlsplit

    url = urlsplit(service.url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(b"POST /v1/diagnose HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000000000\r\n\r\n{\"text\": ")
        started = time.monotonic()
        sock.settimeout(3)
        data = b""
        while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        elapsed = time.monotonic() - started
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413") and elapsed < 2.0
    assert json.loads(body)["code"] == "payload_too_large"


def test_the_openapi_document_lists_the_errors_the_api_gives(client):
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]

    def statuses(path, method):
        return set(paths[path][method]["responses"])

    assert {"400", "413", "415", "422", "503"} <= statuses("/v1/diagnose", "post")
    assert {"404"} <= statuses("/v1/entries/{entry_id}", "get")
    assert {"400", "401", "413", "503"} <= statuses("/github/webhook", "post")
    ref = paths["/v1/diagnose"]["post"]["responses"]["400"]["content"]["application/json"]["schema"]["$ref"]
    shape = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert {"ok", "status", "code", "error", "request_id"} <= set(shape["properties"])
