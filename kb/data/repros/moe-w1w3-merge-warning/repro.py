"""MoE experts merged into `w1w3` while the checkpoint has `w1` / `w3`: "... w1w3 not in state_dict, loading ...".

A DeepSeek-style MoE checkpoint (separate w1, w3, w2 per expert) is written as four safetensors shards. The model
keeps each expert's gate and up projections merged in one `w1w3` parameter, as a sharded MoE trainer does for one
matmul instead of two. Its loader walks the model's parameters; when a name is not among the tensors read so far it
says so, reads the next shard file, and merges every complete w1/w3 pair into w1w3 = cat([w1, w3], dim=0).

The line is only the loader fetching the next file. --fix checks that it is harmless: every loaded w1w3 must equal
the concatenation of the checkpoint's own w1 and w3, and every w2 the checkpoint's w2.
"""
import argparse
import json
from pathlib import Path

import torch
import torch.nn as nn
from safetensors.torch import load_file, save_file

LAYERS, EXPERTS, HIDDEN, INTER, SHARDS = 2, 4, 16, 32, 4
PREFIX = "model.layers.{layer}.mlp.experts.{expert}."


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1w3 = nn.Parameter(torch.empty(2 * INTER, HIDDEN))
        self.w2 = nn.Parameter(torch.empty(HIDDEN, INTER))


class MoEBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = nn.ModuleList(Expert() for _ in range(EXPERTS))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = MoEBlock()


class TinyMoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Module()
        self.model.layers = nn.ModuleList(Layer() for _ in range(LAYERS))


def write_checkpoint(folder: Path) -> dict[str, torch.Tensor]:
    """The official layout: w1 / w3 / w2 per expert, spread over SHARDS files in parameter order."""
    torch.manual_seed(0)
    tensors = {}
    for layer in range(LAYERS):
        for expert in range(EXPERTS):
            p = PREFIX.format(layer=layer, expert=expert)
            tensors[p + "w1"] = torch.randn(INTER, HIDDEN)
            tensors[p + "w3"] = torch.randn(INTER, HIDDEN)
            tensors[p + "w2"] = torch.randn(HIDDEN, INTER)
    names = list(tensors)
    per_file = -(-len(names) // SHARDS)
    folder.mkdir(parents=True)
    index = {}
    for k in range(SHARDS):
        file = f"model-{k + 1:05d}-of-{SHARDS:05d}.safetensors"
        part = names[k * per_file:(k + 1) * per_file]
        save_file({n: tensors[n] for n in part}, str(folder / file))
        index.update({n: file for n in part})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"weight_map": index}))
    return tensors


def merge_experts(state: dict[str, torch.Tensor]) -> None:
    for name in [n for n in state if n.endswith(".w1")]:
        base = name[: -len("w1")]
        if base + "w3" in state:
            state[base + "w1w3"] = torch.cat([state.pop(base + "w1"), state.pop(base + "w3")], dim=0)


def load_lazily(model: nn.Module, folder: Path) -> None:
    files = sorted(set(json.loads((folder / "model.safetensors.index.json").read_text())["weight_map"].values()))
    unread = list(reversed(files))
    state: dict[str, torch.Tensor] = {}
    with torch.no_grad():
        for name, param in model.named_parameters():
            while name not in state:
                if not unread:
                    raise KeyError(f"{name} is in none of the checkpoint files")
                path = folder / unread.pop()
                print(f"{name} not in state_dict, loading {path}", flush=True)
                state.update(load_file(str(path)))
                merge_experts(state)
            param.copy_(state.pop(name))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="check the merged experts against the checkpoint")
    fix = parser.parse_args().fix

    folder = Path("deepseek-ai/DeepSeek-V2-Tiny")
    checkpoint = write_checkpoint(folder)
    model = TinyMoE()
    load_lazily(model, folder)
    print(f"loaded {LAYERS * EXPERTS} experts from {SHARDS} files", flush=True)
    if not fix:
        return
    params = dict(model.named_parameters())
    for layer in range(LAYERS):
        for expert in range(EXPERTS):
            p = PREFIX.format(layer=layer, expert=expert)
            want = torch.cat([checkpoint[p + "w1"], checkpoint[p + "w3"]], dim=0)
            if not torch.equal(params[p + "w1w3"], want) or not torch.equal(params[p + "w2"], checkpoint[p + "w2"]):
                raise SystemExit(f"{p}w1w3 / w2 differ from the checkpoint's w1, w3, w2")
    print(f"repro-check: passed: all {LAYERS * EXPERTS} merged w1w3 equal cat(w1, w3) of the checkpoint, "
          "and every w2 is intact", flush=True)


if __name__ == "__main__":
    main()
