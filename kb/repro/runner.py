"""The local backend: run one recipe in a process group of its own, in a fresh folder, with limits.

- its own session (`start_new_session`), so on timeout the whole tree goes: SIGTERM to the group, SIGKILL after a
  grace period, then a check that no member of the group is left;
- an address-space limit (RLIMIT_AS) for each process when the recipe sets `memory_mb` (CUDA recipes set none: the CUDA
  runtime maps far more address space than it uses), and a cap on the size of any file it writes;
- a fresh temporary working folder (also HOME and TMPDIR), removed afterwards;
- an environment built from an allowlist: no proxies, tokens or hub endpoints reach the recipe, and the Hugging
  Face libraries are told to stay offline;
- stdout and stderr together in one file; the last `TAIL_BYTES` are parsed and the last `LOG_TAIL_CHARS` kept.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from kb.repro.environment import detect, skip_reason
from kb.repro.outcome import classify
from kb.repro.recipe import Recipe
from kb.repro.results import ReproResult

TERM_GRACE_S: Final = 3.0
TAIL_BYTES: Final = 1_000_000
LOG_TAIL_CHARS: Final = 8000
MAX_FILE_BYTES: Final = 1 << 30

# Variables a recipe may see from the caller's environment; everything else (proxies, HF_ENDPOINT, tokens,
# TRIAGE_* secrets, PIP_* indexes) is left out.
_KEEP: Final = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                "CUDA_HOME", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "OMP_NUM_THREADS",
                "VIRTUAL_ENV", "CONDA_PREFIX")
_SET: Final = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
               "TOKENIZERS_PARALLELISM": "false"}


def recipe_env(recipe: Recipe, fix: bool, workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _KEEP}
    env.setdefault("OMP_NUM_THREADS", "1")          # small tensors; threads only fight over the cores
    env.update(_SET)
    env.update(HOME=str(workdir), TMPDIR=str(workdir / "tmp"), TRIAGE_REPRO_WORLD_SIZE=str(recipe.world_size))
    if not recipe.needs_gpu:
        # A CPU recipe runs on the CPU on a GPU host too, as it does everywhere else: it must not pick up a GPU.
        env["CUDA_VISIBLE_DEVICES"] = ""
    if fix:
        env.update(recipe.fix.env)
    return env


# Limits are set by a tiny launcher that then execs the script: a preexec_fn is not safe in a threaded parent
# (a Ray worker, or diagnose with its OpenMP threads).
_LAUNCHER: Final = ("import json, os, resource, sys\n"
                    "for name, value in json.loads(sys.argv[1]):\n"
                    "    resource.setrlimit(getattr(resource, name), (value, value))\n"
                    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n")


def _command(recipe: Recipe, script: Path, fix: bool) -> list[str]:
    limits = [["RLIMIT_FSIZE", MAX_FILE_BYTES], ["RLIMIT_CORE", 0]]
    if recipe.memory_mb is not None:
        limits.append(["RLIMIT_AS", recipe.memory_mb * 1024 * 1024])
    return [sys.executable, "-c", _LAUNCHER, json.dumps(limits), str(script), *recipe.command_args(fix)]


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes in process group `pgid`, read from /proc."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        # fields after the parenthesised command: state ppid pgrp ...
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[0] != "Z" and int(fields[2]) == pgid:
            out.append(int(entry.name))
    return out


def kill_group(pgid: int, grace_s: float = TERM_GRACE_S) -> list[int]:
    """SIGTERM the group, SIGKILL what is left after `grace_s`; returns the pids still alive afterwards."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return []
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not group_members(pgid):
                return []
            time.sleep(0.05)
    return group_members(pgid)


def _tail(path: Path, limit: int) -> str:
    with path.open("rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - limit))
        return f.read().decode("utf-8", errors="replace")


def run_recipe(recipe: Recipe, fix: bool = False, backend: str = "local") -> ReproResult:
    """Run `recipe` here (reproduce, or with its fix switched on) and say what came of it. Never raises for a
    recipe's own failure: that is a status."""
    env_info = detect()
    base = dict(recipe_id=recipe.id, entry_id=recipe.entry, kind=recipe.kind, fix=fix, backend=backend,
                environment=env_info.as_dict())
    reason = skip_reason(recipe, env_info)
    if reason:
        return ReproResult(status="skipped", reason=reason, **base)
    workdir = Path(tempfile.mkdtemp(prefix=f"triage-repro-{recipe.id}-"))
    try:
        (workdir / "tmp").mkdir()
        script = workdir / recipe.script_path.name
        shutil.copy2(recipe.script_path, script)
        log = workdir / "output.log"
        start = time.monotonic()
        with log.open("wb") as out:
            try:
                proc = subprocess.Popen(_command(recipe, script, fix), cwd=workdir,
                                        env=recipe_env(recipe, fix, workdir), stdin=subprocess.DEVNULL, stdout=out,
                                        stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as exc:
                return ReproResult(status="error", reason=f"could not start the recipe: {exc}", **base)
            try:
                code = proc.wait(timeout=recipe.timeout_s)
            except subprocess.TimeoutExpired:
                left = kill_group(proc.pid)
                proc.wait()
                tail = _tail(log, LOG_TAIL_CHARS)
                reason = f"no result after {recipe.timeout_s:g} s; killed its process group"
                reason += f" ({len(left)} processes survived SIGKILL: {left})" if left else " (none left)"
                return ReproResult(status="timeout", reason=reason, duration_s=round(time.monotonic() - start, 2),
                                   exit_code=None, log_tail=tail, **base)
            # children a recipe left behind (a rank that did not exit) go with the group too
            kill_group(proc.pid, grace_s=0.5)
        duration = round(time.monotonic() - start, 2)
        output = _tail(log, TAIL_BYTES)
        status, reason, found = classify(recipe.expect.signature, fix, recipe.fix.signature == "present", code,
                                         output)
        return ReproResult(status=status, reason=reason, duration_s=duration, exit_code=code,
                           matched=found.line if found else None,
                           similarity=round(found.score, 3) if found else None,
                           log_tail=output[-LOG_TAIL_CHARS:], **base)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
