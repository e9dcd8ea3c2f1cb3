"""Turn the bytes a user handed us into report text: decoding, binary detection, and a size cap."""
from __future__ import annotations

CUT_MARK = "[triage-kb: {n} bytes cut from the middle of this report]"


def looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if b"\x00" in head:
        return True
    controls = sum(b < 9 or 13 < b < 32 for b in head)
    return bool(head) and controls / len(head) > 0.1


def decode_report(data: bytes, max_bytes: int) -> tuple[str, str | None]:
    """(text, problem). Huge reports keep their head and, mostly, their tail: a log's final error is at the end."""
    if looks_binary(data):
        return "", "this looks like a binary file, not a text report"
    if len(data) > max_bytes:
        head = max_bytes // 10
        tail = max_bytes - head
        data = data[:head] + b"\n" + CUT_MARK.format(n=len(data) - max_bytes).encode() + b"\n" + data[-tail:]
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding), None
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace"), None
