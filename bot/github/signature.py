"""X-Hub-Signature-256: HMAC-SHA256 of the raw request body with the webhook secret, compared in constant time."""
from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    return PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def signature_ok(secret: bytes, body: bytes, header: str | None) -> bool:
    if not header or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode("latin-1", errors="replace"))
