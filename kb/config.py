"""Settings: one table, read from environment variables with the prefix TRIAGE_.

Read once at the edge (CLI, server) and passed down; library code never reads os.environ itself.
"""
from __future__ import annotations

from pathlib import Path

import platformdirs
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_MODEL = "multilingual-e5-small"


def user_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("triage-kb", appauthor=False))


def user_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("triage-kb", appauthor=False))


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TRIAGE_", extra="ignore")

    kb: Path | None = Field(None, description="Knowledge-base folder; default: the bundled starter KB")
    cache_dir: Path = Field(default_factory=user_cache_dir, description="Unpacked models and built default KB")
    model: str = Field(
        DEFAULT_MODEL,
        description="Embedding model: the bundled multilingual-e5-small, or a sentence-transformers path/name",
    )
    max_file_bytes: int = Field(5_000_000, description="Files larger than this are skipped by ingest")
    max_report_bytes: int = Field(2_000_000, description="Reports are cut to this size before parsing")

    def default_kb_dir(self) -> Path:
        return user_data_dir() / "kb"
