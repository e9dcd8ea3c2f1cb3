"""ColossalAI's own tensor-parallel save with a vocabulary that tp x make_vocab_size_divisible_by does not divide.

Two ranks (one CUDA GPU each, NCCL) boost a tiny Llama (transformers' LlamaForCausalLM) whose vocabulary is Llama's
32000 plus two added tokens, 32002, with `HybridParallelPlugin(tp_size=2, make_vocab_size_divisible_by=64)`.
Shardformer pads the vocab to a multiple of 64 x 2 = 128, i.e. 32128 rows, 16064 on each rank. After one training
step `booster.save_optimizer` gathers each optimizer state over the tp group and first works out the split from the
parameter's original shape and its local one: 32002 is not 2 x 16064, so ColossalAI's `search_tp_partition_dim`
asserts "The parameter isn't evenly distributed among tensor parallel group: shape before sharding
torch.Size([32002, 32]), shape after sharding torch.Size([16064, 32])" (the seed's [128256, 4096] / [16064, 4096]
at tp=8).

--fix sets make_vocab_size_divisible_by=1: 1 x 2 divides 32002, nothing is padded, each rank holds 16001 rows; the
model and optimizer saves must then succeed, and the saved embed_tokens, lm_head and their Adam moments must be
[32002, 32] and load into an unsharded model.

Tensor parallelism needs a CUDA device: ColossalAI's CPU accelerator cannot build its vocab-parallel embedding (it
raises "this method is not supported for cpu accelerator"). NCCL refuses two ranks on one GPU, so `--backend gloo`
puts both ranks on the one GPU there is and lets gloo carry the CUDA tensors through host memory. `colossalai.launch`
always initialises the accelerator's own backend (NCCL on CUDA), so in that mode the script initialises the process
group itself and binds every rank to cuda:0; the plugin, Shardformer and the checkpoint code are ColossalAI's own.
"""
import argparse
import glob
import os
import socket

import torch
import torch.multiprocessing as mp

VOCAB, HIDDEN, TP = 32002, 32, 2


def run(rank: int, world: int, port: int, divisible_by: int, backend: str) -> None:
    import colossalai
    from colossalai.booster import Booster
    from colossalai.booster.plugin import HybridParallelPlugin
    from transformers import LlamaConfig, LlamaForCausalLM

    if backend == "nccl":
        colossalai.launch(rank=rank, world_size=world, host="127.0.0.1", port=port, backend="nccl", local_rank=rank,
                          verbose=False)
    else:                                   # every rank on the one GPU; launch() would insist on NCCL
        from colossalai.utils import set_seed
        torch.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                             world_size=world)
        torch.cuda.set_device(0)
        set_seed(1024)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    plugin = HybridParallelPlugin(tp_size=TP, pp_size=1, zero_stage=0, precision="fp32",
                                  make_vocab_size_divisible_by=divisible_by)
    booster = Booster(plugin=plugin)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer, *_ = booster.boost(model, optimizer)
    local = model.unwrap().model.embed_tokens.weight.shape
    if rank == 0:
        print(f"colossalai {colossalai.__version__}, torch {torch.__version__}, {backend} x {world} ranks on "
              f"{torch.cuda.get_device_name()}: vocab {VOCAB}, tp {TP}, make_vocab_size_divisible_by "
              f"{divisible_by}: embed_tokens holds {tuple(local)} on each rank", flush=True)
    ids = torch.randint(0, VOCAB, (2, 16), generator=torch.Generator().manual_seed(1)).cuda()
    loss = model(input_ids=ids, labels=ids).loss
    booster.backward(loss, optimizer)
    optimizer.step()
    optimizer.zero_grad()
    booster.save_model(model, "ckpt-model", shard=True)
    booster.save_optimizer(optimizer, "ckpt-optim", shard=True)     # gathers states over tp: asserts when uneven
    torch.distributed.barrier()
    if rank == 0:
        check(config)


def check(config) -> None:
    from safetensors.torch import load_file
    from transformers import LlamaForCausalLM

    state = {}
    for path in sorted(glob.glob("ckpt-model/*.safetensors")) + sorted(glob.glob("ckpt-model/*.bin")):
        state.update(load_file(path) if path.endswith(".safetensors") else torch.load(path, map_location="cpu"))
    for name in ("model.embed_tokens.weight", "lm_head.weight"):
        if tuple(state[name].shape) != (VOCAB, HIDDEN):
            raise SystemExit(f"saved {name} is {tuple(state[name].shape)}, expected {(VOCAB, HIDDEN)}")
    moments = 0
    for path in glob.glob("ckpt-optim/*.bin") + glob.glob("ckpt-optim/*.safetensors"):
        if "index" in os.path.basename(path):
            continue
        shard = load_file(path) if path.endswith(".safetensors") else torch.load(path, map_location="cpu")
        for value in (shard.get("state", shard) if isinstance(shard, dict) else {}).values():
            for key in ("exp_avg", "exp_avg_sq"):
                t = value.get(key) if isinstance(value, dict) else None
                if t is not None and t.dim() == 2 and t.shape[1] == HIDDEN and t.shape[0] >= VOCAB // TP - 100:
                    if tuple(t.shape) != (VOCAB, HIDDEN):
                        raise SystemExit(f"saved optimizer {key} is {tuple(t.shape)}, expected {(VOCAB, HIDDEN)}")
                    moments += 1
    if moments < 4:                 # exp_avg and exp_avg_sq of embed_tokens and lm_head
        raise SystemExit(f"found {moments} vocab-sized Adam moments in the optimizer checkpoint, expected 4")
    fresh = LlamaForCausalLM(config)
    missing, unexpected = fresh.load_state_dict(state, strict=False)
    if [m for m in missing if "rotary" not in m] or unexpected:
        raise SystemExit(f"saved model does not load: missing {missing}, unexpected {unexpected}")
    print(f"repro-check: passed: saved embed_tokens and lm_head are ({VOCAB}, {HIDDEN}), {moments} vocab-sized "
          "Adam moments too, and the checkpoint loads into an unsharded model", flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="make_vocab_size_divisible_by=1")
    parser.add_argument("--backend", choices=["nccl", "gloo"], default="nccl",
                        help="nccl: a GPU per rank; gloo: all ranks share the one GPU")
    args = parser.parse_args()
    world = TP if args.backend == "gloo" else int(os.environ.get("TRIAGE_REPRO_WORLD_SIZE", str(TP)))
    mp.start_processes(run, args=(world, free_port(), 1 if args.fix else 64, args.backend), nprocs=world,
                       start_method="spawn")


if __name__ == "__main__":
    main()
