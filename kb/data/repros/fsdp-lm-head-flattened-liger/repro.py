"""FSDP-1 with lm_head on the root unit and Liger's fused linear cross-entropy on one CUDA GPU.

The real kernel: `liger_kernel.transformers.LigerFusedLinearCrossEntropyLoss`, the loss LLaMA-Factory and Liger's
model patches use instead of `lm_head(hidden)` followed by cross-entropy. It takes `lm_head.weight` itself and
multiplies it chunk by chunk (`_input_chunk @ weight.t()`), so it reads the weight outside any FSDP forward.

Why two ranks on one GPU: at world size 1 FSDP-1 does not shard at all. It switches every unit to NO_SHARD ("FSDP is
switching to use `NO_SHARD` instead of ... since the world size is 1"), the root's parameters keep their 2-D views,
and the fused loss works; `--ranks 1 --backend nccl` shows that. A 1-D shard needs a world of at least two, and NCCL
refuses two ranks on one device, so the two ranks here share the GPU through gloo (which moves CUDA tensors through
host memory). FSDP, its flat parameters and the Liger kernel are the same as under NCCL on two GPUs.

The model: embedding and decoder blocks wrapped as FSDP units (`use_orig_params=True`, as accelerate sets it),
lm_head left to the root. Outside the forward, `lm_head.weight` is this rank's 1-D slice of the root's flat
parameter (vocab * hidden / ranks elements), and Liger's chunk matmul fails: on CUDA, Liger 0.8.5 multiplies with
`torch.mm(..., out=...)`, which says "mat2 must be a matrix"; its torch path (and older Liger, as in the seed) uses
`@`, which says "size mismatch, got input (C), mat (CxH), vec (V*H/ranks)".

--fix checks two fixes. FSDP-1 with lm_head as an FSDP unit of its own and Liger's loss inside that unit's forward, so
FSDP gathers the full [vocab, hidden] weight first; and FSDP2 (`fully_shard`) with lm_head left on the root and the
loss outside the forward as before: FSDP2 keeps the root's parameters unsharded from its forward until backward. Each
rank's loss must equal Liger's loss on an unsharded copy of the model, and backward must run.

--cpu runs the failing path on CPU ranks: Liger's `fused_linear_cross_entropy_forward` does the chunk matmul in
torch before it launches its first Triton kernel, so the failure (not the fix) reproduces without a GPU.
"""
import argparse
import os
import socket
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import ShardingStrategy
from torch.distributed.fsdp.wrap import ModuleWrapPolicy

VOCAB, HIDDEN, LAYERS, TOKENS = 1024, 64, 2, 16


def fused_loss():
    from liger_kernel.transformers import LigerFusedLinearCrossEntropyLoss
    return LigerFusedLinearCrossEntropyLoss()


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(HIDDEN, elementwise_affine=False)
        self.fc = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, x):
        return x + torch.tanh(self.fc(self.norm(x)))


class LMHead(nn.Linear):
    """lm_head; given labels it returns Liger's fused loss on its own weight (inside its forward)."""

    def forward(self, hidden, labels=None):
        if labels is None:
            return super().forward(hidden)
        return fused_loss()(self.weight, hidden, labels)


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


def run(rank: int, world: int, port: int, backend: str, fix: bool, on_cpu: bool) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    if on_cpu:
        device = torch.device("cpu")
    else:
        device = torch.device("cuda", rank % torch.cuda.device_count())
        torch.cuda.set_device(device)
    dist.init_process_group(backend, rank=rank, world_size=world)
    try:
        import liger_kernel
        import triton
        if rank == 0:
            print(f"torch {torch.__version__}, liger-kernel {_version('liger-kernel')}, triton {triton.__version__}, "
                  f"{backend} x {world} rank(s) on {'CPU' if on_cpu else torch.cuda.get_device_name(device)}",
                  flush=True)
        del liger_kernel
        torch.manual_seed(0)
        model = TinyLlamaForCausalLM().to(device)
        ids = torch.randint(0, VOCAB, (TOKENS,), generator=torch.Generator().manual_seed(1)).to(device)
        labels = torch.roll(ids, -1)
        reference = None
        if not on_cpu:              # Liger's loss itself is a Triton kernel: on CPU only the failing path runs
            with torch.no_grad():
                reference = fused_loss()(model.lm_head.weight, model(ids), labels).item()
        units = {nn.Embedding, DecoderLayer} | ({LMHead} if fix else set())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sharded = FSDP(model, auto_wrap_policy=ModuleWrapPolicy(units), use_orig_params=True, device_id=device,
                           sharding_strategy=ShardingStrategy.FULL_SHARD)
        if rank == 0:
            for w in caught:
                if "NO_SHARD" in str(w.message):
                    print(f"FSDP warned: {str(w.message).splitlines()[0]}", flush=True)
                    break
        hidden = sharded(ids)
        weight = model.lm_head.weight
        if rank == 0:
            print(f"sharding strategy in effect: {sharded.sharding_strategy.name}; outside the forward "
                  f"lm_head.weight is {weight.dim()}-D {tuple(weight.shape)}", flush=True)
        if fix:
            loss = sharded.lm_head(hidden, labels)          # inside the head unit's forward: full weight
        else:
            loss = fused_loss()(weight, hidden, labels)     # outside any forward, as the fused loss patch does
        if reference is None:
            raise SystemExit(f"rank {rank}: on CPU the fused loss ran past the point where it fails on a sharded "
                             "lm_head; the rest of it needs a GPU")
        loss.backward()
        if abs(loss.item() - reference) > 1e-4:
            raise SystemExit(f"rank {rank}: sharded loss {loss.item():.6f} != unsharded {reference:.6f}")
        print(f"rank {rank}: Liger fused loss {loss.item():.6f} equals the unsharded reference {reference:.6f}",
              flush=True)
        if fix:
            fsdp2(rank, device, ids, labels, reference)
        dist.barrier()
        if rank == 0 and fix:
            print(f"repro-check: passed: with lm_head as its own FSDP unit, and under FSDP2 with lm_head on the root, "
                  f"Liger's fused linear cross-entropy on {world} ranks equals the unsharded loss and backward runs",
                  flush=True)
    finally:
        dist.destroy_process_group()


def fsdp2(rank: int, device, ids, labels, reference: float) -> None:
    """The other fix: FSDP2 (`fully_shard`) keeps the root's parameters unsharded from its forward until backward,
    so lm_head.weight on the root is the full 2-D matrix when the fused loss reads it after the forward."""
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = TinyLlamaForCausalLM().to(device)
    for unit in (model.embed_tokens, *model.layers):
        fully_shard(unit)
    fully_shard(model)
    hidden = model(ids)
    weight = model.lm_head.weight
    if rank == 0:
        print(f"FSDP2: outside the forward lm_head.weight is {type(weight).__name__} {tuple(weight.shape)}",
              flush=True)
    loss = fused_loss()(weight, hidden, labels)
    loss.backward()
    if abs(loss.item() - reference) > 1e-4:
        raise SystemExit(f"rank {rank}: FSDP2 loss {loss.item():.6f} != unsharded {reference:.6f}")
    print(f"rank {rank}: FSDP2, Liger fused loss {loss.item():.6f} equals the unsharded reference", flush=True)


def _version(name: str) -> str:
    from importlib.metadata import version
    return version(name)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="wrap lm_head as its own FSDP unit")
    parser.add_argument("--backend", choices=["gloo", "nccl"], default="gloo")
    parser.add_argument("--ranks", type=int, default=2, help="processes (they share the GPUs there are)")
    parser.add_argument("--cpu", action="store_true",
                        help="CPU ranks (gloo): Liger's Python code up to the failing matmul, which comes before its "
                             "first Triton kernel; the fix and the reference loss need a GPU")
    args = parser.parse_args()
    if args.cpu and (args.fix or args.backend != "gloo"):
        raise SystemExit("--cpu runs the failing path only, over gloo: Liger's loss is a Triton kernel (GPU)")
    if not args.cpu and not torch.cuda.is_available():
        raise SystemExit("needs a CUDA GPU (Liger's kernels are Triton kernels)")
    mp.start_processes(run, args=(args.ranks, free_port(), args.backend, args.fix, args.cpu), nprocs=args.ranks,
                       start_method="spawn")


if __name__ == "__main__":
    main()
