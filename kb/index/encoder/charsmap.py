"""SentencePiece's precompiled normalization blob (a darts-clone double-array trie), built from a per-codepoint
map."""
from __future__ import annotations

import struct


def charsmap(norm: dict[int, str]) -> bytes:
    """SentencePiece's precompiled normalization blob for a per-codepoint map.

    Layout (what `tokenizers`' Precompiled normalizer reads): u32 byte size of a double-array trie, the trie
    (darts-clone units, u32 each), then the NUL-terminated replacement strings. Trie keys are the UTF-8 bytes of a
    codepoint; a key's value is the offset of its replacement in the string blob.
    """
    strings = bytearray()
    where: dict[str, int] = {}
    keys: dict[bytes, int] = {}
    for cp in sorted(norm):
        out = norm[cp]
        if out not in where:
            where[out] = len(strings)
            strings += out.encode("utf-8") + b"\0"
        keys[chr(cp).encode("utf-8")] = where[out]

    # trie as nested dicts; the key None holds the value of a node that ends a key
    root: dict = {}
    for key, value in keys.items():
        node = root
        for byte in key:
            node = node.setdefault(byte, {})
        node[None] = value

    units: list[int] = [0]
    used = bytearray(1)  # slot taken
    bases: set[int] = set()
    first_free = 1

    def grow(n: int) -> None:
        if n > len(units):
            extra = n - len(units)
            units.extend([0] * extra)
            used.extend(b"\0" * extra)

    def place(labels: list[int]) -> int:
        """A base no other node uses whose child slots (base ^ label) are all free and not the root."""
        nonlocal first_free
        while first_free < len(used) and (used[first_free] or first_free in bases):
            first_free += 1
        p = first_free
        while True:
            grow(p + 1)
            if not used[p]:
                base = p ^ labels[0]
                slots = [base ^ c for c in labels]
                if base not in bases and 0 not in slots:
                    grow(max(slots) + 1)
                    if not any(used[s] for s in slots):
                        return base
            p += 1

    queue: list[tuple[int, dict]] = [(0, root)]
    while queue:
        pos, node = queue.pop()
        labels = sorted(0 if k is None else k for k in node)
        base = place(labels)
        bases.add(base)
        offset = pos ^ base
        if offset >= 1 << 21:
            raise ValueError("normalization trie too large")
        units[pos] |= offset << 10
        for c in labels:
            slot = base ^ c
            used[slot] = 1
            if c == 0:
                units[slot] = (1 << 31) | node[None]
            else:
                child = node[c]
                units[slot] = c | ((1 << 8) if None in child else 0)
                queue.append((slot, child))
    grow(-(-len(units) // 256) * 256)  # a lookup may probe any slot of a child's 256-slot block
    trie = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie)) + trie + bytes(strings)
