"""What a recipe would run on: Python, torch, CUDA (device name, memory, driver), and the packages it asks for.

Detection runs where the recipe runs (the local machine, or a Ray worker), so a result records the environment
that produced it.
"""
from __future__ import annotations

import importlib.metadata
import platform
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from packaging.requirements import InvalidRequirement, Requirement

from kb.repro.recipe import Recipe


@dataclass(frozen=True)
class Environment:
    python: str
    torch: str | None                 # None: torch is not importable
    cuda: str | None                  # CUDA version torch was built with; None for a CPU-only build
    cuda_available: bool
    gpus: int
    device: str                       # "cpu", or "NVIDIA H100 80GB HBM3 (79.1 GiB) x2"
    driver: str | None                # NVIDIA driver version from nvidia-smi
    looked_at: list[str] = field(default_factory=list)   # what detection checked, for skip reasons

    def as_dict(self) -> dict:
        return asdict(self)


def _nvidia_smi_driver() -> tuple[str | None, str]:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None, "no nvidia-smi on PATH"
    try:
        out = subprocess.run([exe, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"nvidia-smi failed ({type(exc).__name__})"
    first = out.stdout.strip().splitlines()[:1]
    if out.returncode != 0 or not first:
        return None, f"nvidia-smi exited {out.returncode}: {(out.stderr or out.stdout).strip()[:120]}"
    return first[0].strip(), f"nvidia-smi reports driver {first[0].strip()}"


@lru_cache(maxsize=1)
def detect() -> Environment:
    """The environment of this process (cached: torch is imported once)."""
    looked: list[str] = []
    driver, smi = _nvidia_smi_driver()
    looked.append(smi)
    try:
        import torch
    except ImportError:
        looked.append("torch is not importable")
        return Environment(platform.python_version(), None, None, False, 0, "cpu", driver, looked)
    cuda = torch.version.cuda
    available = bool(cuda) and torch.cuda.is_available()
    gpus = torch.cuda.device_count() if available else 0
    if cuda is None:
        looked.append(f"torch {torch.__version__} is a CPU-only build (torch.version.cuda is None)")
    elif not available:
        looked.append(f"torch {torch.__version__} (CUDA {cuda}) finds no usable GPU (torch.cuda.is_available() is False)")
    device = "cpu"
    if gpus:
        props = torch.cuda.get_device_properties(0)
        device = f"{props.name} ({props.total_memory / 2**30:.1f} GiB)" + (f" x{gpus}" if gpus > 1 else "")
        looked.append(f"torch sees {gpus} GPU(s): {device}")
    return Environment(platform.python_version(), torch.__version__, cuda, available, gpus, device, driver, looked)


def missing_packages(requirements: list[str]) -> list[str]:
    """Requirements not satisfied here, each with what is installed instead."""
    out = []
    for spec in requirements:
        try:
            req = Requirement(spec)
        except InvalidRequirement:
            out.append(f"{spec} (not a valid requirement)")
            continue
        try:
            have = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{spec} (not installed)")
            continue
        if req.specifier and not req.specifier.contains(have, prereleases=True):
            out.append(f"{spec} (found {have})")
    return out


def skip_reason(recipe: Recipe, env: Environment) -> str | None:
    """Why `recipe` cannot run in `env`, naming what was looked for; None when it can."""
    if recipe.needs_gpu and env.gpus < recipe.world_size:
        want = f"{recipe.world_size} CUDA GPU{'s' if recipe.world_size > 1 else ''}"
        return f"needs {want}, found {env.gpus}: " + "; ".join(env.looked_at)
    missing = missing_packages(recipe.packages)
    if missing:
        return "needs " + ", ".join(missing)
    return None
