"""Shared fixtures. The model cache lives in the repo's .cache/ so the unpacked embedding model is reused."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def cache_dir() -> Path:
    path = ROOT / ".cache" / "test"
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def settings(cache_dir, tmp_path) -> Settings:
    return Settings(cache_dir=cache_dir, kb=None)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent (the seeds and the dev set live there)")
    return SHARED
