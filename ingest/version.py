"""The version of the extraction code, kept apart from ingest.build so that checking whether a KB is current (the
starter KB on every `diagnose`) does not import the whole ingest pipeline."""
from __future__ import annotations

import hashlib
from pathlib import Path

from kb.rules import version_inputs


def extractor_version(root: Path = Path(__file__).resolve().parent) -> str:
    """A hash of the code and rules that turn a file into a document (ingest, and the parser's rules: the rule files
    of kb/data/rules and the code that runs them, as the rules version counts them): when it changes, an unchanged
    file is extracted again (its unchanged chunks keep their vectors). `root`: the ingest package's folder (a copy,
    in tests)."""
    kb = root.parent / "kb"
    h = hashlib.sha256()
    for folder, paths in ((root, sorted(root.rglob("*.py"))), (kb, version_inputs(kb))):
        for path in paths:
            h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return "extract:" + h.hexdigest()[:12]


EXTRACTOR_VERSION = extractor_version()
