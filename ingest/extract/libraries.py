"""The libraries a text names, by canonical name."""
from __future__ import annotations

import re

# canonical name → regex of the ways it is written. Ambiguous English words (accelerate, tokenizers, apex, trl)
# only count in a library context: capitalised, backticked, imported, pinned, or followed by `'s` / `.`.
LIBRARIES: dict[str, str] = {
    "torch": r"\btorch(?:run)?\b|\bpytorch(?![- ]lightning)\b|\bFSDP\d?\b|\bDDP\b|\bDistributedDataParallel\b|"
             r"\bFullyShardedDataParallel\b",
    "deepspeed": r"\bdeep[-_ ]?speed\b|\bZeRO[- ]?(?:stage[- ]?)?[123]\b|\bZeRO-(?:Offload|Infinity)\b",
    "transformers": r"(?<![-\w])transformers\b|\bHF Trainer\b|\bfrom_pretrained\b",
    "accelerate": r"\bAccelerate\b(?!d)|`accelerate`|\baccelerate(?:'s|\.|==| launch| config)|"
                  r"(?:from|import|install) accelerate\b",
    "peft": r"\bpeft\b|\bPeftModel\w*\b|\bAutoPeft\w*",
    "trl": r"\bTRL\b|`trl`|\btrl(?:\.|==)|(?:from|import|install) trl\b|\b(?:SFT|DPO|GRPO|PPO)Trainer\b",
    "vllm": r"\bvllm\b",
    "megatron": r"\bmegatron\b",
    "colossalai": r"\bcolossal[-_ ]?ai\b",
    "nccl": r"\bnccl\b",
    "flash-attn": r"\bflash[-_]attn\b|\bflash[-_ ]?attention[-_ ]?2?\b",
    "bitsandbytes": r"\bbitsandbytes\b|\bbnb\b",
    "liger-kernel": r"\bliger[-_ ]?kernel\b|\bliger\b",
    "lightning": r"\b(?:pytorch[- ])?lightning\b",
    "safetensors": r"\bsafetensors?\b",
    "sentence-transformers": r"\bsentence[-_]transformers\b",
    "tokenizers": r"`tokenizers`|\btokenizers(?:==|\.)|(?:from|import|install) tokenizers\b|\bTokenizers\b",
    "llama-factory": r"\bllama[-_ ]?factory\b",
    "nanotron": r"\bnanotron\b",
    "xformers": r"\bxformers\b",
    "apex": r"\bNVIDIA Apex\b|\bapex\.\w+|(?:from|import|install) apex\b|`apex`|\bApex\b",
    "cuda": r"\bcuda\b",
    "diffusers": r"\bdiffusers\b",
    "torchtune": r"\btorchtune\b",
    "xtuner": r"\bxtuner\b",
    "unsloth": r"\bunsloth\b",
    "triton": r"\btriton\b",
    "nemo": r"\bnemo\b",
    "lmdeploy": r"\blmdeploy\b",
    "sglang": r"\bsglang\b",
    "axolotl": r"\baxolotl\b",
    "jax": r"\bjax\b",
}
_CASE_SENSITIVE = {"accelerate", "trl", "tokenizers", "apex"}
# re.ASCII: a CJK character next to a name is a word boundary (`XTuner训练中`, `在LLaMA Factory中`).
LIB_RX = {name: re.compile(rx, re.A if name in _CASE_SENSITIVE else re.A | re.I) for name, rx in LIBRARIES.items()}


def find_libraries(text: str) -> list[str]:
    """Canonical names of the libraries `text` names, in table order."""
    return [name for name, rx in LIB_RX.items() if rx.search(text)]
