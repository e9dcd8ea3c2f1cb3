"""The composition root: which knowledge base a command or the service reads, opening it (building the bundled
starter KB on first use), and building or extending one (`triage ingest`, `triage import github`, what cleaning
removed for `triage export`). The one place outside evaluation where `bot` reaches into `ingest` (an import contract
in pyproject.toml holds it).
"""
from __future__ import annotations

from pathlib import Path

from kb.config import Settings
from kb.errors import BadInput


def given_kb(settings: Settings, kb_dir: Path | None) -> Path | None:
    """--kb, else $TRIAGE_KB; refused when it names something that is not a folder (a file, say)."""
    for path, origin in ((kb_dir, "--kb"), (settings.kb, "TRIAGE_KB")):
        if path is None:
            continue
        if path.exists() and not path.is_dir():
            raise BadInput(f"{origin} {path}: is a file, not a knowledge-base folder; give a folder (a new one is "
                           f"created by: triage ingest <postmortems> --kb <folder>)")
        return path
    return None


def resolve_kb_for_writing(settings: Settings, kb_dir: Path | None) -> Path:
    return given_kb(settings, kb_dir) or settings.default_kb_dir()


def chosen_kb(settings: Settings, kb_dir: Path | None) -> Path | None:
    """--kb, $TRIAGE_KB, or the user's own KB if it exists; None means the bundled starter KB."""
    chosen = given_kb(settings, kb_dir)
    if chosen is None and (settings.default_kb_dir() / "CURRENT").exists():
        chosen = settings.default_kb_dir()
    return chosen


def kb_folder(settings: Settings, kb_dir: Path | None) -> Path:
    """The folder `open_kb` reads, without loading or building it (feedback and repro results live beside it)."""
    return chosen_kb(settings, kb_dir) or starter_folder(settings)


def open_kb(settings: Settings, kb_dir: Path | None, progress=None):
    """The KB to read: --kb, $TRIAGE_KB, the user's own KB if it exists, else the bundled starter KB."""
    from kb.index.hybrid import KnowledgeBase

    chosen = chosen_kb(settings, kb_dir)
    if chosen is None:
        from ingest.starter import ensure_starter_kb

        chosen = ensure_starter_kb(settings, progress=progress)
    return KnowledgeBase.open(chosen, settings)




def build_kb(paths: list[Path], target: Path, settings: Settings, **options):
    """`triage ingest`: ingest.build.ingest into `target` (options: prune, repair, progress)."""
    from ingest.build import ingest

    return ingest(paths, target, settings, **options)


def import_threads(repos: list[str], target: Path, settings: Settings, **options):
    """`triage import github`: ingest.github_import.import_github into `target`."""
    from ingest.github_import import import_github

    return import_github(repos, target, settings, **options)


def starter_folder(settings: Settings) -> Path:
    """Where the bundled starter KB is (or will be) built."""
    from ingest.starter import starter_kb_dir

    return starter_kb_dir(settings)


def removed_lines(kb, settings: Settings):
    """What cleaning removed from each of `kb`'s documents, re-read from their files (`triage export --removed`)."""
    from ingest.removed import RemovedLines

    return RemovedLines(kb.store.doc_index().values(), settings.max_file_bytes)
