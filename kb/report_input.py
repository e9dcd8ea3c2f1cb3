"""Turn the bytes a user handed us into report text: decoding (kb.decoding, the decoder ingest uses too), binary
detection, and a size cap."""
from __future__ import annotations

from dataclasses import dataclass

from kb.decoding import decode_bytes

CUT_MARK = "[triage-kb: {n} bytes cut from the middle of this report]"


@dataclass(frozen=True)
class ReportText:
    text: str
    problem: str | None          # one line, without the input's name: why it cannot be read
    notes: tuple[str, ...] = ()  # what was done to read it (NUL bytes dropped, the encoding it was in)


def read_report_bytes(data: bytes, max_bytes: int) -> ReportText:
    """Decode a report. Huge ones keep their head and, mostly, their tail (a log's final error is at the end); the
    cap counts the UTF-8 bytes of the decoded text, so a UTF-16 log is cut at the same place as its UTF-8 copy."""
    got = decode_bytes(data, lenient=True)
    if not got.ok:
        return ReportText("", got.problem, got.notes)
    notes = got.notes
    if got.encoding.startswith(("utf-16", "utf-32")):
        notes += (f"read as {got.encoding.upper()}",)
    text = got.text
    if len(text) > max_bytes // 4:                 # only then can it be over the cap
        raw = text.encode("utf-8")
        if len(raw) > max_bytes:
            head = max_bytes // 10
            tail = max_bytes - head
            mark = CUT_MARK.format(n=len(raw) - max_bytes)
            text = (raw[:head].decode("utf-8", errors="ignore") + "\n" + mark + "\n"
                    + raw[-tail:].decode("utf-8", errors="ignore"))
    return ReportText(text, None, notes)


def decode_report(data: bytes, max_bytes: int) -> tuple[str, str | None]:
    """(text, problem): `read_report_bytes` without the notes."""
    got = read_report_bytes(data, max_bytes)
    return got.text, got.problem
