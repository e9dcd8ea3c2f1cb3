"""Request ids: read from (or given to) every request, carried into log lines and background jobs."""
from __future__ import annotations

import contextvars
import logging
import re
import uuid

request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

# Ids we accept from callers: short and printable, so a header cannot forge log lines.
_VALID_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"


def new_request_id() -> str:
    return uuid.uuid4().hex


def accept_request_id(value: str | None) -> str:
    return value if value and _VALID_ID.fullmatch(value) else new_request_id()


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        return True


def configure_logging(level: int = logging.INFO) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # httpx logs every call at INFO (ours already say what they do); faiss logs which build it loaded.
    for noisy in ("httpx", "faiss"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
