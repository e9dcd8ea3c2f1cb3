"""Files of a few flat arrays that a process maps from disk instead of loading them.

Layout: a header (8-byte magic, format, length of what follows), small settings marshalled, then each array's bytes,
aligned to 64 bytes. The int8 encoder's tokenizer (kb.index.encoder.unigram) and jieba's word table (kb.index.han)
are such files: a one-shot command reads the few rows it needs instead of building a dict of every entry.
"""
from __future__ import annotations

import marshal
import mmap
import os
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np

_HEAD = struct.Struct("<8sIQ")   # magic, format, length of the marshalled settings that follow
_ALIGN = 64


def write(path: Path, magic: bytes, fmt: int, settings: dict, arrays: list[np.ndarray]) -> None:
    """Write the file atomically: a reader never sees half of it."""
    blob = marshal.dumps(settings)
    parts = [_HEAD.pack(magic, fmt, len(blob)), blob]
    for array in arrays:
        used = sum(map(len, parts))
        parts += [b"\0" * (-used % _ALIGN), array.tobytes()]
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(b"".join(parts))
    os.replace(tmp, path)


def read(path: Path, magic: bytes, fmt: int, what: str,
         layout: Callable[[dict], list[tuple[np.dtype | str | type, int]]]) -> tuple[dict, list[np.ndarray]]:
    """The settings and the arrays (mapped, read-only) of a file `write` made; `layout(settings)` gives each array's
    dtype and length. Raises ValueError on another kind of file or format (`what` names the kind)."""
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    if len(mm) < _HEAD.size:
        raise ValueError(f"{path}: not a {what} file")
    got_magic, got_fmt, size = _HEAD.unpack_from(mm)
    if got_magic != magic or got_fmt != fmt:
        raise ValueError(f"{path}: {what} format {got_fmt if got_magic == magic else '?'}, expected {fmt}")
    settings = marshal.loads(mm[_HEAD.size:_HEAD.size + size])
    offset = _HEAD.size + size
    arrays = []
    for dtype, count in layout(settings):
        offset += -offset % _ALIGN
        array = np.frombuffer(mm, dtype=dtype, count=count, offset=offset)   # keeps the map open
        arrays.append(array)
        offset += array.nbytes
    return settings, arrays
