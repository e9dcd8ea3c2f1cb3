"""FSDP-1 with lm_head left to the root unit, and its weight read outside any FSDP forward (fused linear + CE).

Two ranks (torch.multiprocessing; gloo on CPU, or nccl on GPUs with --backend nccl) wrap a small decoder with
FullyShardedDataParallel (use_orig_params=True, as accelerate sets it): the embedding and every decoder block are
units of their own, lm_head belongs to the root. The root's forward returns hidden states; the loss is then computed
the way a fused linear-cross-entropy kernel does it, chunk by chunk against `lm_head.weight`, outside the forward.
There the weight is this rank's 1-D slice of the root's flat parameter (vocab * hidden / world elements), and
`chunk @ weight.t()` fails with "size mismatch, got input (2), mat (2xH), vec (V*H/world)".

--fix wraps lm_head as an FSDP unit of its own and runs the fused loss through that unit's forward, so FSDP gathers
the full [vocab, hidden] weight first; every rank's loss must equal the loss of an unsharded copy of the same model.
"""
import argparse
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import ModuleWrapPolicy

VOCAB, HIDDEN, LAYERS, TOKENS, CHUNK = 512, 64, 2, 8, 2


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(HIDDEN, elementwise_affine=False)
        self.fc = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, x):
        return x + torch.tanh(self.fc(self.norm(x)))


def fused_linear_cross_entropy(hidden, weight, labels):
    """Cross-entropy of hidden @ weight.T without materialising all logits at once (chunk by chunk)."""
    total = hidden.new_zeros(())
    for start in range(0, hidden.shape[0], CHUNK):
        logits_chunk = hidden[start:start + CHUNK] @ weight.t()
        total = total + F.cross_entropy(logits_chunk, labels[start:start + CHUNK], reduction="sum")
    return total / hidden.shape[0]


class LMHead(nn.Linear):
    def forward(self, hidden, labels=None):
        if labels is None:
            return super().forward(hidden)
        return fused_linear_cross_entropy(hidden, self.weight, labels)


class TinyLlamaForCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList(DecoderLayer() for _ in range(LAYERS))
        self.lm_head = LMHead(HIDDEN, VOCAB, bias=False)

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        for layer in self.layers:
            x = layer(x)
        return x


def run(rank: int, world: int, port: int, backend: str, fix: bool) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group(backend, rank=rank, world_size=world)
    device = torch.device("cuda", rank) if backend == "nccl" else torch.device("cpu")
    if backend == "nccl":
        torch.cuda.set_device(device)
    try:
        torch.manual_seed(0)
        model = TinyLlamaForCausalLM().to(device)
        ids = torch.randint(0, VOCAB, (TOKENS,), generator=torch.Generator().manual_seed(1)).to(device)
        labels = torch.roll(ids, -1)
        with torch.no_grad():
            reference = fused_linear_cross_entropy(model(ids), model.lm_head.weight, labels).item()
        units = {nn.Embedding, DecoderLayer} | ({LMHead} if fix else set())
        sharded = FSDP(model, auto_wrap_policy=ModuleWrapPolicy(units), use_orig_params=True, device_id=device)
        hidden = sharded(ids)
        if fix:
            loss = sharded.lm_head(hidden, labels)          # inside the head unit's forward: full weight
        else:
            loss = fused_linear_cross_entropy(hidden, model.lm_head.weight, labels)   # outside any forward
        loss.backward()
        if abs(loss.item() - reference) > 1e-5:
            raise SystemExit(f"rank {rank}: sharded loss {loss.item():.6f} != unsharded {reference:.6f}")
        print(f"rank {rank}: loss {loss.item():.6f} equals the unsharded reference {reference:.6f}", flush=True)
        dist.barrier()
        if rank == 0:
            print(f"repro-check: passed: with lm_head as its own FSDP unit, the fused loss on {world} ranks equals "
                  "the unsharded loss and backward runs", flush=True)
    finally:
        dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="wrap lm_head as its own FSDP unit")
    parser.add_argument("--backend", choices=["gloo", "nccl"], default="gloo")
    args = parser.parse_args()
    world = int(os.environ.get("TRIAGE_REPRO_WORLD_SIZE", "2"))
    # fork saves each CPU rank a torch import; CUDA ranks are spawned fresh
    mp.start_processes(run, args=(world, free_port(), args.backend, args.fix), nprocs=world,
                       start_method="spawn" if args.backend == "nccl" else "fork")


if __name__ == "__main__":
    main()
