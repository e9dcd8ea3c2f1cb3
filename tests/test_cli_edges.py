"""The command line at its edges: wrong paths, bad settings, --debug, Ctrl-C, --version, usage lines, and a
`diagnose -` waiting on a terminal. Each is one line on stderr and a meaningful exit code, never a traceback."""
from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import bot.cli as cli
import bot.clikit as clikit
from kb import __version__

ROOT = Path(__file__).resolve().parents[1]
DIAGNOSE = "import sys; from bot.cli import diagnose_main; sys.argv[0]='diagnose'; diagnose_main()"


@pytest.fixture(autouse=True)
def _clean_state(monkeypatch, cache_dir):
    monkeypatch.setattr(clikit, "_debug", False)
    for name in [k for k in os.environ if k.startswith("TRIAGE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(cache_dir))


def _one_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


def test_ingest_of_an_empty_folder_is_one_line_and_writes_nothing(tmp_path):
    empty = tmp_path / "postmortems"
    empty.mkdir()
    (empty / "notes.docx").write_bytes(b"PK\x03\x04")        # not a kind of file ingest reads
    kb = tmp_path / "kb"
    got = CliRunner().invoke(cli.main, ["ingest", str(empty), "--kb", str(kb)])
    assert got.exit_code == 2
    line = _one_line(got.stderr)
    assert line.startswith("error: No postmortems found in") and str(empty) in line
    assert not kb.exists()


def test_ingest_of_only_unreadable_files_writes_no_generation(tmp_path, settings):
    from ingest.build import ingest

    folder = tmp_path / "postmortems"
    folder.mkdir()
    (folder / "shot.txt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    report = ingest([folder], tmp_path / "kb", settings)
    assert report.documents == 0 and report.skipped and "no knowledge base was written" in report.notes[-1]
    assert not list((tmp_path / "kb").glob("gen-*")) and not (tmp_path / "kb" / "CURRENT").exists()


@pytest.mark.parametrize("args", [["ingest", "{data}"], ["search", "oom"], ["stats"], ["export"],
                                  ["repro", "list"]])
def test_a_file_given_as_kb_is_a_clear_one_line_error(args, tmp_path):
    data = tmp_path / "pm"
    data.mkdir()
    (data / "a.md").write_text("# x\n\nRuntimeError: y\n")
    argv = [a.format(data=data) for a in args] + ["--kb", str(ROOT / "README.md")]
    got = CliRunner().invoke(cli.main, argv)
    assert got.exit_code == 2, got.output
    line = _one_line(got.stderr)
    assert "README.md: is a file, not a knowledge-base folder" in line and "FileExistsError" not in line


def test_triage_kb_naming_a_file_is_named_in_the_error(monkeypatch):
    monkeypatch.setenv("TRIAGE_KB", str(ROOT / "README.md"))
    got = CliRunner().invoke(cli.main, ["stats"])
    assert got.exit_code == 2 and "TRIAGE_KB " in _one_line(got.stderr)


@pytest.mark.parametrize("var,value,expected", [
    ("TRIAGE_MAX_FILE_BYTES", "5MB", "a whole number of bytes"),
    ("TRIAGE_GITHUB_COMMENT_NO_MATCH", "maybe", "true or false"),
    ("TRIAGE_GITHUB_RETRY_ATTEMPTS", "0", "at least 1"),
])
def test_a_bad_setting_is_one_line_naming_the_variable(monkeypatch, var, value, expected):
    monkeypatch.setenv(var, value)
    for command, argv in ((cli.main, ["stats"]), (cli.main, ["diagnose", "x.txt"]), (cli.diagnose_cmd, ["x.txt"])):
        got = CliRunner().invoke(command, argv)
        assert got.exit_code == 2, got.output
        line = _one_line(got.stderr)
        assert f"{var}={value}: expected" in line and expected in line
        assert "pydantic" not in line and "validation error" not in line


def _boom(*args, **kwargs):
    raise RuntimeError("internal boom")


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.mark.parametrize("command,argv", [(cli.main, ["diagnose", "x.txt"]), (cli.diagnose_cmd, ["x.txt"]),
                                          (cli.main, ["search", "oom"])])
def test_internal_errors_are_one_line_and_debug_shows_the_traceback(monkeypatch, command, argv):
    monkeypatch.setattr(cli, "open_kb", _boom)
    got = CliRunner().invoke(command, argv)
    assert got.exit_code == 1
    assert "internal boom (run with --debug" in _one_line(got.stderr)

    debug_argv = ["--debug", *argv] if command is cli.main else [*argv, "--debug"]
    got = CliRunner().invoke(command, debug_argv)
    assert isinstance(got.exception, RuntimeError)       # not turned into a line: the traceback is shown


def test_diagnose_takes_debug_after_its_files_too(monkeypatch):
    monkeypatch.setattr(cli, "open_kb", _boom)
    got = CliRunner().invoke(cli.main, ["diagnose", "x.txt", "--debug"])
    assert isinstance(got.exception, RuntimeError)


@pytest.mark.parametrize("command,argv", [(cli.main, ["diagnose", "x.txt"]), (cli.diagnose_cmd, ["x.txt"]),
                                          (cli.main, ["stats"])])
def test_ctrl_c_exits_130_with_one_line(monkeypatch, command, argv):
    monkeypatch.setattr(cli, "open_kb", _interrupt)
    got = CliRunner().invoke(command, argv)
    assert got.exit_code == 130
    assert _one_line(got.stderr) == "interrupted"


def test_version_on_both_commands():
    for command in (cli.main, cli.diagnose_cmd):
        got = CliRunner().invoke(command, ["--version"])
        assert got.exit_code == 0 and got.output.strip() == f"triage-kb {__version__}"


def test_diagnose_usage_names_diagnose_once():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    got = subprocess.run([sys.executable, "-c", DIAGNOSE, "--help"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert got.returncode == 0
    assert got.stdout.startswith("Usage: diagnose [OPTIONS] FILES...") and "diagnose diagnose" not in got.stdout
    assert "--version" in got.stdout and "--debug" in got.stdout
    got = subprocess.run([sys.executable, "-c", DIAGNOSE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert got.returncode == 2 and got.stderr.startswith("Usage: diagnose [OPTIONS] FILES...")


@pytest.mark.slow
def test_diagnose_stdin_on_a_terminal_says_it_waits_and_ctrl_c_exits_130(tmp_path, cache_dir):
    from ingest.build import ingest
    from kb.config import Settings

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "oom.md").write_text("# Out of memory at step one\n\nRuntimeError: CUDA out of memory.\n\n"
                                   "## Fix\n\nSmaller micro-batch.\n")
    kb = tmp_path / "kb"
    ingest([corpus], kb, Settings(cache_dir=cache_dir))
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", DIAGNOSE, "-", "--kb", str(kb)], cwd=ROOT, env=env,
                            stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(follower)
    try:
        err = b""
        deadline = time.monotonic() + 120
        while b"end of file" not in err and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 1)
            if ready:
                err += os.read(proc.stderr.fileno(), 4096)
        assert b"Reading the report from standard input until end of file" in err, err
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    err += rest
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
