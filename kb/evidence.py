"""The matcher's reasons in the words a user reads: "your line" and "the entry's line", what they agree on, what
tells them apart. No fact names, signal names, weights or scores: the answer carries one number, its confidence.

kb.match and kb.traceback.signature explain themselves for developers (`fact mismatch.zero_side agrees:
current_model`, `score 1.000`); everything a person reads passes through here first.
"""
from __future__ import annotations

import re

from kb.models import Evidence

# What each fact is about, said plainly (kb.traceback.facts.FACTS names them).
LABELS: dict[str, str] = {
    "mismatch.param_role": "which parameter fails to load",
    "mismatch.zero_side": "which side has the empty `[0]` shape",
    "mismatch.relation": "how the two shapes differ",
    "mismatch.factor": "by what factor the shapes differ",
    "mismatch.delta": "by how many rows the shapes differ",
    "mismatch.direction": "which side is larger",
    "mismatch.dim": "which dimension differs",
    "state_dict.keys": "which keys the state_dict lacks or has in excess",
    "load_key.byte": "the first byte of the file that could not be unpickled",
    "safetensors.error": "the safetensors header error",
    "dtype.mentioned": "the dtypes named",
    "dtype.expected": "the dtype expected",
    "dtype.found": "the dtype found",
    "cuda_assert.kernel": "the CUDA kernel that asserted",
    "cuda_assert.condition": "the condition that failed",
    "cuda.error": "the CUDA error",
    "cuda.status": "the CUDA library status",
    "device.pair": "the devices involved",
    "device.order": "which device is named first",
    "device.op": "the operation that saw two devices",
    "device.argument": "the argument on the wrong device",
    "oom.kind": "which memory ran out",
    "oom.reserved_unallocated": "memory reserved but not allocated",
    "oom.phase": "when memory ran out",
    "nccl.op": "the NCCL collective",
    "nccl.timeout_ms": "the NCCL timeout",
    "nccl.error": "the NCCL error",
    "nccl.resource": "what NCCL could not get",
    "batch.world_size": "how many processes joined",
    "exitcode": "the exit code",
    "signal": "the signal the process died of",
    "import.module": "the missing package",
    "import.name": "the name that cannot be imported",
    "import.undefined_symbol": "the undefined symbol",
    "key.value": "the missing key",
    "attribute.name": "the missing attribute",
    "hw.requirement": "the GPU required",
    "generate.max_length": "where max_length came from",
    "onnx.support": "the ONNX operator support",
    "config.values": "whether the config values differ",
    "batch.divides": "whether the batch divides",
    "symptom": "the kind of failure",
    "torch.build": "the torch build",
}

# Values that read better in words.
VALUES: dict[str, dict[str, str]] = {
    "mismatch.zero_side": {"current_model": "the model side", "checkpoint": "the checkpoint side", "none": "neither side"},
    "mismatch.relation": {"zero": "one side is empty", "small_delta": "a few rows apart",
                          "multiple": "one is a multiple of the other", "other": "otherwise"},
    "mismatch.direction": {"checkpoint_larger": "the checkpoint", "current_larger": "the model"},
    "mismatch.param_role": {"lm_head": "the LM head", "embedding": "the embedding", "classifier": "the classifier",
                            "other": "another parameter"},
    "oom.kind": {"cuda": "GPU memory", "cpu": "host memory", "host_killed": "host memory (the process was killed)"},
    "torch.build": {"cpu": "CPU-only", "cuda": "CUDA"},
    "batch.world_size": {"single": "one process", "several": "several processes"},
    "load_key.byte": {"v": "`v` (a git-lfs pointer)", "<": "`<` (an HTML page)"},
    "mismatch.delta": {"1": "1 row", "2-8": "2 to 8 rows", "9-64": "9 to 64 rows", "65-1024": "65 to 1024 rows",
                       ">1024": "more than 1024 rows"},
    "mismatch.dim": {"several": "several dimensions", "none": "no dimension"},
}


def label(name: str) -> str:
    return LABELS.get(name, name.rsplit(".", 1)[-1].replace("_", " "))


def value(name: str, raw: str) -> str:
    words = VALUES.get(name, {})
    return " or ".join(words.get(v, f"`{v}`" if name == "load_key.byte" else v) for v in raw.split("|"))


def agreement(name: str, raw: str) -> str:
    """One sentence: both lines say the same thing about a fact."""
    if name == "mismatch.zero_side" and raw in ("current_model", "checkpoint"):
        return f"the `[0]` is on {value(name, raw)} in both"
    if name == "mismatch.zero_side" and raw == "none":
        return "neither side has an empty `[0]` shape, in both"
    if name == "mismatch.dim" and raw.isdigit():
        return f"{label(name)}: dimension {raw} in both"
    return f"{label(name)}: {value(name, raw)} in both"


def difference(name: str, mine: str, theirs: str) -> str:
    return f"{label(name)}: {value(name, mine)} in your line, {value(name, theirs)} in the entry's"


_AGREES = re.compile(r"^fact (?P<name>\S+) agrees: (?P<v>.*)$")
_CONFLICTS = re.compile(r"^fact (?P<name>\S+) CONFLICTS \(\w+\): (?P<a>.*?) vs (?P<b>.*?) → ×\S+$")
_CLOSE = re.compile(r"^fact (?P<name>\S+) close: (?P<a>.*?) vs (?P<b>.*?) \(")
_EXCUSED = re.compile(r"^fact (?P<name>\S+) not compared: (?P<why>.*)$")
_SAME_TYPE = re.compile(r"^same type (?P<t>\S+)$")
_RELATED = re.compile(r"^related types (?P<a>\S+) / (?P<b>\S+)")
_DIFFERENT = re.compile(r"^different types (?P<a>\S+) / (?P<b>\S+)$")
_FRAMES = re.compile(r"^shared library frames: (?P<f>.*)$")
_HARD = re.compile(r"^(?P<name>[\w.]+): report has (?P<a>.*), entry has (?P<b>.*)$")


def why_item(why: str) -> Evidence | None:
    """A line of kb.traceback.signature.similarity's reasons as evidence in plain words, or None when it says nothing
    a user needs (scores, token overlaps, a type neither side names)."""
    if m := _SAME_TYPE.match(why):
        return Evidence(kind="type", note=f"same exception: {m['t']}")
    if m := _RELATED.match(why):
        return Evidence(kind="type", note=f"related exceptions: {m['a']} in your line, {m['b']} in the entry's "
                                          f"(one is a kind of the other)")
    if m := _DIFFERENT.match(why):
        return Evidence(kind="type", note=f"different exceptions: {m['a']} in your line, {m['b']} in the entry's")
    if why == "identical templates":
        return Evidence(kind="note", note="the same message, apart from numbers, paths and names")
    if m := _AGREES.match(why):
        return Evidence(kind="fact", fact=m["name"], note=agreement(m["name"], m["v"]))
    if m := _CONFLICTS.match(why):
        return Evidence(kind="conflict", fact=m["name"], note=difference(m["name"], m["a"], m["b"]))
    if m := _CLOSE.match(why):
        return Evidence(kind="fact", fact=m["name"],
                        note=f"{label(m['name'])}: close ({value(m['name'], m['a'])} in your line, "
                             f"{value(m['name'], m['b'])} in the entry's)")
    if m := _EXCUSED.match(why):
        return Evidence(kind="fact", fact=m["name"], note=f"{label(m['name'])} does not matter here: {m['why']}")
    if m := _FRAMES.match(why):
        return Evidence(kind="note", note=f"both pass through the same library code: {m['f']}")
    return None


def conflict_item(conflict: str) -> Evidence:
    """A hard conflict (`name: report has X, entry has Y`) as evidence in plain words."""
    m = _HARD.match(conflict)
    return Evidence(kind="conflict", fact=m["name"] if m else None, note=conflict_line(conflict))


def conflict_line(conflict: str) -> str:
    """A hard conflict (`name: report has X, entry has Y`) in plain words."""
    m = _HARD.match(conflict)
    return difference(m["name"], m["a"], m["b"]) if m else conflict


_NUMBERS = re.compile(r"\s*\((?:probability|corroboration) [^)]*\)")
_CONFLICT_LIST = re.compile(r"\((?P<list>[\w.]+: report has .*)\)$")


QUOTE_MAX = 300


def clip(text: str, limit: int, mark: str = "…", one_line: bool = True) -> str:
    """At most `limit` characters, cut at a word boundary with an ellipsis (mid-word only for one very long
    word, such as a path). `one_line`: text of several lines is first made one, its runs of spaces single."""
    text = " ".join(text.split()) if one_line and "\n" in text else text
    if len(text) <= limit:
        return text
    head = text[: limit - len(mark) + 1]
    space = head.rfind(" ")
    if space >= (limit - len(mark)) * 2 // 3:
        head = head[:space]
    else:
        head = head[: limit - len(mark)]
    return head.rstrip(" ,;:") + mark


def evidence_items(sig_pair: tuple[str, str] | None, why: list[str], conflicts: list[str],
                   notes: list[str]) -> list[Evidence]:
    """Why an entry was (or was not) taken, for people: the two lines side by side, then what they share and
    what tells them apart."""
    out = []
    if sig_pair:
        out.append(Evidence(kind="line", report_line=clip(sig_pair[0], QUOTE_MAX),
                            entry_line=clip(sig_pair[1], QUOTE_MAX)))
        out.extend(item for w in why if (item := why_item(w)) is not None)
    said = {item.note for item in out}
    for c in conflicts:
        item = conflict_item(c)
        if item.note not in said:
            out.append(item)
            said.add(item.note)
    out.extend(Evidence(kind="note", note=_reader(n)) for n in notes)
    return out


def _reader(text: str) -> str:
    return text.replace("the report's error", "your error").replace("the report", "your report")


def plain_reason(reason: str, title: str | None = None, entry_id: str | None = None) -> str:
    """A reason from kb.match in plain words: the entry named by its title, hard conflicts said as differences,
    and no second number beside the answer's confidence."""
    if not reason:
        return reason
    text = _NUMBERS.sub("", reason)
    m = _CONFLICT_LIST.search(text)
    if m:
        said = "; ".join(conflict_line(c) for c in m["list"].split("; "))
        text = text[:m.start()] + f"({said})"
    text = _reader(text)
    if title:
        if entry_id:
            text = text.replace(f"matches {entry_id}", f"matches “{title}”")
        text = text.replace("where this entry's says", f"where “{title}” says")
        text = text.replace("not one this entry describes", f"not one that “{title}” describes")
        text = text.replace("points to this entry", f"points to “{title}”")
        text = text.replace("points to this one", f"points to “{title}”")
        if text.startswith("not likely enough to be the cause"):
            text = f"“{title}” is {text}"
    return text
