"""Rules that are data: the TOML files of `kb/data/rules/`, read once per process.

Tables, word lists and named regexes live there (pattern facts, line kinds, the parser's vocabularies, the glossary,
talk words, page-noise phrases); the modules that run them keep only the logic. A regex is a table
`{regex = '''...''', flags = "ix"}`, or `any = [...]` instead of `regex` for a list of alternatives (joined with `|`,
in order): literal strings keep backslashes as written, and `flags` spells the `re` flags by letter.

The rules version (`kb.traceback.signature.SIGNATURE_VERSION`) is a digest of these files and of the engines that
run them (`version_inputs`), so editing a rule file is a new version.
"""
from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

_KB = Path(__file__).resolve().parent
RULES_DIR = _KB / "data" / "rules"
# The code that runs rule files: every module of the parser (kb/traceback), this loader and the engines of
# kb/index. (ingest/clean.py runs page_noise.toml too; kb does not look into ingest, so only its data counts.)
_ENGINES = ("traceback/*.py", "rules.py", "index/glossary.py", "index/talk.py")

_FLAGS = {"a": re.A, "i": re.I, "m": re.M, "s": re.S, "x": re.X}


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed rule file `kb/data/rules/<name>.toml`."""
    with (RULES_DIR / f"{name}.toml").open("rb") as f:
        return tomllib.load(f)


def files(kb_dir: Path = _KB) -> list[Path]:
    """Every rule file (`kb_dir`: the kb package's folder; a copy of it, in tests)."""
    return sorted((kb_dir / RULES_DIR.relative_to(_KB)).glob("*.toml"))


def version_inputs(kb_dir: Path = _KB) -> list[Path]:
    """The files the rules version is derived from: the rule files and the code that runs them."""
    return sorted({p for pattern in _ENGINES for p in kb_dir.glob(pattern)} | set(files(kb_dir)))


def flags(letters: str) -> int:
    out = 0
    for letter in letters:
        out |= _FLAGS[letter]
    return out


def regex(rule: dict[str, Any]) -> re.Pattern[str]:
    """Compile one regex table (`regex` or `any`, optional `flags`)."""
    pattern = rule["regex"] if "regex" in rule else "|".join(rule["any"])
    return re.compile(pattern, flags(rule.get("flags", "")))


def words(text: str) -> frozenset[str]:
    """A word list written as whitespace-separated words."""
    return frozenset(text.split())
