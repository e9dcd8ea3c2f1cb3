"""Turn the bytes a user handed us into report text: decoding (kb.decoding, the decoder ingest uses too), binary
detection, and the size cap every surface applies (`cap_report`, at Settings.max_report_bytes)."""
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
    return ReportText(cap_report(got.text, max_bytes), None, notes)


def cap_report(text: str, max_bytes: int) -> str:
    """The report, or when its UTF-8 is over `max_bytes`, its head and, mostly, its tail (a log's final error is at
    the end) around a line saying how much was cut. The CLI, the service, Slack and GitHub all cut with this; the
    result, mark included, is within `max_bytes`, so cutting it again changes nothing."""
    if len(text) <= max_bytes // 4:                 # only a longer text can be over the cap
        return text
    raw = text.encode("utf-8", errors="replace")
    if len(raw) <= max_bytes:
        return text
    keep = max(0, max_bytes - len(CUT_MARK.format(n=len(raw))) - 2)      # the mark and its two newlines fit too
    head = keep // 10
    tail = keep - head
    mark = CUT_MARK.format(n=len(raw) - head - tail)
    return (raw[:head].decode("utf-8", errors="ignore") + "\n" + mark + "\n"
            + raw[len(raw) - tail:].decode("utf-8", errors="ignore"))


def decode_report(data: bytes, max_bytes: int) -> tuple[str, str | None]:
    """(text, problem): `read_report_bytes` without the notes."""
    got = read_report_bytes(data, max_bytes)
    return got.text, got.problem
