"""Strict reading of JSON request bodies, shared by the API and the webhook: every way a body can be unreadable
becomes one exception with a one-line reason (never a RecursionError or UnicodeError deeper in)."""
from __future__ import annotations

import json

_UTF8_BOM = b"\xef\xbb\xbf"


def parse_json(body: bytes, error: type[Exception] = ValueError) -> object:
    """The JSON value of `body`: UTF-8 without a byte-order mark, nested no deeper than Python can parse, with no
    lone surrogate escapes in its strings. Raises `error(reason)` otherwise."""
    if body.startswith(_UTF8_BOM):
        raise error("the body starts with a UTF-8 byte-order mark; send plain UTF-8 JSON")
    if body[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(body) >= 2 and 0 in body[:2]):
        raise error("the body is UTF-16 or UTF-32; send UTF-8 JSON")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"the body is not UTF-8 (bad byte at offset {exc.start})") from None
    try:
        value = json.loads(text)
    except RecursionError:
        raise error("the JSON is nested too deeply") from None
    except ValueError as exc:
        reason = getattr(exc, "msg", None) or str(exc)
        where = f" at line {exc.lineno} column {exc.colno}" if hasattr(exc, "lineno") else ""
        raise error(f"the body is not JSON ({reason}{where})") from None
    if has_lone_surrogate(value):
        raise error("a string in the JSON holds a lone surrogate (such as \\ud800), which is not valid Unicode")
    return value


def has_lone_surrogate(value: object) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
