"""Version mentions, with the library they belong to when it is named."""
from __future__ import annotations

import re

from ingest.extract.libraries import LIB_RX

# How versions are written next to a library name.
_VERSION_LIBS: dict[str, str] = {
    "torch": r"torch|pytorch", "transformers": r"transformers", "deepspeed": r"deepspeed", "accelerate": r"accelerate",
    "peft": r"peft", "trl": r"trl", "vllm": r"vllm", "megatron": r"megatron(?:-lm|-core)?",
    "colossalai": r"colossal-?ai",
    "cuda": r"cuda", "cudnn": r"cudnn", "nccl": r"nccl", "flash-attn": r"flash[-_]attn|flash[-_ ]?attention",
    "bitsandbytes": r"bitsandbytes", "liger-kernel": r"liger[-_]kernel", "lightning": r"(?:pytorch[- ])?lightning",
    "safetensors": r"safetensors", "sentence-transformers": r"sentence-transformers", "tokenizers": r"tokenizers",
    "llama-factory": r"llama-?factory", "nanotron": r"nanotron", "xformers": r"xformers", "apex": r"apex",
    "python": r"python", "diffusers": r"diffusers", "torchtune": r"torchtune", "xtuner": r"xtuner",
    "triton": r"triton", "datasets": r"datasets", "numpy": r"numpy", "jax": r"jax", "nemo": r"nemo",
    "driver": r"driver",
}
_VERSION = r"\d+(?:\.(?:\d+|x|\*))+(?:[\w.+-]*[\w])?"
_LIB_VERSION = re.compile(
    r"(?<![\w-])(?P<lib>" + "|".join(f"(?P<{k.replace('-', '_')}>{v})" for k, v in _VERSION_LIBS.items()) + r")"
    r"(?:\s*(?P<op>==|>=|<=|~=|!=|>|<)\s*|[ \t]*(?:version|版本)?[ \t]*[:：]?[ \t]*v?|[-@]v?)(?P<ver>" + _VERSION + ")",
    re.I | re.A)
_BARE_VERSION = re.compile(r"(?:(?<![\w-])v|版本\s*[(（]?\s*(?:如|例如|为)?\s*|\bversion\s+)"
                           r"(?P<ver>\d+\.\d+(?:\.\d+)?)\b",
                           re.I | re.A)


def find_versions(text: str) -> list[str]:
    """Version mentions: `transformers==4.37.2`, `torch 2.1.0`, `cuda 12.1`, `v0.3.1` (with the library named
    just before it when there is one)."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    for m in _LIB_VERSION.finditer(text):
        name = next(k for k in _VERSION_LIBS if m.group(k.replace("-", "_")))
        op = m.group("op")
        out.append(f"{name}{op}{m.group('ver')}" if op else f"{name} {m.group('ver')}")
        spans.append(m.span())
    for m in _BARE_VERSION.finditer(text):
        if any(a <= m.start("ver") < b for a, b in spans):
            continue
        before = text[max(0, m.start() - 40):m.start()]
        libs = [(mm.end(), k) for k, rx in LIB_RX.items() for mm in rx.finditer(before)]
        if libs:
            out.append(f"{max(libs)[1]} {m.group('ver')}")
        else:
            out.append(("v" if m.group(0).lower().startswith("v") else "") + m.group("ver"))
    return list(dict.fromkeys(out))
