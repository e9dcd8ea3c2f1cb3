"""Tensor-parallel vocab padding: 128256 rows over tp=8 with make_vocab_size_divisible_by=64.

The embedding of Llama-3's real vocabulary (128256 rows; a small hidden size keeps it at a few MB) is handled the way
a shardformer-style plugin does: the vocab is padded up to a multiple of `make_vocab_size_divisible_by * tp`
(64 * 8 = 512, so 128512 rows) and split into tp row blocks of 16064. Saving then works out how the parameter was
split from its original (unpadded) shape and one rank's local shape, and requires original == tp * local; 128256 is
not 8 * 16064, so the save stops with "isn't evenly distributed".

--fix sets make_vocab_size_divisible_by=32: 32 * 8 = 256 divides 128256, so nothing is padded, each rank holds 16032
rows, and the gathered embedding must be [128256, hidden] and equal the original weights.
"""
import argparse

import torch
import torch.nn.functional as F

VOCAB, HIDDEN, TP = 128256, 16, 8


def padded_vocab(vocab: int, divisible_by: int, tp: int) -> int:
    multiple = divisible_by * tp
    return -(-vocab // multiple) * multiple


def partition_dim(local: torch.Size, original: torch.Size, tp: int):
    """The dim a tensor-parallel parameter was split along, judged from its shapes when it is saved."""
    for dim, length in enumerate(original):
        if length > local[dim]:
            assert original[dim] == tp * local[dim], (
                "The parameter isn't evenly distributed among tensor parallel group: "
                f"shape before sharding {original}, shape after sharding {local}")
            return dim
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="make_vocab_size_divisible_by=32")
    divisible_by = 32 if parser.parse_args().fix else 64

    torch.manual_seed(0)
    weight = torch.randn(VOCAB, HIDDEN)
    rows = padded_vocab(VOCAB, divisible_by, TP)
    shards = [s.clone() for s in F.pad(weight, (0, 0, 0, rows - VOCAB)).chunk(TP, dim=0)]
    print(f"vocab {VOCAB} padded to {rows} (make_vocab_size_divisible_by={divisible_by} x tp={TP}): "
          f"{shards[0].shape[0]} rows on each rank", flush=True)

    dim = partition_dim(shards[0].shape, weight.shape, TP)   # raises for uneven shards
    saved = torch.cat(shards, dim=dim)                       # what the all-gather over the tp group returns
    if saved.shape != weight.shape or not torch.equal(saved, weight):
        raise SystemExit(f"saved embed_tokens is {tuple(saved.shape)}, expected {tuple(weight.shape)}")
    print(f"repro-check: passed: saved embed_tokens {tuple(saved.shape)} equals the unsharded weights "
          f"({TP} even shards of {shards[0].shape[0]} rows)", flush=True)


if __name__ == "__main__":
    main()
