"""ASGI middleware: a request id on every request and response, and a cap on request body size (413).

Pure ASGI (no BaseHTTPMiddleware) so the request id set here is visible to handlers, background submits and
log lines of the same request.
"""
from __future__ import annotations

import asyncio
import json

from bot.service.logs import accept_request_id, request_id_var

_BODY_METHODS = {"POST", "PUT", "PATCH"}
# A refused body is still read (and dropped) up to this much: closing on unread data makes the client's TCP stack
# reset the connection, and it would see "connection reset" instead of our 413.
_DRAIN_LIMIT = 16 * 1024 * 1024
_DRAIN_IDLE_S = 2.0   # ... and only while it keeps sending


class RequestContextMiddleware:
    """Reads X-Request-ID (or makes one), sets it for logs, and echoes it on the response."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        rid = accept_request_id(headers.get(b"x-request-id", b"").decode("latin-1") or None)
        token = request_id_var.set(rid)

        async def send_with_id(message):
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                if b"x-request-id" not in names:
                    message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id_var.reset(token)


class BodyLimitMiddleware:
    """Refuses bodies over `max_bytes` with 413 before any route sees them.

    A declared Content-Length over the limit is answered at once, before any of the body is read; a body without
    one (chunked) is read up to the limit, then handed on whole: routes (webhook signatures in particular) need the
    complete raw body anyway.
    """

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            return await self._refuse(receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await self._refuse(receive, send, more=message.get("more_body", False))
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, receive, send, more: bool = True):
        """Answer 413 at once (status and the whole error body go out before anything more is read), then read and
        drop what the client still sends, so that closing does not reset the connection under the answer."""
        rid = request_id_var.get()
        body = json.dumps({"ok": False, "status": 413, "code": "payload_too_large",
                           "error": f"Request body is larger than {self.max_bytes} bytes (TRIAGE_MAX_REQUEST_BYTES).",
                           "request_id": rid}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close"), (b"x-request-id", rid.encode())]})
        await send({"type": "http.response.body", "body": body, "more_body": True})
        drained = 0
        while more and drained <= _DRAIN_LIMIT:
            try:
                message = await asyncio.wait_for(receive(), _DRAIN_IDLE_S)
            except asyncio.TimeoutError:
                break
            if message["type"] == "http.disconnect":
                break
            drained += len(message.get("body", b""))
            more = message.get("more_body", False)
        await send({"type": "http.response.body", "body": b"", "more_body": False})
