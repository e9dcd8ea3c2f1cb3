"""The bundled starter knowledge base: where its entries live and a fingerprint of their contents."""
from __future__ import annotations

import hashlib
from pathlib import Path

ENTRIES_DIR = Path(__file__).parent / "data" / "entries"


def entries_hash() -> str:
    """Changes whenever an entry file is added, removed or edited; the built starter KB is keyed on it."""
    h = hashlib.sha256()
    for f in sorted(ENTRIES_DIR.glob("*.md")):
        h.update(f.name.encode())
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()
