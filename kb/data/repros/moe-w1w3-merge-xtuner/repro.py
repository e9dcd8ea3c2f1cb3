"""XTuner's own MoE loader on a tiny, randomly initialised DeepSeek-V2: "... w1w3 not in state_dict, loading ...".

A small DeepSeek-V2 (XTuner's bundled `DeepseekV2ForCausalLM`, two layers, the second one a mixture of 8 routed
experts and one shared expert) is built with `moe_implementation="origin"`, the layout of the official checkpoints:
every expert has its own gate_proj / up_proj / down_proj. `save_pretrained` writes it as several safetensors shards.

It is then loaded the way XTuner's shard mode loads DeepSeek-V2-Lite: `from_pretrained(..., moe_implementation=
"shard", expert_in_one_shard=2)`. That model keeps two experts per `ExpertShard`, with gate and up merged into one
`w1w3` parameter, and XTuner's `load_state_dict_into_model` fills it file by file: each merged name that is not in
the tensors read so far is announced with "<name> not in state_dict, loading <shard file>", the next file is read, and
`_merge_experts_weight` builds w1w3 / w2 from every complete group of experts.

--fix confirms the line is harmless: every `w1w3[i]` must equal cat(gate_proj, up_proj) of expert i of the
checkpoint, every `w2[i]` its down_proj, every other tensor must be the checkpoint's, and both models must give the
same logits (both in training mode: XTuner's shard MoE has no inference path; this config has no dropout).

XTuner's package `xtuner.model` imports its training wrappers (LLaVA, InternVL: peft, mmengine's visualisation,
OpenCV) before the model code; only the model package is needed here, so its two parent packages are registered
without running their `__init__`. The model and loader code that runs is XTuner's, unchanged.
"""
import argparse
import importlib.util
import os
import socket
import sys
import types
from pathlib import Path

import torch
import torch.distributed as dist

LAYERS, EXPERTS, PER_SHARD = 2, 8, 2
FOLDER = Path("deepseek-ai/DeepSeek-V2-Tiny")


def xtuner_deepseek_v2():
    """XTuner's DeepSeek-V2 package (config, model, loader) without running xtuner.model's own __init__."""
    spec = importlib.util.find_spec("xtuner")
    if spec is None:
        raise SystemExit("xtuner is not installed")
    root = Path(next(iter(spec.submodule_search_locations)))
    for name, rel in (("xtuner.model", "model"), ("xtuner.model.transformers_models", "model/transformers_models")):
        if name not in sys.modules:
            pkg = types.ModuleType(name)
            pkg.__path__ = [str(root / rel)]
            sys.modules[name] = pkg
    import xtuner.model.transformers_models.deepseek_v2 as ds
    return ds


def tiny_config(ds, **extra):
    return ds.DeepseekV2Config(
        vocab_size=256, hidden_size=32, intermediate_size=64, moe_intermediate_size=16, num_hidden_layers=LAYERS,
        num_attention_heads=2, num_key_value_heads=2, n_shared_experts=1, n_routed_experts=EXPERTS,
        kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8, v_head_dim=8, qk_nope_head_dim=8,
        topk_method="greedy", n_group=1, topk_group=1, num_experts_per_tok=2, first_k_dense_replace=1,
        max_position_embeddings=64, bos_token_id=0, eos_token_id=1, attn_implementation="eager", **extra)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(origin, shard) -> int:
    """Compare the shard-mode model with the checkpoint's model; returns the number of experts checked."""
    want = origin.state_dict()
    got = shard.state_dict()
    experts = 0
    for layer in range(LAYERS):
        prefix = f"model.layers.{layer}.mlp.experts."
        for s in range(EXPERTS // PER_SHARD):
            key = f"{prefix}{s}."
            if key + "w1w3" not in got:
                continue
            for i in range(PER_SHARD):
                e = f"{prefix}{s * PER_SHARD + i}."
                merged = torch.cat([want[e + "gate_proj.weight"], want[e + "up_proj.weight"]], dim=0)
                if not torch.equal(got[key + "w1w3"][i], merged):
                    raise SystemExit(f"{key}w1w3[{i}] != cat(gate_proj, up_proj) of {e[:-1]}")
                if not torch.equal(got[key + "w2"][i], want[e + "down_proj.weight"]):
                    raise SystemExit(f"{key}w2[{i}] != down_proj of {e[:-1]}")
                experts += 1
    others = [k for k in got if ".experts." not in k]
    bad = [k for k in others if not torch.equal(got[k], want[k])]
    if bad:
        raise SystemExit(f"tensors differ from the checkpoint: {bad}")
    return experts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="check the merged experts against the checkpoint")
    fix = parser.parse_args().fix

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    dist.init_process_group("gloo", rank=0, world_size=1)    # XTuner's loader prints through rank 0
    try:
        ds = xtuner_deepseek_v2()
        import transformers
        import xtuner
        print(f"xtuner {xtuner.__version__}, transformers {transformers.__version__}, torch {torch.__version__}",
              flush=True)
        torch.manual_seed(0)
        origin = ds.DeepseekV2ForCausalLM(tiny_config(ds)).eval()
        origin.save_pretrained(FOLDER, max_shard_size="40KB", safe_serialization=True)
        files = sorted(p.name for p in FOLDER.glob("*.safetensors"))
        print(f"checkpoint: {len(files)} safetensors files, experts as gate_proj / up_proj / down_proj", flush=True)

        shard = ds.DeepseekV2ForCausalLM.from_pretrained(FOLDER, moe_implementation="shard",
                                                         expert_in_one_shard=PER_SHARD,
                                                         attn_implementation="eager").eval()
        print(f"loaded with moe_implementation=shard, {PER_SHARD} experts per ExpertShard", flush=True)
        if not fix:
            return
        experts = check(origin, shard)
        ids = torch.randint(2, 256, (2, 12), generator=torch.Generator().manual_seed(1))
        origin.train(), shard.train()       # XTuner's ExpertShard runs in training mode only (no dropout here)
        with torch.no_grad():
            a, b = origin(ids).logits, shard(ids).logits
        if not torch.allclose(a, b, atol=1e-5, rtol=1e-4):
            raise SystemExit(f"logits differ: max |diff| {(a - b).abs().max().item():.3g}")
        print(f"repro-check: passed: XTuner's shard-mode load gives w1w3 = cat(gate_proj, up_proj) and w2 = "
              f"down_proj for all {experts} experts, every other tensor equals the checkpoint, and the logits match "
              f"the checkpoint's model (max |diff| {(a - b).abs().max().item():.2g})", flush=True)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
