"""What cleaning threw away from each ingested page, and why, worked out again from the page's source file.

A KB keeps each document's cleaned body, not the lines cleaning removed, so `triage export --removed` reads the
sources again: a document whose file is still there, unchanged (the sha256 it was ingested with), is cleaned again
with the boilerplate of all such files (what an ingest of the folder in one run saw). When that gives the stored body,
the lines listed are exactly those ingest removed; otherwise they are what cleaning removes now (the KB was built by
other rules, or its files were ingested in several runs) and the status says so.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kb.models import Document

from ingest.clean import clean_text, find_boilerplate
from ingest.read import RawDocument, read_path

# Every status a document's removed lines can have, with the note that comes with it; only the first two have lines.
STATUS_NOTES = {
    "as ingested": "cleaning the unchanged source again gives the stored body: these are the lines ingest removed",
    "recomputed": "the source is unchanged but cleaning it now gives another body: these are the lines it removes now",
    "not cleaned": "an entry with front matter is read as written",
    "source changed": "the file differs from what was ingested; ingest it again to see",
    "source missing": "the file it was ingested from cannot be read",
    "no source file": "it was not read from a file (an imported issue thread)",
}


class RemovedLines:
    """The removed lines of a KB's documents. Reads every source file once; `of` cleans one document again."""

    def __init__(self, index: Iterable[tuple[str, str, str]], max_bytes: int) -> None:
        """`index`: (doc_id, content_hash, origin) of every document of the KB (`KBStore.doc_index().values()`)."""
        self._raw: dict[str, RawDocument] = {}
        self._status: dict[str, str] = {}
        for doc_id, content_hash, origin in index:
            if not Path(origin).is_absolute():
                self._status[doc_id] = "no source file"
                continue
            got = read_path(Path(origin), max_bytes)
            if not isinstance(got, RawDocument):
                self._status[doc_id] = "source missing"
            elif got.content_hash != content_hash:
                self._status[doc_id] = "source changed"
            else:
                self._raw[doc_id] = got
                if got.format == "entry":
                    self._status[doc_id] = "not cleaned"
        self._boilerplate = find_boilerplate([r.text for r in self._raw.values()])

    def of(self, doc: Document) -> dict:
        """{"status", "note", "lines": [{"line", "text", "reason"}]} for one document of the index (status: a key of
        STATUS_NOTES; reason: a key of ingest.clean.REASONS)."""
        status, lines = self._status.get(doc.doc_id), []
        if status is None:
            raw = self._raw.get(doc.doc_id)
            if raw is None:                        # not in the index given
                status = "source missing"
            else:
                cleaned = clean_text(raw.text, self._boilerplate)
                status = "as ingested" if cleaned.text == doc.body else "recomputed"
                lines = [r._asdict() for r in cleaned.removed]
        return {"status": status, "note": STATUS_NOTES[status], "lines": lines}
