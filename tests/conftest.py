"""Shared fixtures. The model cache lives in the repo's .cache/ so the unpacked embedding model is reused."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from kb.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

# Tests press Ctrl-C on the programs they start. A runner started in the background (nohup, `cmd &`) inherits SIGINT
# as ignored, and an ignored signal stays ignored across exec, so those programs would never see it. A handler set
# here is reset to the default in every child instead: the children get a terminal's Ctrl-C.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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


@pytest.fixture(scope="session")
def starter_diagnoser(cache_dir):
    """A diagnoser over the bundled starter KB (built into the test cache on first use)."""
    from ingest.starter import ensure_starter_kb
    from kb.diagnose import Diagnoser
    from kb.index.hybrid import KnowledgeBase

    settings = Settings(cache_dir=cache_dir)
    kb = KnowledgeBase.open(ensure_starter_kb(settings), settings)
    yield Diagnoser(kb)
    kb.close()


# Postmortems on other topics (vision and audio; serving) that every test corpus is ingested beside: the decision
# weighs an entry against the rest of the KB (its lead on retrieval, how alike the others are), and a KB of three
# documents is no KB anyone runs.
BACKGROUND = [Path(__file__).resolve().parent / "data" / name / "corpus" for name in ("eval_holdout5", "eval_holdout9")]


@pytest.fixture(scope="session")
def corpus_diagnoser(cache_dir, tmp_path_factory):
    """`corpus_diagnoser(folder)`: a diagnoser over a real KB ingested from that folder and BACKGROUND, built once
    per session."""
    from ingest.build import ingest
    from kb.diagnose import Diagnoser
    from kb.index.hybrid import KnowledgeBase

    built: dict = {}

    def make(corpus: Path) -> Diagnoser:
        if corpus not in built:
            settings = Settings(cache_dir=cache_dir)
            kb_dir = tmp_path_factory.mktemp("kb") / "kb"
            ingest([corpus, *BACKGROUND], kb_dir, settings)
            kb = KnowledgeBase.open(kb_dir, settings)
            built[corpus] = (kb, Diagnoser(kb))
        return built[corpus][1]

    yield make
    for kb, _ in built.values():
        kb.close()


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL server on 127.0.0.1 for the session (tests/postgres_support.py); each test asks it for a
    database of its own with `postgres.new_database()`. Skips where PostgreSQL or psycopg is not installed."""
    from tests.postgres_support import TempPostgres, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (no initdb/postgres in /usr/lib/postgresql/*/bin or on the PATH)")
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'triage-kb[postgres]')")
    server = TempPostgres(bindir)
    try:
        server.start()
    except Exception as exc:  # noqa: BLE001 - say why, with the server's log, rather than a bare traceback
        server.remove()
        pytest.fail(f"PostgreSQL did not start: {exc}\n{server.log()[-2000:]}")
    yield server
    server.remove()
