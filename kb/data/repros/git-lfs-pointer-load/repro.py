"""A weights file that is a Git LFS pointer (about 130 bytes of text) loaded as a checkpoint.

A small state dict is stored the way Git LFS stores it: the content in the local object store under its sha256
(`.git/lfs/objects/ab/cd/<oid>`), and in the working tree a pointer file (`version https://git-lfs.github.com/spec/v1`,
`oid sha256:...`, `size ...`), as a clone made without git-lfs leaves it. Loading the pointer with the pickle reader
(torch.load without weights_only, the default before torch 2.6) reads the first byte `v` as an opcode:
"invalid load key, 'v'.".

--fix does what `git lfs pull` does for an object already fetched: each pointer is replaced by its object after the
object's sha256 and size are checked against the pointer; the loaded tensors must equal the saved ones.
"""
import argparse
import hashlib
import io
from pathlib import Path

import torch

POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n"


def store(repo: Path, data: bytes) -> str:
    oid = hashlib.sha256(data).hexdigest()
    obj = repo / ".git" / "lfs" / "objects" / oid[:2] / oid[2:4] / oid
    obj.parent.mkdir(parents=True)
    obj.write_bytes(data)
    return oid


def lfs_pull(repo: Path, path: Path) -> None:
    fields = dict(line.split(" ", 1) for line in path.read_text().splitlines())
    oid = fields["oid"].removeprefix("sha256:")
    data = (repo / ".git" / "lfs" / "objects" / oid[:2] / oid[2:4] / oid).read_bytes()
    if hashlib.sha256(data).hexdigest() != oid or len(data) != int(fields["size"]):
        raise SystemExit(f"object {oid} does not match its pointer")
    path.write_bytes(data)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="replace pointers by their objects (git lfs pull)")
    fix = parser.parse_args().fix

    torch.manual_seed(0)
    weights = {"encoder.weight": torch.randn(8, 8), "encoder.bias": torch.randn(8)}
    buf = io.BytesIO()
    torch.save(weights, buf)
    repo = Path("face-parsing")
    oid = store(repo, buf.getvalue())
    path = repo / "weights" / "model.pth"
    path.parent.mkdir(parents=True)
    path.write_text(POINTER.format(oid=oid, size=len(buf.getvalue())))
    print(f"{path}: {path.stat().st_size} bytes, starts with {path.read_bytes()[:40]!r}", flush=True)

    if fix:
        lfs_pull(repo, path)
        print(f"{path}: {path.stat().st_size} bytes after git lfs pull", flush=True)
    loaded = torch.load(path, map_location="cpu", weights_only=False)   # raises on a pointer file
    if loaded.keys() != weights.keys() or not all(torch.equal(loaded[k], weights[k]) for k in weights):
        raise SystemExit("loaded tensors differ from the saved ones")
    print(f"repro-check: passed: after replacing the pointer by its object, torch.load returns the {len(weights)} "
          "saved tensors", flush=True)


if __name__ == "__main__":
    main()
