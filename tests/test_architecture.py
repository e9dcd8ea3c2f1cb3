"""The layering of the three packages, checked by import-linter.

bot (CLI, service, Slack) may use ingest and kb; ingest may use kb; kb uses
neither. The contracts live in pyproject.toml under [tool.importlinter]; this
test runs them against the checkout the tests come from.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CONTRACTS = (
    "kb imports neither bot nor ingest",
    "ingest does not import bot",
)


def lint_imports_binary() -> str:
    here = Path(sys.executable).parent / "lint-imports"
    found = str(here) if here.exists() else shutil.which("lint-imports")
    if found is None:
        pytest.fail("lint-imports is missing: pip install -e '.[test]' installs import-linter")
    return found


def run_lint_imports(config: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # This checkout first, ahead of any installed copy of the packages.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [lint_imports_binary(), "--no-cache", "--no-logo", str(config)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


def test_layer_contracts_are_kept():
    result = run_lint_imports(ROOT / "pyproject.toml")
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    for name in CONTRACTS:
        assert f"{name} KEPT" in report, report
    assert "0 broken" in report, report


def test_a_forbidden_import_is_caught(tmp_path):
    """The same contracts, run on a tiny tree where kb imports bot, must fail."""
    fake = tmp_path / "tree"
    for package in ("kb", "ingest", "bot"):
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
    (fake / "kb" / "leak.py").write_text("from bot import cli\n")
    (fake / "bot" / "cli.py").write_text("")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(fake)
    result = subprocess.run(
        [lint_imports_binary(), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        cwd=fake, env=env, capture_output=True, text=True, timeout=300,
    )
    report = result.stdout + result.stderr
    assert result.returncode != 0, report
    assert "kb imports neither bot nor ingest BROKEN" in report, report
    assert "kb.leak -> bot.cli" in report, report
