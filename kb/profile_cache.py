"""Entry profiles (every entry's error lines parsed into signatures) kept on disk, one file per KB folder.

A KB small enough to be scored whole has every entry profiled when a matcher opens it: for the bundled KB that is
most of a one-shot `diagnose` (0.4 s of parsing against 0.04 s of reading them back). The file lives in the cache
folder, named after the KB folder, and is stamped with the KB's generation and a hash of the code that parses
(kb/traceback/*.py, kb/match.py): a new generation or a changed rule never reads stale profiles, and replaces the
file instead of adding one (a KB that gets a generation an hour keeps one file). The cache is only ever written by
this module; a file that cannot be read or written is ignored (the profiles are computed as before).
"""
from __future__ import annotations

import hashlib
import logging
import os
import pickle
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from kb.traceback.signature import SIGNATURE_VERSION

log = logging.getLogger(__name__)

_HERE = Path(__file__).resolve().parent


@lru_cache(maxsize=1)
def rules_hash() -> str:
    """A hash of the code a profile depends on: the signature rules (their version) and the matcher's profiling."""
    h = hashlib.sha256(SIGNATURE_VERSION.encode() + b"\0" + (_HERE / "match.py").read_bytes())
    return h.hexdigest()[:16]


def cache_file(cache_dir: Path, kb_path: Path) -> Path:
    key = hashlib.sha256(str(Path(kb_path).resolve()).encode()).hexdigest()[:20]
    return Path(cache_dir) / "profiles" / f"{key}.pkl"


def load_or_build(path: Path, generation: str, doc_ids: list[str], build: Callable[[str], object]) -> dict:
    """Every entry's profile: read from `path` when it was written for this generation, these parsing rules and
    exactly these entries; else built and written there (replacing what the file held)."""
    stamp = f"{generation}|{rules_hash()}"
    try:
        got_stamp, got = pickle.loads(path.read_bytes())
        if got_stamp == stamp and isinstance(got, dict) and set(got) == set(doc_ids):
            return got
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        pass
    profiles = {doc_id: build(doc_id) for doc_id in doc_ids}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps((stamp, profiles), protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(path)
    except OSError as exc:
        log.debug("entry profiles not cached at %s: %s", path, exc)
    return profiles
