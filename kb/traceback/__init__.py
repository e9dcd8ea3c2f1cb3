"""Traceback and report understanding: line classification, report parsing, message signatures.

- `lines`: `classify_line`, `find_error_lines` (also used by ingest on postmortems)
- `parse`: `parse_report(text) -> Report`
- `signature`: `make_signature`, `signature_of_line`, `signature_of_event`, `similarity`, `SIGNATURE_VERSION`
- `facts`: the named fact rules and `FACTS` (every fact name, its values, hard/soft)
- `frames`: `Frame` parsing, library detection, `module:function` reduction
"""
from kb.traceback.lines import classify_line, find_error_lines
from kb.traceback.models import ErrorEvent, Frame, Report
from kb.traceback.parse import parse_report
from kb.traceback.signature import (
    SIGNATURE_VERSION,
    Signature,
    make_signature,
    signature_of_event,
    signature_of_line,
    similarity,
)

__all__ = [
    "SIGNATURE_VERSION", "ErrorEvent", "Frame", "Report", "Signature", "classify_line", "find_error_lines",
    "make_signature", "parse_report", "signature_of_event", "signature_of_line", "similarity",
]
