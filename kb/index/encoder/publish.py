"""Publishing a folder built in a temporary sibling: its data on disk before the rename that makes it visible, and
the temporaries a crash left behind."""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def fsync_tree(root: Path) -> None:
    for p in sorted(root.rglob("*"), key=lambda q: len(q.parts), reverse=True) + [root]:
        try:
            fd = os.open(p, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def remove_stale_temps(models_dir: Path, name: str, max_age_s: float = 3600.0) -> None:
    now = time.time()
    for prefix in (".tmp-", ".old-"):
        for p in models_dir.glob(f"{prefix}{name}-*"):
            try:
                if now - p.stat().st_mtime > max_age_s:
                    shutil.rmtree(p, ignore_errors=True)
            except OSError:
                pass


def publish(tmp: Path, final: Path, ready: Callable[[], bool]) -> None:
    """Make the complete folder `tmp` visible as `final`: its data on disk before the rename. A folder another process
    finished first (`ready()`) is kept, as it may be loading from it; an older one is moved aside, then removed."""
    fsync_tree(tmp)
    if ready():
        return
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".old-{final.name}-", dir=final.parent))
        os.replace(final, old / "x")
        shutil.rmtree(old, ignore_errors=True)
    try:
        os.replace(tmp, final)
    except OSError:
        if not ready():  # not a lost race with another process: a real failure
            raise
