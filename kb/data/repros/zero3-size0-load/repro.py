"""ZeRO-3 partitioned parameters are 0-element placeholders; a plain load_state_dict fails on every one of them.

What `deepspeed.zero.Init` does to each parameter is done here by hand, on CPU: the full tensor is flattened, padded
and split into one partition per rank (kept in `ds_tensor`, both ranks' partitions side by side in this process),
the full shape is kept in `ds_shape`, and the module is left holding an empty tensor. torch's own
`load_state_dict` then compares the checkpoint's shapes with `torch.Size([0])`.

--fix loads inside a gather, as `deepspeed.zero.GatheredParameters(params, modifier_rank=0)` does: the full tensors
are put back, the checkpoint is copied in, and leaving the block partitions them again; a second gather must give
back exactly the checkpoint's weights.
"""
import argparse
import contextlib

import torch
import torch.nn as nn

WORLD = 2
VOCAB, HIDDEN, INTER, LAYERS = 1024, 64, 128, 2


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(HIDDEN, HIDDEN)
        self.k_proj = nn.Linear(HIDDEN, HIDDEN)
        self.v_proj = nn.Linear(HIDDEN, HIDDEN)
        self.o_proj = nn.Linear(HIDDEN, HIDDEN, bias=False)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(HIDDEN, INTER, bias=False)
        self.up_proj = nn.Linear(HIDDEN, INTER, bias=False)
        self.down_proj = nn.Linear(INTER, HIDDEN, bias=False)


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn = Attention()
        self.mlp = MLP()
        self.input_layernorm = nn.LayerNorm(HIDDEN, bias=False)


class Qwen2Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList(DecoderLayer() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(HIDDEN, bias=False)


class TinyQwen2ForCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Qwen2Model()
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)


def partition(params):
    """Leave each parameter as ZeRO-3 does: its rank partitions aside, an empty tensor on the module."""
    for p in params:
        flat = p.data.detach().reshape(-1)
        per_rank = -(-flat.numel() // WORLD)
        padded = torch.cat([flat, flat.new_zeros(per_rank * WORLD - flat.numel())])
        p.ds_shape, p.ds_numel = p.data.shape, flat.numel()
        p.ds_tensor = [part.clone() for part in padded.split(per_rank)]
        p.data = torch.empty(0, dtype=flat.dtype, device=flat.device)


@contextlib.contextmanager
def gathered(params):
    """Full tensors inside the block (an all-gather of the partitions); partitioned again on leaving it."""
    params = list(params)
    for p in params:
        p.data = torch.cat(p.ds_tensor)[: p.ds_numel].view(p.ds_shape)
    try:
        yield
    finally:
        partition(params)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="load inside a gather")
    fix = parser.parse_args().fix

    torch.manual_seed(0)
    checkpoint = {k: v.clone() for k, v in TinyQwen2ForCausalLM().state_dict().items()}
    torch.manual_seed(1)
    model = TinyQwen2ForCausalLM()
    partition(model.parameters())
    emb = model.model.embed_tokens.weight
    print(f"partitioned over {WORLD} ranks: embed_tokens holds {tuple(emb.shape)} on the module, "
          f"ds_shape {tuple(emb.ds_shape)}, {emb.ds_tensor[0].numel()} elements per rank", flush=True)

    if not fix:
        model.load_state_dict(checkpoint)        # raises: every parameter is a 0-element placeholder
        return
    with gathered(model.parameters()):
        model.load_state_dict(checkpoint)
    with gathered(model.parameters()):
        state = model.state_dict()
        bad = [k for k, v in checkpoint.items() if not torch.equal(state[k], v)]
    if bad:
        raise SystemExit(f"weights differ from the checkpoint after the load: {bad}")
    print(f"repro-check: passed: all {len(checkpoint)} tensors equal the checkpoint after loading inside the gather",
          flush=True)


if __name__ == "__main__":
    main()
