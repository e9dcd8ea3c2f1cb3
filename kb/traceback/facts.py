"""Discriminating facts of an error message: named rules that read literals a template throws away.

A fact is `name -> value`; a value may hold alternatives joined by "|" (a report with mismatches on both the
embedding and the LM head has `mismatch.param_role = "embedding|lm_head"`); two values agree when they share an
alternative. `FACTS` documents every name, its values and whether a conflict is *hard* (the two messages describe
different mechanisms, so the matcher must pull the score down) or *soft* (a hint only).

The fact names and the regexes and vocabularies the rules read are data, in kb/data/rules/facts.toml; this module
is the engine that runs them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Final

from kb import rules
from kb.traceback.lines import missing_command


@dataclass(frozen=True)
class FactSpec:
    name: str
    values: str          # what the values are
    hard: bool           # a conflict means a different mechanism
    weight: float = 1.0


_DATA = rules.load("facts")
FACTS: Final[dict[str, FactSpec]] = {f["name"]: FactSpec(**f) for f in _DATA["fact"]}
_P: Final[dict[str, re.Pattern[str]]] = {name: rules.regex(spec) for name, spec in _DATA["pattern"].items()}
_DTYPE_NAMES: Final[dict[str, str]] = _DATA["dtype_names"]
_OOM_PHASES: Final = [(r["name"], rules.regex(r)) for r in _DATA["oom_phase"]]
_NCCL_PHRASES: Final = [(rules.regex(r), r["error"]) for r in _DATA["nccl_phrase"]]
_NCCL_RESOURCE: Final = [(rules.regex(r), r["resource"]) for r in _DATA["nccl_resource"]]
_SIGNUM: Final[dict[str, str]] = _DATA["signal_numbers"]
_SYMPTOMS: Final = [(r["name"], rules.regex(r)) for r in _DATA["symptom"]]

# ----------------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------------


def _dims(s: str | None) -> list[int] | None:
    if s is None:
        return None
    s = s.strip()
    if not s:
        return []
    try:
        return [int(x) for x in s.split(",") if x.strip()]
    except ValueError:
        return None


def _numel(d: list[int]) -> int:
    n = 1
    for x in d:
        n *= x
    return n


def param_role(name: str) -> str:
    if _P["head"].search(name):
        return "lm_head"
    if _P["embed"].search(name):
        return "embedding"
    if _P["cls"].search(name):
        return "classifier"
    return "other"


def _delta_bucket(d: int) -> str:
    if d <= 1:
        return "1"
    if d <= 8:
        return "2-8"
    if d <= 64:
        return "9-64"
    if d <= 1024:
        return "65-1024"
    return ">1024"


def shape_relation(ck: list[int], cur: list[int]) -> dict[str, str]:
    """Facts comparing a checkpoint (incoming) shape with the current (expected) one."""
    out: dict[str, str] = {}
    zero_ck, zero_cur = _numel(ck) == 0, _numel(cur) == 0
    if zero_cur or zero_ck:
        out["mismatch.zero_side"] = "current_model" if zero_cur else "checkpoint"
        out["mismatch.relation"] = "zero"
        return out
    out["mismatch.zero_side"] = "none"
    if len(ck) != len(cur):
        out["mismatch.relation"] = "other"
        out["mismatch.dim"] = "several"
        return out
    diff = [k for k in range(len(ck)) if ck[k] != cur[k]]
    if len(diff) != 1:
        out["mismatch.relation"] = "other"
        out["mismatch.dim"] = "several" if diff else "none"
        return out
    d = diff[0]
    a, b = ck[d], cur[d]
    big, small = max(a, b), min(a, b)
    out["mismatch.dim"] = str(d)
    out["mismatch.direction"] = "checkpoint_larger" if a > b else "current_larger"
    out["mismatch.delta"] = _delta_bucket(big - small)
    # k× or 1/k (a TP shard of a padded vocabulary rounds up): |small*k - big| within 1% of big
    if big >= 2 * small * 0.95:
        k = round(big / small)
        if 2 <= k <= 256 and abs(small * k - big) <= max(k, big // 100):
            out["mismatch.relation"] = "multiple"
            out["mismatch.factor"] = str(k)
            return out
    # padding up to a multiple of 64 (make_vocab_size_divisible_by x TP): the larger is round, the smaller is not
    if big % 64 == 0 and small % 64 != 0 and big - small < max(64, big // 100):
        out["mismatch.relation"] = "multiple"
        out["mismatch.factor"] = "pad"
        return out
    out["mismatch.relation"] = "small_delta" if big - small <= 64 else "other"
    return out


def _merge(facts: dict[str, str], new: dict[str, str]) -> None:
    """Add `new` to `facts`, joining different values of one name as alternatives."""
    for k, v in new.items():
        if k not in facts:
            facts[k] = v
        elif v not in facts[k].split("|"):
            facts[k] = "|".join(sorted(set(facts[k].split("|")) | {v}))


# ----------------------------------------------------------------------------------------------------------------
# Rules: each reads (exc_type, message) and returns facts plus a hint for the signature's steps.
# ----------------------------------------------------------------------------------------------------------------

FactRule = Callable[[str, str], tuple[dict[str, str], str | None]]


def _hint(what: str, facts: dict[str, str]) -> str | None:
    """The explanation a rule gives of the literals it kept, or None when it kept none."""
    return f"{what} {', '.join(f'{k}={v}' for k, v in facts.items())}" if facts else None


def _rule_state_dict(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    if "Error(s) in loading state_dict" in msg and "Unexpected key(s)" in msg:
        facts["state_dict.keys"] = "missing+unexpected" if "Missing key(s)" in msg else "unexpected"
    found = 0
    for m in _P["state_dict_mismatch"].finditer(msg):
        found += 1
        f: dict[str, str] = {"mismatch.param_role": param_role(m.group("param"))}
        ck, cur = _dims(m.group("ck")), _dims(m.group("cur"))
        if ck is not None and cur is not None:
            f.update(shape_relation(ck, cur))
        elif ck is not None and _numel(ck) == 0:
            f["mismatch.zero_side"] = "checkpoint"
        _merge(facts, f)
        if found >= 50:
            break
    if not found:
        m = _P["expected_got"].search(msg) or _P["two_sizes"].search(msg)
        if m:
            names = m.re.groupindex
            ck = _dims(m.group("ck") if "ck" in names else m.group("a"))
            cur = _dims(m.group("cur") if "cur" in names else m.group("b"))
            if ck and cur is not None:
                f = shape_relation(ck, cur)
                if "cur" not in names:            # before/after sharding: no model/checkpoint sides
                    f.pop("mismatch.direction", None)
                    f["mismatch.zero_side"] = f.get("mismatch.zero_side", "none")
                _merge(facts, f)
                found = 1
    if not found:
        # Half of a mismatch line, as quoted in prose: the side it names is the side of the empty shape.
        for side, rx in (("current_model", _P["cur_half"]), ("checkpoint", _P["ck_half"])):
            m = rx.search(msg)
            if m and (dims := _dims(m.group("dims"))) is not None and _numel(dims) == 0:
                facts["mismatch.zero_side"] = side
                found = 1
                break
    if not found:
        return facts, (f"state_dict key lists: {facts['state_dict.keys']}" if facts else None)
    hint = (f"read {found} shape mismatch(es): role {facts.get('mismatch.param_role', '?')}, relation "
            f"{facts.get('mismatch.relation', '?')}, zero side {facts.get('mismatch.zero_side', '?')}")
    return facts, hint


def _rule_files(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _P["load_key"].search(msg)
    if m:
        facts["load_key.byte"] = m.group("b")
    m = _P["safetensors"].search(msg)
    if m:
        facts["safetensors.error"] = m.group("e")
    return facts, _hint("kept", facts)


def _norm_dtype(s: str) -> str | None:
    s = s.lower()
    if s.startswith(("fp8", "float8")):
        return "fp8"
    return _DTYPE_NAMES.get(s)


def _rule_dtypes(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    found: set[str] = set()
    for m in _P["dtype_explicit"].finditer(msg):
        d = _norm_dtype(m.group(1))
        if d:
            found.add(d)
    for m in _P["dtype_context"].finditer(msg):
        d = _norm_dtype(m.group(1) or m.group(2))
        if d:
            found.add(d)
    facts: dict[str, str] = {}
    if found:
        facts["dtype.mentioned"] = "|".join(sorted(found))
    m = _P["expected_found"].search(msg) or _P["dtype_pair"].search(msg)
    if m:
        e, f = _norm_dtype(m.group(1)), _norm_dtype(m.group(2))
        if e and f:
            facts["dtype.expected"], facts["dtype.found"] = e, f
    return facts, (f"kept dtypes {facts['dtype.mentioned']}" if found else None)


def _rule_cuda(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _P["cuda_assert"].search(msg)
    if m:
        facts["cuda_assert.condition"] = " ".join(m.group("cond").split())
        if m.group("kernel"):
            facts["cuda_assert.kernel"] = m.group("kernel")
    m = _P["cuda_error"].search(msg)
    if m:
        e = m.group("e").strip().lower()
        e = re.split(r"\swhen calling\b|\s\(|\scuda kernel errors", e)[0].strip().rstrip(",;:")
        if e:
            facts["cuda.error"] = e
    m = _P["cuda_status"].search(msg)
    if m:
        facts["cuda.status"] = m.group(0)
    return facts, _hint("kept CUDA literals", facts)


def _device_type(s: str) -> str:
    return s.lower().split(":", 1)[0]


def _op_of(method: str) -> str:
    op = re.sub(r"^wrapper_(?:(?:CUDA|CPU|Meta|CompositeImplicitAutograd|CompositeExplicitAutograd)_*)?_*", "", method)
    return op.strip("_").lower() or method.lower()


def _rule_devices(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _P["devices"].search(msg) or _P["devices_old"].search(msg)
    if not m:
        return {}, None
    a, b = _device_type(m.group("a")), _device_type(m.group("b"))
    facts["device.pair"] = "+".join(sorted({a, b}))
    facts["device.order"] = f"{a}_first"
    gd = m.groupdict()
    if gd.get("arg"):
        facts["device.argument"] = gd["arg"]
    meth = gd.get("meth")
    if not meth:
        mm = _P["method"].search(msg)
        meth = mm.group("meth") if mm else None
    if meth:
        facts["device.op"] = _op_of(meth)
    return facts, f"kept devices {m.group('a')} and {m.group('b')}" + (f", op {facts['device.op']}" if meth else "")


def oom_phase(text: str) -> str | None:
    """Where an out-of-memory error struck, as far as `text` (a message, frame names, a title) says."""
    found = [name for name, rx in _OOM_PHASES if rx.search(text)]
    return "|".join(found) or None


def _rule_memory(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    text = f"{exc_type} {msg}"
    if _P["oom_cuda"].search(text):
        facts["oom.kind"] = "cuda"
    elif _P["oom_killed"].search(msg):
        facts["oom.kind"] = "host_killed"
    elif _P["oom_cpu"].search(text):
        facts["oom.kind"] = "cpu"
    phase = oom_phase(msg) if "oom.kind" in facts else None
    if phase:
        facts["oom.phase"] = phase
    m = _P["reserved"].search(msg)
    if m:
        try:
            gib = float(m.group("n")) * {"KiB": 1 / 1024 ** 2, "MiB": 1 / 1024, "GiB": 1.0, "TiB": 1024.0}[m.group("u")]
            facts["oom.reserved_unallocated"] = "large" if gib >= 1.0 else "small"
        except ValueError:
            pass
    return facts, _hint("memory:", facts)


def _rule_distributed(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _P["nccl_op"].search(msg)
    if m:
        facts["nccl.op"] = m.group("op").lower().replace("_", "")
    m = _P["nccl_timeout"].search(msg)
    if m:
        facts["nccl.timeout_ms"] = m.group("ms")
    m = _P["nccl_err"].search(msg)
    if m:
        facts["nccl.error"] = m.group(1)
    elif "nccl" in msg.lower() or "Watchdog" in msg:
        for rx, name in _NCCL_PHRASES:
            if rx.search(msg):
                facts["nccl.error"] = name
                break
    if "nccl" in msg.lower() or "nccl" in exc_type.lower():
        for rx, name in _NCCL_RESOURCE:
            if rx.search(msg):
                facts["nccl.resource"] = name
                break
    if "closing signal" not in msg:
        m = _P["exitcode"].search(msg)
        if m:
            facts["exitcode"] = m.group("c")
            if m.group("c").startswith("-") and m.group("c")[1:] in _SIGNUM:
                facts["signal"] = _SIGNUM[m.group("c")[1:]]
        m = _P["signal"].search(msg)
        if m:
            facts["signal"] = m.group("s") or m.group("t") or m.group("u")
    m = _P["batch_world"].search(msg)
    if m:
        facts["batch.world_size"] = "single" if m.group("w") == "1" else "several"
    return facts, _hint("distributed:", facts)


def _demangle_ns(sym: str) -> str | None:
    m = re.match(r"_ZN?K?(\d{1,3})", sym)
    if not m:
        return None
    n = int(m.group(1))
    start = m.end()
    ns = sym[start:start + n]
    return "torch" if ns in ("at", "c10", "torch", "caffe2") else ns or None


def _rule_names(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _P["no_module"].search(msg)
    if m:
        facts["import.module"] = (m.group("m") or m.group("lib") or m.group("pkg")).split(".")[0].lower()
    m = _P["cannot_import"].search(msg)
    if m:
        facts["import.name"], facts["import.module"] = m.group("n"), m.group("m").split(".")[0].lower()
    m = _P["undef"].search(msg)
    if m:
        ns = _demangle_ns(m.group("s"))
        if ns:
            facts["import.undefined_symbol"] = ns
    if exc_type.endswith("KeyError") or "model type" in msg:
        m = _P["key"].search(msg.strip())
        if m:
            facts["key.value"] = (m.group("k") or m.group("t")).lower()
    m = _P["attr"].search(msg)
    if m:
        facts["attribute.name"] = m.group("a")
    cmd = missing_command(msg)
    if cmd:
        facts["command.missing"] = cmd
    if _P["ampere"].search(msg):
        facts["hw.requirement"] = "ampere"
    return facts, _hint("names:", facts)


def _rule_http(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    m = _P["http_status"].search(msg)
    if not m:
        return {}, None
    code = next(g for g in m.groups() if g)
    return {"http.status": code}, f"HTTP status {code}"


def _rule_generation(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _P["max_length"].search(msg)
    if m:
        facts["generate.max_length"] = "default" if m.group("n") == "20" else "set"
    if _P["onnx_later"].search(msg):
        facts["onnx.support"] = "later_opset"
    elif _P["onnx_none"].search(msg):
        facts["onnx.support"] = "none"
    return facts, _hint("generation/export:", facts)


def _rule_config(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    pairs = _P["ds_vs_hf"].findall(msg)
    if pairs:
        same = all(a.strip("'\"") == b.strip("'\"") for a, b in pairs)
        facts["config.values"] = "equal" if same else "differ"
    m = _P["gen_batch"].search(msg)
    if m:
        g = int(m.group("g"))
        facts["batch.divides"] = "yes" if g and int(m.group("a")) * int(m.group("b")) % g == 0 else "no"
    return facts, _hint("configuration:", facts)


def _rule_symptoms(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    for name, rx in _SYMPTOMS:
        if rx.search(msg):
            return {"symptom": name}, f"a message with many known causes ({name})"
    return {}, None


def _rule_builds(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    build = "cpu" if _P["cpu_build"].search(msg) else "cuda" if _P["gpu_build"].search(msg) else None
    return ({"torch.build": build}, f"torch build shown: {build}") if build else ({}, None)


FACT_RULES: Final[list[tuple[str, FactRule]]] = [
    ("state_dict", _rule_state_dict),
    ("files", _rule_files),
    ("dtypes", _rule_dtypes),
    ("cuda", _rule_cuda),
    ("devices", _rule_devices),
    ("memory", _rule_memory),
    ("distributed", _rule_distributed),
    ("names", _rule_names),
    ("builds", _rule_builds),
    ("http", _rule_http),
    ("generation", _rule_generation),
    ("config", _rule_config),
    ("symptoms", _rule_symptoms),
]


def extract_facts(exc_type: str | None, message: str) -> tuple[dict[str, str], list[str]]:
    """Run every fact rule over a message. Returns (facts, hints)."""
    facts: dict[str, str] = {}
    hints: list[str] = []
    for _name, rule in FACT_RULES:
        f, hint = rule(exc_type or "", message)
        if f:
            _merge(facts, f)
        if hint:
            hints.append(hint)
    return facts, hints
