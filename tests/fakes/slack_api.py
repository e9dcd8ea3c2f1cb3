"""A fake Slack: the Web API methods the bot calls, file downloads and response_url endpoints, as a real HTTP server
on 127.0.0.1. It records every call, answers as Slack does (`{"ok": true, ...}` with HTTP 200, errors as
`{"ok": false, "error": ...}`), checks the bearer token, refuses blocks over Slack's limits as Slack does
(`invalid_blocks`), and fails on script (`fail`, `fail_response_url`). For Socket Mode, `apps.connections.open`
hands out a ws:// address on the same server, which speaks just enough WebSocket to push envelopes (`push`) and
collect the app's acks (`acks`).
"""
from __future__ import annotations

import base64
import hashlib
import json
import queue
import select
import struct
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

BOT_USER = "UBOT"
BOT_ID = "BBOT"
TEAM = "T0TEST"

# Slack's documented limits, and the total past which it answers msg_blocks_too_long (about 13k in practice).
LIMITS = {"blocks": 50, "header": 150, "section": 3000, "fields": 10, "field": 2000, "context_elements": 10,
          "context_text": 3000, "actions_elements": 25, "button_text": 75, "button_value": 2000, "id": 255,
          "blocks_total": 12000, "text": 40000}


def block_problems(blocks: list[dict]) -> list[str]:
    """What Slack would refuse in these blocks (empty when they are valid)."""
    problems = []
    if len(blocks) > LIMITS["blocks"]:
        problems.append(f"{len(blocks)} blocks (max {LIMITS['blocks']})")
    total = 0

    def text_of(obj: dict, limit: int, where: str) -> None:
        nonlocal total
        text = obj.get("text", "")
        total += len(text)
        if not text:
            problems.append(f"{where}: empty text")
        if len(text) > limit:
            problems.append(f"{where}: {len(text)} characters (max {limit})")

    for i, b in enumerate(blocks):
        kind = b.get("type")
        if len(b.get("block_id", "")) > LIMITS["id"]:
            problems.append(f"block {i}: block_id too long")
        if kind == "header":
            text_of(b["text"], LIMITS["header"], f"header {i}")
        elif kind == "section":
            if "text" in b:
                text_of(b["text"], LIMITS["section"], f"section {i}")
            for f in b.get("fields", []):
                text_of(f, LIMITS["field"], f"section {i} field")
            if len(b.get("fields", [])) > LIMITS["fields"]:
                problems.append(f"section {i}: too many fields")
        elif kind == "context":
            if not b.get("elements") or len(b["elements"]) > LIMITS["context_elements"]:
                problems.append(f"context {i}: {len(b.get('elements', []))} elements")
            for e in b.get("elements", []):
                text_of(e, LIMITS["context_text"], f"context {i} element")
        elif kind == "actions":
            if len(b.get("elements", [])) > LIMITS["actions_elements"]:
                problems.append(f"actions {i}: too many elements")
            for e in b.get("elements", []):
                text_of(e["text"], LIMITS["button_text"], f"button {e.get('action_id')}")
                if len(e.get("value", "")) > LIMITS["button_value"] or len(e.get("action_id", "")) > LIMITS["id"]:
                    problems.append(f"button {e.get('action_id')}: value or action_id too long")
        elif kind != "divider":
            problems.append(f"block {i}: unexpected type {kind!r}")
    if total > LIMITS["blocks_total"]:
        problems.append(f"msg_blocks_too_long: {total} characters in all")
    return problems


@dataclass
class Call:
    method: str          # Web API method ("chat.postMessage"), "download" or "response_url"
    path: str
    args: dict           # query, form or JSON arguments, merged
    auth: str


class FakeSlack:
    def __init__(self, bot_token: str = "xoxb-test", app_token: str = "xapp-test"):
        self.bot_token = bot_token
        self.app_token = app_token
        self._lock = threading.Condition()
        self.calls: list[Call] = []
        self.threads: dict[tuple[str, str], list[dict]] = {}
        self.files: dict[str, tuple[dict, bytes]] = {}
        self.messages: dict[tuple[str, str], dict] = {}     # (channel, ts) -> what was posted or updated
        self._failures: dict[str, list[str]] = {}
        self._response_failures: list[tuple[int, str]] = []
        self._envelopes: queue.Queue = queue.Queue()
        self.acks: list[dict] = []
        self._next_ts = 1_700_000_000
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.api_url = f"{self.url}/api/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeSlack:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- scripting -------------------------------------------------------------------------------------------
    def add_thread(self, channel: str, messages: list[dict]) -> str:
        """Messages of a thread (the first is its parent); returns the thread's ts."""
        with self._lock:
            for msg in messages:
                msg.setdefault("ts", self._ts())
                msg.setdefault("type", "message")
            thread_ts = messages[0]["ts"]
            for msg in messages[1:]:
                msg.setdefault("thread_ts", thread_ts)
            self.threads[(channel, thread_ts)] = messages
            return thread_ts

    def add_file(self, file_id: str, name: str, content: bytes, **info) -> dict:
        """A file that files.info describes and the download URL serves; returns the stub a message carries."""
        with self._lock:
            full = {"id": file_id, "name": name, "size": len(content), "mimetype": "text/plain", "filetype": "text",
                    "mode": "snippet", "url_private": f"{self.url}/files/{file_id}/{name}",
                    "url_private_download": f"{self.url}/files/{file_id}/download/{name}", **info}
            self.files[file_id] = (full, content)
            return {"id": file_id, "name": name, "mimetype": full["mimetype"]}

    def fail(self, method: str, error: str, times: int = 1) -> None:
        """The next `times` calls of `method` answer {"ok": false, "error": error}."""
        with self._lock:
            self._failures.setdefault(method, []).extend([error] * times)

    def fail_response_url(self, status: int, body: str, times: int = 1) -> None:
        with self._lock:
            self._response_failures.extend([(status, body)] * times)

    def push(self, envelope: dict) -> None:
        """Send a Socket Mode envelope to the connected app (queued until it connects)."""
        self._envelopes.put(envelope)

    def response_url(self, key: str) -> str:
        return f"{self.url}/response/{key}"

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.threads.clear()
            self.files.clear()
            self.messages.clear()
            self._failures.clear()
            self._response_failures.clear()
            self.acks.clear()

    # --- inspecting ------------------------------------------------------------------------------------------
    def calls_to(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 30.0) -> list[Call]:
        """The calls of `method` once there are `count` of them; raises TimeoutError otherwise."""
        with self._lock:
            if not self._lock.wait_for(lambda: sum(c.method == method for c in self.calls) >= count, timeout):
                seen = [c.method for c in self.calls]
                raise TimeoutError(f"{count} call(s) of {method} expected within {timeout}s; calls: {seen}")
            return [c for c in self.calls if c.method == method]

    # --- the server ------------------------------------------------------------------------------------------
    def _ts(self) -> str:
        self._next_ts += 1
        return f"{self._next_ts}.000100"

    def _api(self, method: str, args: dict) -> dict:
        if method in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
            refused = _refused(args)
            if refused:
                return refused
        if method == "apps.connections.open":
            return {"ok": True, "url": self.url.replace("http://", "ws://") + "/socket"}
        if method == "auth.test":
            return {"ok": True, "url": "https://test.slack.invalid/", "team": "Test", "user": "triage",
                    "team_id": TEAM, "user_id": BOT_USER, "bot_id": BOT_ID}
        if method == "conversations.replies":
            messages = self.threads.get((args.get("channel"), args.get("ts")))
            if messages is None:
                return {"ok": False, "error": "thread_not_found"}
            return {"ok": True, "messages": messages, "has_more": False}
        if method == "files.info":
            entry = self.files.get(args.get("file"))
            return {"ok": True, "file": entry[0]} if entry else {"ok": False, "error": "file_not_found"}
        if method == "chat.postMessage":
            ts = self._ts()
            self.messages[(args["channel"], ts)] = dict(args)
            return {"ok": True, "channel": args["channel"], "ts": ts, "message": {"text": args.get("text", "")}}
        if method == "chat.update":
            key = (args["channel"], args["ts"])
            self.messages[key] = {**self.messages.get(key, {}), **args}
            return {"ok": True, "channel": args["channel"], "ts": args["ts"]}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": self._ts()}
        return {"ok": False, "error": "unknown_method"}

    def _websocket(self, handler: BaseHTTPRequestHandler) -> None:
        """Hello, then envelopes out and acks in, until the app closes the connection or the server stops."""
        handler.close_connection = True
        key = handler.headers["Sec-WebSocket-Key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
        accept = base64.b64encode(hashlib.sha1(key.encode()).digest()).decode()
        handler.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                             f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        handler.wfile.flush()
        with self._lock:
            self.calls.append(Call("socket", "/socket", {}, ""))
            self._lock.notify_all()
        sock = handler.connection   # nothing is buffered in handler.rfile: the app waits for our 101 first
        _send_frame(sock, 0x1, json.dumps({"type": "hello", "num_connections": 1}).encode())
        while True:
            try:
                _send_frame(sock, 0x1, json.dumps(self._envelopes.get_nowait()).encode())
            except queue.Empty:
                pass
            except OSError:
                return
            if not select.select([sock], [], [], 0.05)[0]:
                continue
            try:
                opcode, data = _read_frame(sock)
            except (OSError, ValueError):
                return
            if opcode == 0x8:       # close
                return
            if opcode == 0x9:       # ping
                _send_frame(sock, 0xA, data)
            elif opcode == 0x1:
                with self._lock:
                    self.acks.append(json.loads(data))
                    self._lock.notify_all()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _args(self, split) -> dict:
                args = {k: v[0] for k, v in parse_qs(split.query).items()}
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                if raw and "json" in self.headers.get("Content-Type", ""):
                    args.update(json.loads(raw))
                elif raw:
                    args.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
                return args

            def _serve(self):
                split = urlsplit(self.path)
                if split.path == "/socket" and self.headers.get("Upgrade", "").lower() == "websocket":
                    return fake._websocket(self)
                auth = self.headers.get("Authorization", "")
                args = self._args(split)
                parts = split.path.strip("/").split("/")
                kind = {"api": "api", "files": "download", "response": "response_url"}.get(parts[0], "unknown")
                method = parts[1] if kind == "api" and len(parts) > 1 else kind
                with fake._lock:
                    fake.calls.append(Call(method, split.path, args, auth))
                    fake._lock.notify_all()
                    if kind == "download":
                        entry = fake.files.get(parts[1]) if len(parts) > 1 else None
                        if auth != f"Bearer {fake.bot_token}" or entry is None:
                            # Slack answers an unauthenticated download with its sign-in page.
                            return self._send(200, b"<!DOCTYPE html><html>sign in</html>", "text/html")
                        return self._send(200, entry[1], "application/octet-stream")
                    if kind == "response_url":
                        if fake._response_failures:
                            status, body = fake._response_failures.pop(0)
                            return self._send(status, body.encode(), "text/plain")
                        if _refused(args):
                            return self._send(400, b"invalid_blocks", "text/plain")
                        return self._send(200, b"ok", "text/plain")
                    if kind != "api":
                        return self._send(404, b"not found", "text/plain")
                    token = fake.app_token if method == "apps.connections.open" else fake.bot_token
                    if auth != f"Bearer {token}":
                        result = {"ok": False, "error": "invalid_auth"}
                    elif fake._failures.get(method):
                        result = {"ok": False, "error": fake._failures[method].pop(0)}
                    else:
                        result = fake._api(method, args)
                data = json.dumps(result).encode()
                self._send(200, data, "application/json; charset=utf-8")

            do_GET = do_POST = _serve

        return Handler


def _refused(args: dict) -> dict | None:
    blocks = args.get("blocks")
    if isinstance(blocks, str):  # form-encoded calls carry blocks as a JSON string
        blocks = json.loads(blocks)
    problems = block_problems(blocks) if blocks is not None else []
    if problems:
        return {"ok": False, "error": "invalid_blocks", "errors": problems}
    if len(args.get("text") or "") > LIMITS["text"]:
        return {"ok": False, "error": "msg_too_long"}
    return None


def _send_frame(sock, opcode: int, payload: bytes) -> None:
    """A server frame: final, unmasked."""
    n = len(payload)
    head = bytes([0x80 | opcode]) + (bytes([n]) if n < 126 else bytes([126]) + struct.pack("!H", n) if n < 65536
                                     else bytes([127]) + struct.pack("!Q", n))
    sock.sendall(head + payload)


def _recv(sock, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ValueError("connection closed")
        data += chunk
    return data


def _read_frame(sock) -> tuple[int, bytes]:
    """A client frame (always masked): (opcode, payload)."""
    head = _recv(sock, 2)
    n = head[1] & 0x7F
    if n == 126:
        n = struct.unpack("!H", _recv(sock, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", _recv(sock, 8))[0]
    mask = _recv(sock, 4) if head[1] & 0x80 else b"\0\0\0\0"
    data = _recv(sock, n)
    return head[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(data))
