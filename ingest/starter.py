"""Build the bundled starter KB into the user's cache on first use, and again whenever its entries or the code that
extracts them change (an update re-extracts; unchanged chunks keep their vectors)."""
from __future__ import annotations

import sys
from pathlib import Path

from kb.config import Settings
from kb.starter import ENTRIES_DIR, entries_hash
from ingest.build import EXTRACTOR_VERSION, Progress, ingest

HASH_FILE = "STARTER_HASH"


def starter_kb_dir(settings: Settings) -> Path:
    return settings.cache_dir / f"starter-kb-{settings.model.replace('/', '_')}"


def ensure_starter_kb(settings: Settings, progress: Progress | None = None) -> Path:
    kb_dir = starter_kb_dir(settings)
    from kb.index.embed import resolve_encoder

    # new entries, new extraction code or another encoder (TRIAGE_ENCODER): bring it up to date
    want = f"{entries_hash()} {EXTRACTOR_VERSION} {resolve_encoder(settings.model, settings.cache_dir, settings.encoder)}"
    stamp = kb_dir / HASH_FILE
    if stamp.exists() and stamp.read_text().strip() == want and (kb_dir / "CURRENT").exists():
        return kb_dir
    print("Building the bundled starter knowledge base (first use; a few minutes on a small machine)...", file=sys.stderr)
    ingest([ENTRIES_DIR], kb_dir, settings, prune=True, progress=progress)
    stamp.write_text(want + "\n")
    return kb_dir
