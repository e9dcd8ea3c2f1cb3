"""FAISS index over chunk embeddings (inner product on L2-normalised vectors = cosine).

The index type is chosen by size (`choose`):

* up to `EXACT_MAX` vectors, exact search (`IndexFlatIP`): a query scans them all in a few milliseconds, as one
  matrix-vector product over vectors.npy (the same rows), without importing FAISS;
* beyond, an inverted file over 4-bit scalar-quantised vectors (`IndexIVFScalarQuantizer`, 192 bytes a vector at
  384 dimensions: 1M chunks take ~190 MB instead of 1.5 GB). The quantised scores only choose candidates: each
  search takes max(k, `CANDIDATES`) of them and re-scores them exactly against `vectors.npy`, read with positioned
  reads (not memory-mapped, so the float32 vectors never become part of the process's memory; ~5 us a row).
  Scores are therefore exact cosines, and recall@10 against exhaustive search stays >= 0.95 (bench/ measures it).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from kb.index.store import VECTORS

INDEX_FILE = "dense.faiss"
EXACT_MAX = 20_000              # 20k x 384 float32 = 30 MB, scanned in ~2 ms per query on one core
CANDIDATES = 100                # at least this many candidates from the quantised index are re-scored exactly
NPROBE = 64                     # inverted lists visited per query (6% of them at 1M vectors; recall@10 ~0.98)
_ADD_BATCH = 65_536             # vectors converted and added at a time, so a memory-mapped input is never copied whole


def choose(n: int) -> dict:
    """The index an `n`-vector KB gets: {"kind": "flat"} or {"kind": "ivf-sq4", "nlist", "nprobe"}."""
    if n <= EXACT_MAX:
        return {"kind": "flat"}
    nlist = int(math.sqrt(n))   # ~1000 lists at 1M: training stays in seconds, a list holds ~1000 vectors
    return {"kind": "ivf-sq4", "nlist": nlist, "nprobe": min(NPROBE, nlist)}


def build(vectors: np.ndarray, gen: Path) -> dict:
    """Build the index for `vectors` (rows in chunk-row order; may be memory-mapped) into `gen`; returns the
    choice made (see `choose`)."""
    import faiss

    n, dim = vectors.shape
    plan = choose(n)
    if plan["kind"] == "flat":
        index = faiss.IndexFlatIP(dim)
    else:
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFScalarQuantizer(quantizer, dim, plan["nlist"], faiss.ScalarQuantizer.QT_4bit,
                                              faiss.METRIC_INNER_PRODUCT)
        # ~40 points per list is what k-means needs; sorted rows read a memory-mapped input front to back.
        sample = np.sort(np.random.default_rng(0).choice(n, min(n, 40 * plan["nlist"]), replace=False))
        index.train(np.ascontiguousarray(vectors[sample], dtype=np.float32))
        index.nprobe = plan["nprobe"]
    for start in range(0, n, _ADD_BATCH):
        index.add(np.ascontiguousarray(vectors[start:start + _ADD_BATCH], dtype=np.float32))
    faiss.write_index(index, str(gen / INDEX_FILE))
    return plan


class _RowReader:
    """Exact vectors of chosen rows of a .npy file, by positioned reads (thread-safe, no shared file offset)."""

    def __init__(self, path: Path):
        self._file = open(path, "rb")
        fmt = np.lib.format
        major, _ = fmt.read_magic(self._file)
        read_header = fmt.read_array_header_1_0 if major == 1 else fmt.read_array_header_2_0
        shape, fortran, dtype = read_header(self._file)
        if fortran or dtype != np.float32 or len(shape) != 2:
            raise ValueError(f"{path}: expected a C-ordered float32 matrix")
        self.dim = shape[1]
        self._offset = self._file.tell()
        self._row_bytes = self.dim * 4

    def rows(self, rows: np.ndarray) -> np.ndarray:
        fd, size, base = self._file.fileno(), self._row_bytes, self._offset
        data = b"".join(os.pread(fd, size, base + int(r) * size) for r in rows)
        return np.frombuffer(data, dtype=np.float32).reshape(len(rows), self.dim)

    def close(self) -> None:
        self._file.close()


_FLAT_IP = b"IxFI"               # the type code FAISS writes first for an IndexFlatIP


class DenseIndex:
    def __init__(self, gen: Path):
        with open(gen / INDEX_FILE, "rb") as f:
            self.exact = f.read(4) == _FLAT_IP
        self._rows = None
        if self.exact:
            # Exact search is one matrix-vector product over the chunk vectors, which vectors.npy holds as FAISS's
            # flat index does: a one-shot `diagnose` need not import FAISS and read its copy (a twentieth of it).
            self._vectors = np.load(gen / VECTORS, mmap_mode="r")
            self.index = None
            return
        import faiss

        self._faiss = faiss
        self.index = faiss.read_index(str(gen / INDEX_FILE))
        self._rows = _RowReader(gen / VECTORS)

    def __len__(self) -> int:
        return len(self._vectors) if self.exact else self.index.ntotal

    @property
    def kind(self) -> str:
        return "flat" if self.exact else "ivf-sq4"

    def describe(self) -> dict:
        """The index type and its search parameters (for reports)."""
        if self.exact:
            return {"kind": "flat"}
        return {"kind": self.kind, "nlist": self.index.nlist, "nprobe": self.index.nprobe, "candidates": CANDIDATES}

    def vectors(self, rows: list[int]) -> np.ndarray:
        """The exact vectors of these rows (ascending)."""
        rows = np.asarray(sorted(rows), dtype=np.int64)
        return np.asarray(self._vectors[rows]) if self.exact else self._rows.rows(rows)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(row, cosine) pairs, best first."""
        k = min(k, len(self))
        if k <= 0:
            return []
        q = np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32)
        if self.exact:
            scores = self._vectors @ q[0]
            top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
            top = top[np.lexsort((top, -scores[top]))]         # best first; equal scores by row
            return [(int(r), float(scores[r])) for r in top]
        _, cand = self._search(q, min(self.index.ntotal, max(k, CANDIDATES)))
        cand = np.sort(cand[0][cand[0] >= 0])          # ascending rows: reads move forward through the file
        exact = self._rows.rows(cand) @ q[0]
        best = np.argsort(-exact, kind="stable")[:k]
        return [(int(cand[i]), float(exact[i])) for i in best]

    def _search(self, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        # One query is too little work to share between threads: on 2 busy cores, OpenMP threads waiting for each
        # other made an exact 10k-vector search take 5 ms instead of 0.7. The setting belongs to the calling thread
        # (and to FAISS's own OpenMP runtime only), so it is put back for whatever this thread runs next.
        faiss = self._faiss
        before = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        try:
            return self.index.search(q, k)
        finally:
            faiss.omp_set_num_threads(before)

    def close(self) -> None:
        if self._rows is not None:
            self._rows.close()
