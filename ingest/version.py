"""The version of the extraction code, kept apart from ingest.build so that checking whether a KB is current (the
starter KB on every `diagnose`) does not import the whole ingest pipeline."""
from __future__ import annotations

import hashlib
from pathlib import Path


def _extractor_version() -> str:
    """A hash of the code that turns a file into a document (ingest, and the line rules it uses from
    kb.traceback, subpackages included): when it changes, an unchanged file is extracted again (its unchanged
    chunks keep their vectors)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for folder in (root, root.parent / "kb" / "traceback"):
        for path in sorted(folder.rglob("*.py")):
            h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return "extract:" + h.hexdigest()[:12]


EXTRACTOR_VERSION = _extractor_version()
