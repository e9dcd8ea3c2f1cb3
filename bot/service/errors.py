"""One JSON error shape for every error the service returns, whatever raised it:

    {"ok": false, "status": 404, "code": "not_found", "error": "<one line for the user>", "request_id": "..."}

(422 adds "details": the fields that failed validation.) Slack and GitHub routes use the same handlers.
"""
from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from bot.service.logs import request_id_var
from kb.errors import KBError

log = logging.getLogger(__name__)

# Codes for statuses raised by the framework itself (unknown path, wrong method, ...).
_STATUS_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                 405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type",
                 422: "invalid_request", 429: "too_many_requests", 503: "unavailable"}


class ErrorBody(BaseModel):
    """The one error shape (in the OpenAPI document)."""

    ok: bool = False
    status: int
    code: str
    error: str
    request_id: str
    details: list[dict] | None = None   # 422 only: the fields that failed validation


_DESCRIPTIONS = {400: "The request cannot be read (bad JSON, wrong field types, bad headers)",
                 401: "Missing or wrong signature", 404: "No such entry or path",
                 413: "The body is over TRIAGE_MAX_REQUEST_BYTES", 415: "Unsupported content type",
                 422: "A field failed validation", 409: "Already handled (a replayed request)",
                 503: "Not ready (the KB is loading) or not configured"}


def error_responses(*statuses: int) -> dict[int | str, dict]:
    """`responses=` for a route: the error statuses it gives, each in the one error shape."""
    return {s: {"model": ErrorBody, "description": _DESCRIPTIONS.get(s, "Error")} for s in statuses}


class ServiceError(KBError):
    """An error with an HTTP status, raised by routes: `raise ServiceError(404, "not_found", "No entry 'x'.")`."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.headers = headers or {}


class NotReady(KBError):
    code = "not_ready"
    status = 503


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None,
                   **extra) -> JSONResponse:
    rid = request_id_var.get()
    body = {"ok": False, "status": status, "code": code, "error": message, "request_id": rid, **extra}
    return JSONResponse(body, status_code=status, headers={**(headers or {}), "X-Request-ID": rid})


async def _kb_error(request: Request, exc: KBError) -> JSONResponse:
    if exc.status >= 500:
        log.warning("%s: %s", exc.code, exc.user_message)
    return error_response(exc.status, exc.code, exc.user_message, getattr(exc, "headers", None))


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = _STATUS_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    return error_response(exc.status_code, code, message, exc.headers)


async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"] if p != "body") or "request"
    return error_response(422, "invalid_request", f"{where}: {first['msg']}", details=details)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path)
    return error_response(500, "internal_error", "Internal error; the service log has the details (see request_id).")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(KBError, _kb_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)
