"""Real DeepSpeed ZeRO-3 on one CUDA GPU: a model built under `deepspeed.zero.Init`, then a plain load_state_dict.

The checkpoint comes from the same small Qwen2-shaped model built without ZeRO. Under `zero.Init` every parameter is
partitioned as it is created and the module keeps a 0-element tensor, so torch's load_state_dict reports
"the shape in current model is torch.Size([0])" for each one.

--fix copies the checkpoint in inside `deepspeed.zero.GatheredParameters(params, modifier_rank=0)`; gathering again
afterwards must give exactly the checkpoint's weights.
"""
import argparse
import os
import socket

import deepspeed
import torch
import torch.nn as nn

VOCAB, HIDDEN = 1024, 64
DS_CONFIG = {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 3}}


class Qwen2Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList(nn.Linear(HIDDEN, HIDDEN) for _ in range(2))
        self.norm = nn.LayerNorm(HIDDEN, bias=False)


class TinyQwen2ForCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Qwen2Model()
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="load inside GatheredParameters")
    fix = parser.parse_args().fix

    os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    deepspeed.init_distributed(dist_backend="nccl")
    torch.cuda.set_device(0)
    torch.manual_seed(0)
    checkpoint = {k: v.clone() for k, v in TinyQwen2ForCausalLM().state_dict().items()}
    with deepspeed.zero.Init(config_dict_or_path=DS_CONFIG):
        model = TinyQwen2ForCausalLM()
    emb = model.model.embed_tokens.weight
    print(f"deepspeed {deepspeed.__version__}, {torch.cuda.get_device_name(0)}: embed_tokens holds "
          f"{tuple(emb.shape)} on the module, ds_shape {tuple(emb.ds_shape)}", flush=True)

    if not fix:
        model.load_state_dict(checkpoint)        # raises: every parameter is a 0-element placeholder
        return
    params = list(model.parameters())
    with deepspeed.zero.GatheredParameters(params, modifier_rank=0):
        model.load_state_dict(checkpoint)
    with deepspeed.zero.GatheredParameters(params):
        state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    bad = [k for k, v in checkpoint.items() if not torch.equal(state[k], v)]
    if bad:
        raise SystemExit(f"weights differ from the checkpoint after the load: {bad}")
    print(f"repro-check: passed: all {len(checkpoint)} tensors equal the checkpoint after loading inside "
          "GatheredParameters (real ZeRO-3)", flush=True)


if __name__ == "__main__":
    main()
