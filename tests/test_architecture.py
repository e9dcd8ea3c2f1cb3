"""The layering of the three packages, checked by import-linter.

bot (CLI, service, Slack) may use ingest and kb; ingest may use kb; kb uses
neither. The contracts live in pyproject.toml under [tool.importlinter]; this
test runs them against the checkout the tests come from.
"""

import ast
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
    "only bot.compose and evaluation import ingest",
    "kb is layered: traceback < index < decision < match < diagnose",
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
    for name in ("commands", "service", "slack", "github", "render"):     # the modules the other contracts name
        (fake / "bot" / name).mkdir()
        (fake / "bot" / name / "__init__.py").write_text("")
    for name in ("clikit", "compose", "progress"):
        (fake / "bot" / f"{name}.py").write_text("")
    (fake / "ingest" / "build.py").write_text("")
    (fake / "bot" / "commands" / "ingest_cmd.py").write_text("from ingest import build\n")  # a command, not compose
    for name in ("index", "traceback"):                         # the layers of kb
        (fake / "kb" / name).mkdir()
        (fake / "kb" / name / "__init__.py").write_text("")
    for name in ("diagnose", "match", "decision"):
        (fake / "kb" / f"{name}.py").write_text("")
    (fake / "kb" / "traceback" / "parse.py").write_text("from kb import match\n")   # a lower layer imports a higher
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
    assert "only bot.compose and evaluation import ingest BROKEN" in report, report
    assert "kb is layered" in report and "kb.traceback.parse -> kb.match" in report, report


# ---------------------------------------------------------------------------------------------------------------
# Import cycles at module level
# ---------------------------------------------------------------------------------------------------------------
#
# A module that imports, at module level, a module that imports it back only loads in one order. The graph below is
# built from the import statements as written (the AST, nothing is imported): an import inside a function, or under
# `if TYPE_CHECKING:`, does not count, since it runs after both modules are loaded. `from pkg import name` counts
# as an import of `pkg` (its __init__) and, where `pkg.name` is a module, of that module too.

PACKAGES = ("kb", "ingest", "bot")

# The cycles that remain, each with why. A cycle not listed here fails the test; so does one listed that is gone
# (take it off the list).
KNOWN_CYCLES: set[frozenset[str]] = set()


def module_files(root: Path, packages=PACKAGES) -> dict[str, Path]:
    found = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def module_level_imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    is_package = path.name == "__init__.py"
    targets: set[str] = set()

    def visit(nodes):
        for node in nodes:
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name.split(".") if is_package else name.split(".")[:-1]
                    here = here[:len(here) - (node.level - 1)]
                    base = ".".join(here + ([node.module] if node.module else []))
                targets.add(base)
                targets.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
            else:
                visit(ast.iter_child_nodes(node))

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return {t for t in targets if t in known and t != name}


def module_level_cycles(root: Path, packages=PACKAGES) -> set[frozenset[str]]:
    """The strongly connected components (more than one module) of the module-level import graph."""
    files = module_files(root, packages)
    graph = {name: module_level_imports(name, path, files) for name, path in files.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = set()

    def connect(v):                       # Tarjan; the graph has ~100 nodes, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.add(frozenset(component))

    for name in sorted(graph):
        if name not in index:
            connect(name)
    return cycles


def test_no_module_level_import_cycles_beyond_the_known_ones():
    assert module_level_cycles(ROOT) == KNOWN_CYCLES


def test_the_cycles_once_named_in_issue_20_are_gone():
    files = module_files(ROOT)
    # ingest.frontmatter uses the field extractors; of ingest.extract, only the module that puts them together
    # (document) reads entries.
    assert "ingest.extract.title" in module_level_imports("ingest.frontmatter", files["ingest.frontmatter"], files)
    for name in (n for n in files if n.startswith("ingest.extract.") and n != "ingest.extract.document"):
        assert "ingest.frontmatter" not in module_level_imports(name, files[name], files), name
    # kb/traceback/__init__.py re-exports parse_report; the modules under it name the submodules they use.
    for name in ("kb.traceback.context", "kb.traceback.roles", "kb.traceback.parse"):
        assert "kb.traceback" not in module_level_imports(name, files[name], files), name


def test_a_module_level_cycle_is_found_and_a_deferred_import_is_not(tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "__init__.py").write_text("from kb.a import f\n")
    (tmp_path / "kb" / "a.py").write_text("from kb import b\n\ndef f():\n    from kb.c import g\n")
    (tmp_path / "kb" / "b.py").write_text("import kb.a\n")
    (tmp_path / "kb" / "c.py").write_text("from kb.a import f\n")
    (tmp_path / "kb" / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import kb.c\n")
    assert module_level_cycles(tmp_path, ("kb",)) == {frozenset({"kb", "kb.a", "kb.b"})}
