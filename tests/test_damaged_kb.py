"""A damaged knowledge base: the manifest keeps checksums of the generation's files, opening checks them, a damaged
file is one line naming it and the command that repairs it, and that command (or the next plain ingest) rebuilds the
generation from the stored chunks, embedding again only what was lost."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import bot.cli as cli
import bot.clikit as clikit
from ingest.build import ingest
from kb.config import Settings
from kb.index import store

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parent / "data" / "corpus_small"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, cache_dir) -> Path:
    kb_dir = tmp_path_factory.mktemp("pristine") / "kb"
    ingest([CORPUS], kb_dir, Settings(cache_dir=cache_dir))
    return kb_dir


@pytest.fixture
def kb_copy(pristine, tmp_path, monkeypatch, cache_dir) -> Path:
    for name in [k for k in os.environ if k.startswith("TRIAGE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(cache_dir))
    monkeypatch.setattr(clikit, "_debug", False)
    target = tmp_path / "kb"
    shutil.copytree(pristine, target)
    return target


def _gen(kb_dir: Path) -> Path:
    return kb_dir / (kb_dir / "CURRENT").read_text().strip()


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _bm25_file(gen: Path) -> Path:
    return next(p for p in sorted((gen / "bm25").iterdir()) if p.suffix == ".json")


def test_manifest_holds_a_checksum_of_every_index_file(pristine):
    gen = _gen(pristine)
    sums = json.loads((gen / "manifest.json").read_text())["checksums"]
    assert {"kb.sqlite", "vectors.npy", "dense.faiss"} <= set(sums)
    assert any(name.startswith("bm25/") for name in sums)
    assert store.damaged_files(gen, json.loads((gen / "manifest.json").read_text())) == []


@pytest.mark.parametrize("victim", ["dense.faiss", "bm25", "vectors.npy"])
def test_a_damaged_index_is_one_line_and_repair_rebuilds_it(kb_copy, victim):
    gen = _gen(kb_copy)
    path = _bm25_file(gen) if victim == "bm25" else gen / victim
    name = path.relative_to(gen).as_posix()
    _truncate(path)

    for argv in (["search", "oom"], ["stats"], ["diagnose", "x.txt"]):
        got = CliRunner().invoke(cli.main, [*argv, "--kb", str(kb_copy)])
        assert got.exit_code == 1, got.output
        lines = got.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in got.stderr
        assert f"{gen.name}/{name} does not match the checksum" in lines[0]
        assert f"repair it with: triage ingest --repair --kb {kb_copy}" in lines[0]

    got = CliRunner().invoke(cli.main, ["ingest", "--repair", "--kb", str(kb_copy), "--json"])
    assert got.exit_code == 0, got.output
    report = json.loads(got.stdout)
    assert report["documents"] == 3 and not (report["added"] or report["updated"] or report["removed"])
    assert any(f"damaged in the last build: {name}" in n for n in report["notes"])
    # only lost vectors are computed again
    assert report["embedded"] == (report["chunks"] if victim == "vectors.npy" else 0)

    got = CliRunner().invoke(cli.main, ["search", "NCCL shared memory segment", "--kb", str(kb_copy), "--json"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout)[0]["source"] == "nccl_shm.md"


def test_the_next_plain_ingest_repairs_instead_of_saying_unchanged(kb_copy, settings):
    _truncate(_gen(kb_copy) / "dense.faiss")
    report = ingest([CORPUS], kb_copy, settings)
    assert report.embedded == 0 and any("dense.faiss" in n for n in report.notes)
    assert store.damaged_files(_gen(kb_copy), json.loads((_gen(kb_copy) / "manifest.json").read_text())) == []
    got = CliRunner().invoke(cli.main, ["stats", "--kb", str(kb_copy), "--json"])
    assert got.exit_code == 0 and json.loads(got.stdout)["documents"] == 3


def test_a_damaged_database_asks_for_the_postmortems_and_ingest_rebuilds_from_them(kb_copy, settings):
    _truncate(_gen(kb_copy) / "kb.sqlite")
    got = CliRunner().invoke(cli.main, ["stats", "--kb", str(kb_copy)])
    assert got.exit_code == 1
    assert "kb.sqlite does not match the checksum" in got.stderr
    assert f"rebuild it with: triage ingest <your postmortems> --kb {kb_copy}" in got.stderr
    report = ingest([CORPUS], kb_copy, settings)
    assert len(report.added) == 3
    assert CliRunner().invoke(cli.main, ["stats", "--kb", str(kb_copy)]).exit_code == 0


def test_ingest_without_paths_asks_for_them(kb_copy):
    got = CliRunner().invoke(cli.main, ["ingest", "--kb", str(kb_copy)])
    assert got.exit_code == 2 and "--repair" in got.stderr
