"""Discriminating facts of an error message: named rules that read literals a template throws away.

A fact is `name -> value`; a value may hold alternatives joined by "|" (a report with mismatches on both the
embedding and the LM head has `mismatch.param_role = "embedding|lm_head"`); two values agree when they share an
alternative. `FACTS` documents every name, its values and whether a conflict is *hard* (the two messages describe
different mechanisms, so the matcher must pull the score down) or *soft* (a hint only).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Final

from kb.traceback.lines import missing_command


@dataclass(frozen=True)
class FactSpec:
    name: str
    values: str          # what the values are
    hard: bool           # a conflict means a different mechanism
    weight: float = 1.0


FACTS: Final[dict[str, FactSpec]] = {f.name: f for f in [
    # load_state_dict / shape mismatches -----------------------------------------------------------------------------
    FactSpec("mismatch.param_role", "embedding | lm_head | classifier | other — by the parameter name "
             "(embed_tokens/wte/word_embeddings → embedding; lm_head/embed_out/output → lm_head; "
             "classifier/score/cls → classifier)", hard=True),
    FactSpec("mismatch.zero_side", "current_model | checkpoint | none — which side has a 0-element shape "
             "(`torch.Size([0])`: a ZeRO-3 partitioned or meta placeholder)", hard=True, weight=1.5),
    FactSpec("mismatch.relation", "zero | small_delta | multiple | other — small_delta: one dim differs by 1..64 "
             "rows and the larger size is not padded to a multiple of 64 (added tokens, 32001 vs 32000); multiple: "
             "one dim is k× (or 1/k of, rounded up to padding) the other (TP sharding 128256 vs 16064, 151936 vs "
             "75968), or the larger is padded up to a multiple of 64 from an unpadded size (65536 vs 65535, "
             "151936 vs 151665); other: anything else", hard=True, weight=1.5),
    FactSpec("mismatch.factor", "the k of a `multiple` relation (\"2\", \"8\"), \"pad\" for padding to a multiple",
             hard=False, weight=0.5),
    FactSpec("mismatch.delta", "bucket of the row difference: 1 | 2-8 | 9-64 | 65-1024 | >1024", hard=False,
             weight=0.5),
    FactSpec("mismatch.direction", "checkpoint_larger | current_larger", hard=False, weight=0.5),
    FactSpec("mismatch.dim", "which dim differs: 0 | 1 | ... | several", hard=False, weight=0.5),
    FactSpec("state_dict.keys", "the key lists of a whole `Error(s) in loading state_dict` message: "
             "missing+unexpected (keys were renamed, e.g. by a wrapper prefix) | unexpected (nothing is missing, so "
             "nothing was renamed: extra keys only). PyTorch prints Missing before Unexpected, so a message showing "
             "only Missing may be cut and is not read", hard=True),
    # unpickling / file format ---------------------------------------------------------------------------------------
    FactSpec("load_key.byte", "the byte in `invalid load key, 'v'.` (v: a git-lfs pointer file; <: an HTML page)",
             hard=True, weight=2.0),
    FactSpec("safetensors.error", "the header error name: HeaderTooLarge | InvalidHeaderDeserialization | ...",
             hard=True),
    # dtypes ---------------------------------------------------------------------------------------------------------
    FactSpec("dtype.mentioned", "dtypes named in the message, normalised: bf16 | fp16 | fp32 | fp64 | fp8 | int8 | "
             "int4 | int64 | int32 | bool (sorted, `|`-joined)", hard=True),
    FactSpec("dtype.expected", "the dtype in `expected scalar type X` / `expected X`", hard=True),
    FactSpec("dtype.found", "the dtype in `but found Y`", hard=True),
    # CUDA -----------------------------------------------------------------------------------------------------------
    FactSpec("cuda_assert.kernel", "kernel of a device-side assert (indexSelectLargeIndex, "
             "nll_loss_forward_reduce_cuda_kernel_2d, ...)", hard=False, weight=1.0),
    FactSpec("cuda_assert.condition", "the asserted condition, spaces collapsed (`srcIndex < srcSelectDimSize`)",
             hard=True),
    FactSpec("cuda.error", "the text after `CUDA error:` / `CUDA runtime error (N) :`, lower-case, without its "
             "`when calling ...` tail (device-side assert triggered, out of memory, an illegal memory access ...)",
             hard=True),
    FactSpec("cuda.status", "CUBLAS_STATUS_* / CUDNN_STATUS_* / CUDA_ERROR_* name", hard=True),
    # devices --------------------------------------------------------------------------------------------------------
    FactSpec("device.pair", "device types of `Expected all tensors to be on the same device`, sorted: cpu+cuda, "
             "cuda+meta, ...", hard=True),
    FactSpec("device.order", "which device is named first: cpu_first | cuda_first | ...", hard=False, weight=0.7),
    FactSpec("device.op", "the op of the device check (`wrapper_CUDA__index_select` → index_select, bmm, cat, ...)",
             hard=True),
    FactSpec("device.argument", "the argument named in `when checking argument for argument X`", hard=False,
             weight=0.7),
    # memory ---------------------------------------------------------------------------------------------------------
    FactSpec("oom.kind", "cuda (device memory) | cpu (host allocator) | host_killed (SIGKILL / exit code -9 / kernel "
             "OOM killer)", hard=True, weight=1.5),
    FactSpec("oom.reserved_unallocated", "small | large (≥ 1 GiB reserved by PyTorch but unallocated: "
             "fragmentation)", hard=False, weight=0.7),
    FactSpec("oom.phase", "backward | evaluation — where an OOM struck, from the message, the frames it passed "
             "through (run_backward, evaluation_loop, nested_concat) or an entry's title: activations in backward "
             "and logits piled up in evaluation are different causes", hard=True),
    # NCCL / distributed ---------------------------------------------------------------------------------------------
    FactSpec("nccl.op", "collective in a NCCL timeout (allreduce, broadcast, allgather, ...)", hard=False,
             weight=0.7),
    FactSpec("nccl.timeout_ms", "the timeout of a NCCL watchdog (600000, 1800000)", hard=False, weight=0.5),
    FactSpec("nccl.error", "ncclSystemError | ncclInternalError | ncclUnhandledCudaError | ncclInvalidUsage | "
             "ncclRemoteError | timeout", hard=True),
    FactSpec("nccl.resource", "shm | net | cuda — what the NCCL error names as failing", hard=True),
    FactSpec("batch.world_size", "single | several — the world size in DeepSpeed's batch check: 1 means the "
             "processes never formed one group (a launch problem), not batch sizes that do not divide", hard=True),
    FactSpec("exitcode", "the exit code of a child reported by a launcher (-9, 1, ...)", hard=True),
    FactSpec("signal", "the signal a child died of (SIGKILL, SIGSEGV, SIGABRT, ...)", hard=True),
    # imports / names ------------------------------------------------------------------------------------------------
    FactSpec("import.module", "the missing module or package, lower-case: `No module named 'x'`, `cannot import "
             "name 'y' from 'x'`, `requires the X library`, `need to have x installed`", hard=True),
    FactSpec("import.name", "name in `cannot import name 'y'`", hard=False),
    FactSpec("command.missing", "the command a shell could not find (`bash: x: command not found`, cmd.exe's and "
             "PowerShell's `not recognized`, in English or Chinese), lower-case without its directory", hard=True),
    FactSpec("import.undefined_symbol", "namespace of an undefined C++ symbol (torch for at::/c10::/torch::, else "
             "the first namespace)", hard=False),
    FactSpec("key.value", "the key of a `KeyError` / `Unrecognized ... model type`", hard=False),
    FactSpec("attribute.name", "the attribute in `has no attribute 'x'`", hard=False),
    FactSpec("hw.requirement", "ampere when the message requires an Ampere (sm80+) GPU", hard=False),
    # generation / export ------------------------------------------------------------------------------------------
    FactSpec("generate.max_length", "default | set — the `max_length` in `Input length of input_ids is N, but "
             "`max_length` is set to M`: 20 is transformers' default (no length was passed), another value is the "
             "caller's own (a prompt longer than the context it chose)", hard=True),
    FactSpec("onnx.support", "later_opset | none — an unsupported operator in an ONNX export: `Support for this "
             "operator was added in version N` (export with a newer opset) or `request support` (no opset of this "
             "exporter has it)", hard=True),
    # configuration checks -------------------------------------------------------------------------------------------
    FactSpec("config.values", "equal | differ — transformers' `ds X=a vs hf Y=b` lines of a DeepSpeed config that "
             "mismatches TrainingArguments: equal values that still mismatch are a type (the string \"8\" against "
             "8), not two settings that disagree", hard=True),
    FactSpec("batch.divides", "yes | no — whether the batch in `global train batch size (a x b) must be evenly "
             "divisible by the number of generations per prompt (g)` really is divisible: when it is, the check "
             "failed for another reason (g = 1 is no group at all)", hard=True),
    # symptoms -------------------------------------------------------------------------------------------------------
    FactSpec("symptom", "messages PyTorch raises for many unrelated root causes, by name: inplace (a variable needed "
             "for gradient computation was modified in place), backward_twice, batch_size (input vs target batch "
             "size), no_process_group, zip_archive (PytorchStreamReader cannot read the archive), matmul_shapes, "
             "no_grad_fn, index_range (`index out of range in self`), right_padding (generate()'s right-padding "
             "warning)", hard=True),
    # builds ---------------------------------------------------------------------------------------------------------
    FactSpec("torch.build", "cpu when a version in the message carries `+cpu` or it says torch was not compiled "
             "with CUDA; cuda when its versions carry only `+cuNNN` / `+rocmN` tags: an extension built for another "
             "CUDA torch and a CPU-only torch are different installs to fix", hard=True),
]}

# ----------------------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------------------

_SIZE = r"torch\.Size\(\[(?P<{0}>[\d,\s]{{0,80}})\]\)"
_STATE_DICT_MISMATCH = re.compile(
    r"(?:size mismatch for\s)?(?P<param>[\w.\-]{1,300}):\s?copying a param with shape\s" + _SIZE.format("ck")
    + r"\sfrom checkpoint(?:,\s?the shape in current model is\s" + _SIZE.format("cur") + r")?"
)
# `expected (75968, 1024), got (151936, 1024)`, `expected shape [a, b] but got [c, d]`
_EXPECTED_GOT = re.compile(
    r"expected(?: shape)?\s?[(\[](?P<cur>[\d,\s]{1,80})[)\]],?\s(?:but\s)?got\s?(?:shape\s)?[(\[](?P<ck>[\d,\s]{1,80})[)\]]",
    re.I,
)
# `shape before sharding torch.Size([128256, 4096]), shape after sharding torch.Size([16064, 4096])`
_TWO_SIZES = re.compile(_SIZE.format("a") + r".{1,120}?" + _SIZE.format("b"))

_EMBED = re.compile(r"(?:embed_tokens|wte|word_embeddings|embed_in|tok_embeddings|embeddings\.word|\bshared\b|"
                    r"wordembedding|embedding)", re.I)
_HEAD = re.compile(r"(?:lm_head|embed_out|output_layer|\boutput\.weight|\bhead\.weight|logits)", re.I)
_CLS = re.compile(r"(?:classifier|\bscore\b|\bcls\b|qa_outputs|pooler\.dense)", re.I)


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
    if _HEAD.search(name):
        return "lm_head"
    if _EMBED.search(name):
        return "embedding"
    if _CLS.search(name):
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


_CUR_HALF = re.compile(r"the shape in current model is torch\.Size\(\[(?P<dims>[\d, ]{0,80})\]\)")
_CK_HALF = re.compile(r"copying a param with shape torch\.Size\(\[(?P<dims>[\d, ]{0,80})\]\) from checkpoint")


def _rule_state_dict(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    if "Error(s) in loading state_dict" in msg and "Unexpected key(s)" in msg:
        facts["state_dict.keys"] = "missing+unexpected" if "Missing key(s)" in msg else "unexpected"
    found = 0
    for m in _STATE_DICT_MISMATCH.finditer(msg):
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
        m = _EXPECTED_GOT.search(msg) or _TWO_SIZES.search(msg)
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
        for side, rx in (("current_model", _CUR_HALF), ("checkpoint", _CK_HALF)):
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


_LOAD_KEY = re.compile(r"invalid load key, '(?P<b>\\?.{1,4}?)'")
_SAFETENSORS = re.compile(r"Error while deserializing header: (?P<e>\w{1,60})")


def _rule_files(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _LOAD_KEY.search(msg)
    if m:
        facts["load_key.byte"] = m.group("b")
    m = _SAFETENSORS.search(msg)
    if m:
        facts["safetensors.error"] = m.group("e")
    return facts, _hint("kept", facts)


_DTYPE_NAMES: Final = {
    "bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16", "half": "fp16", "fp32": "fp32",
    "float32": "fp32", "float": "fp32", "fp64": "fp64", "float64": "fp64", "double": "fp64", "fp8": "fp8",
    "int8": "int8", "int4": "int4", "long": "int64", "int64": "int64", "int": "int32", "int32": "int32",
    "bool": "bool", "amp": None,
}
# explicit dtype spellings anywhere (`fp16`, `torch.bfloat16`, `FP16 gradients`, `bf16/gpu`)
_DTYPE_EXPLICIT = re.compile(r"(?<![\w])(?:torch\.)?(bf16|bfloat16|fp16|float16|fp32|float32|fp64|float64|fp8\w{0,8}|"
                             r"float8\w{0,10}|int8|int4)(?![\w])", re.I)
# PyTorch type names, only where they name a type: `scalar type Half`, `HalfTensor`, `found Float`, `dtype Long`
_DTYPE_CONTEXT = re.compile(r"(?:scalar type|found|expected|dtype|type)\s(Half|Float|BFloat16|Double|Long|Int|Bool)\b"
                            r"|\b(Half|Float|BFloat16|Double|Long|Int|Bool|Byte)Tensor\b")
_EXPECTED_FOUND = re.compile(r"expected (?:scalar type |dtype |type )?(?:torch\.)?(\w{3,10}) but found (?:torch\.)?(\w{3,10})",
                             re.I)
_DTYPE_PAIR = re.compile(r"mat1 and mat2 must have the same dtype, but got (\w+) and (\w+)", re.I)


def _norm_dtype(s: str) -> str | None:
    s = s.lower()
    if s.startswith(("fp8", "float8")):
        return "fp8"
    return _DTYPE_NAMES.get(s)


def _rule_dtypes(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    found: set[str] = set()
    for m in _DTYPE_EXPLICIT.finditer(msg):
        d = _norm_dtype(m.group(1))
        if d:
            found.add(d)
    for m in _DTYPE_CONTEXT.finditer(msg):
        d = _norm_dtype(m.group(1) or m.group(2))
        if d:
            found.add(d)
    facts: dict[str, str] = {}
    if found:
        facts["dtype.mentioned"] = "|".join(sorted(found))
    m = _EXPECTED_FOUND.search(msg) or _DTYPE_PAIR.search(msg)
    if m:
        e, f = _norm_dtype(m.group(1)), _norm_dtype(m.group(2))
        if e and f:
            facts["dtype.expected"], facts["dtype.found"] = e, f
    return facts, (f"kept dtypes {facts['dtype.mentioned']}" if found else None)


_CUDA_ASSERT = re.compile(r"(?:(?P<file>\w{1,80}\.cuh?):\d{1,6}:\s(?P<kernel>\w{1,120}):\s.{0,200}?)?"
                          r"Assertion `(?P<cond>[^`\n]{1,300})` failed")
_CUDA_ERROR = re.compile(r"CUDA (?:runtime )?error(?:\s?\(\d{1,4}\))?\s?:\s?(?P<e>[^\n.]{1,200})")
_CUDA_STATUS = re.compile(r"\b(?:CU(?:BLAS|DNN|SPARSE|FFT|SOLVER)_STATUS_[A-Z_]{2,60}|CUDA_ERROR_[A-Z_]{2,60})")


def _rule_cuda(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _CUDA_ASSERT.search(msg)
    if m:
        facts["cuda_assert.condition"] = " ".join(m.group("cond").split())
        if m.group("kernel"):
            facts["cuda_assert.kernel"] = m.group("kernel")
    m = _CUDA_ERROR.search(msg)
    if m:
        e = m.group("e").strip().lower()
        e = re.split(r"\swhen calling\b|\s\(|\scuda kernel errors", e)[0].strip().rstrip(",;:")
        if e:
            facts["cuda.error"] = e
    m = _CUDA_STATUS.search(msg)
    if m:
        facts["cuda.status"] = m.group(0)
    return facts, _hint("kept CUDA literals", facts)


_DEVICES = re.compile(r"found at least two devices, (?P<a>[\w:]{2,12}) and (?P<b>[\w:]{2,12})[!.]?"
                      r"(?:\s?\(when checking argument for argument (?P<arg>\w{1,40}) in method (?P<meth>\w{1,80})\))?",
                      re.I)
_DEVICES_OLD = re.compile(r"Expected (?:all tensors to be on the same device|object of device type) (?P<a>\w+).{0,80}"
                          r"(?:got device type|but got) (?P<b>\w+)", re.I)
_METHOD = re.compile(r"in method (?P<meth>\w{1,80})")


def _device_type(s: str) -> str:
    return s.lower().split(":", 1)[0]


def _op_of(method: str) -> str:
    op = re.sub(r"^wrapper_(?:(?:CUDA|CPU|Meta|CompositeImplicitAutograd|CompositeExplicitAutograd)_*)?_*", "", method)
    return op.strip("_").lower() or method.lower()


def _rule_devices(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _DEVICES.search(msg) or _DEVICES_OLD.search(msg)
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
        mm = _METHOD.search(msg)
        meth = mm.group("meth") if mm else None
    if meth:
        facts["device.op"] = _op_of(meth)
    return facts, f"kept devices {m.group('a')} and {m.group('b')}" + (f", op {facts['device.op']}" if meth else "")


_OOM_CUDA = re.compile(r"CUDA out of memory|CUDA error: out of memory|OutOfMemoryError|HIP out of memory|"
                       r"out of memory on device|\b(?:CUDA|GPU|VRAM) OOM\b|\bOOM on (?:the )?GPU|"
                       r"\bout of (?:CUDA|GPU|device|video) memory\b|"
                       r"显存不足|爆显存|显存溢出", re.I)
_OOM_CPU = re.compile(r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory)|"
                      r"\bcannot allocate memory\b|std::bad_alloc|MemoryError", re.I)
_OOM_KILLED = re.compile(r"exitcode\s{0,2}:\s{0,2}-9\b|Signal 9 \(SIGKILL\)|return code = -9|\bsignal SIGKILL\b|"
                         r"died with <Signals\.SIGKILL|^Killed$|Out of memory: Kill(?:ed)? process|oom-kill", re.M)
_RESERVED = re.compile(r"(?P<n>[\d.]{1,10}) (?P<u>[KMGT]iB) is reserved by PyTorch but unallocated")


_OOM_PHASES: Final[list[tuple[str, re.Pattern[str]]]] = [
    ("backward", re.compile(r"\bbackward\b|run_backward|backprop|反向", re.I)),
    ("evaluation", re.compile(r"\bevaluat(?:e|ion|ing)|\beval(?:uation)?_loop\b|\bprediction_(?:step|loop)\b|"
                              r"nested_concat|评估|评测", re.I)),
]


def oom_phase(text: str) -> str | None:
    """Where an out-of-memory error struck, as far as `text` (a message, frame names, a title) says."""
    found = [name for name, rx in _OOM_PHASES if rx.search(text)]
    return "|".join(found) or None


def _rule_memory(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    text = f"{exc_type} {msg}"
    if _OOM_CUDA.search(text):
        facts["oom.kind"] = "cuda"
    elif _OOM_KILLED.search(msg):
        facts["oom.kind"] = "host_killed"
    elif _OOM_CPU.search(text):
        facts["oom.kind"] = "cpu"
    phase = oom_phase(msg) if "oom.kind" in facts else None
    if phase:
        facts["oom.phase"] = phase
    m = _RESERVED.search(msg)
    if m:
        try:
            gib = float(m.group("n")) * {"KiB": 1 / 1024 ** 2, "MiB": 1 / 1024, "GiB": 1.0, "TiB": 1024.0}[m.group("u")]
            facts["oom.reserved_unallocated"] = "large" if gib >= 1.0 else "small"
        except ValueError:
            pass
    return facts, _hint("memory:", facts)


_NCCL_OP = re.compile(r"OpType=(?P<op>\w{1,30})")
_NCCL_TIMEOUT = re.compile(r"Timeout\(ms\)=(?P<ms>\d{1,10})")
_NCCL_ERR = re.compile(r"\b(nccl[A-Z]\w{1,40}(?:Error|Usage))\b")
_NCCL_PHRASES: Final = [
    (re.compile(r"unhandled system error", re.I), "ncclSystemError"),
    (re.compile(r"internal error", re.I), "ncclInternalError"),
    (re.compile(r"unhandled cuda error", re.I), "ncclUnhandledCudaError"),
    (re.compile(r"invalid usage", re.I), "ncclInvalidUsage"),
    (re.compile(r"remote process exited or there was a network error", re.I), "ncclRemoteError"),
    (re.compile(r"Watchdog caught collective operation timeout|collective operation timeout|NCCL timeout", re.I),
     "timeout"),
]
_NCCL_RESOURCE: Final = [
    (re.compile(r"shared memory segment|/dev/shm|\bshm\b", re.I), "shm"),
    (re.compile(r"Connection (?:closed|refused|reset)|ibv_\w+|NET/IB|NET/Socket|socket timeout", re.I), "net"),
    (re.compile(r"Cuda failure|unhandled cuda error", re.I), "cuda"),
]
_EXITCODE = re.compile(r"(?:exitcode\s{0,2}:\s{0,2}|return code\s?=\s?|exit status\s|exit code\s)(?P<c>-?\d{1,4})")
_SIGNAL = re.compile(r"Signal \d{1,2} \((?P<s>SIG[A-Z]{2,8})\)|terminated with signal (?P<t>SIG[A-Z]{2,8})|"
                     r"died with <Signals\.(?P<u>SIG[A-Z]{2,8})")
_SIGNUM: Final = {"9": "SIGKILL", "11": "SIGSEGV", "6": "SIGABRT", "7": "SIGBUS", "15": "SIGTERM", "2": "SIGINT"}


# DeepSpeed's batch check: `... * world_size 1024 != 64 * 2 * 1`, the world size last.
_BATCH_WORLD = re.compile(r"world_size\s*\d+\s*!=\s*\d+\s*\*\s*\d+\s*\*\s*(?P<w>\d+)")


def _rule_distributed(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _NCCL_OP.search(msg)
    if m:
        facts["nccl.op"] = m.group("op").lower().replace("_", "")
    m = _NCCL_TIMEOUT.search(msg)
    if m:
        facts["nccl.timeout_ms"] = m.group("ms")
    m = _NCCL_ERR.search(msg)
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
        m = _EXITCODE.search(msg)
        if m:
            facts["exitcode"] = m.group("c")
            if m.group("c").startswith("-") and m.group("c")[1:] in _SIGNUM:
                facts["signal"] = _SIGNUM[m.group("c")[1:]]
        m = _SIGNAL.search(msg)
        if m:
            facts["signal"] = m.group("s") or m.group("t") or m.group("u")
    m = _BATCH_WORLD.search(msg)
    if m:
        facts["batch.world_size"] = "single" if m.group("w") == "1" else "several"
    return facts, _hint("distributed:", facts)


_NO_MODULE = re.compile(r"No module named '(?P<m>[\w.]{1,120})'"
                        # transformers' backend checks say it in words: `requires the SentencePiece library but it
                        # was not found`, `You need to have sentencepiece installed`, `requires the protobuf library`
                        r"|requires the (?P<lib>[\w.\-]{2,40}) library|need to have (?P<pkg>[\w.\-]{2,40}) installed")
_CANNOT_IMPORT = re.compile(r"cannot import name '(?P<n>\w{1,120})' from '(?P<m>[\w.]{1,120})'")
_UNDEF = re.compile(r"undefined symbol: (?P<s>_Z\w{1,4000})")
_KEY = re.compile(r"^'(?P<k>[^'\n]{1,120})'$|model type `?'?(?P<t>[\w\-]{1,60})`?'?")
_ATTR = re.compile(r"has no attribute '(?P<a>\w{1,120})'")
_AMPERE = re.compile(r"\bAmpere\b|sm_?8\d|compute capability (?:>=|of at least) ?8", re.I)


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
    m = _NO_MODULE.search(msg)
    if m:
        facts["import.module"] = (m.group("m") or m.group("lib") or m.group("pkg")).split(".")[0].lower()
    m = _CANNOT_IMPORT.search(msg)
    if m:
        facts["import.name"], facts["import.module"] = m.group("n"), m.group("m").split(".")[0].lower()
    m = _UNDEF.search(msg)
    if m:
        ns = _demangle_ns(m.group("s"))
        if ns:
            facts["import.undefined_symbol"] = ns
    if exc_type.endswith("KeyError") or "model type" in msg:
        m = _KEY.search(msg.strip())
        if m:
            facts["key.value"] = (m.group("k") or m.group("t")).lower()
    m = _ATTR.search(msg)
    if m:
        facts["attribute.name"] = m.group("a")
    cmd = missing_command(msg)
    if cmd:
        facts["command.missing"] = cmd
    if _AMPERE.search(msg):
        facts["hw.requirement"] = "ampere"
    return facts, _hint("names:", facts)


_MAX_LENGTH = re.compile(r"but `?max_length`? is set to (?P<n>\d+)")
_ONNX_LATER = re.compile(r"Support for this operator was added in version \d+")
_ONNX_NONE = re.compile(r"Exporting the operator .{1,200} is not supported\. Please feel free to request support")


def _rule_generation(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    m = _MAX_LENGTH.search(msg)
    if m:
        facts["generate.max_length"] = "default" if m.group("n") == "20" else "set"
    if _ONNX_LATER.search(msg):
        facts["onnx.support"] = "later_opset"
    elif _ONNX_NONE.search(msg):
        facts["onnx.support"] = "none"
    return facts, _hint("generation/export:", facts)


_DS_VS_HF = re.compile(r"ds [\w.]+=(?P<a>\S+) vs hf [\w.]+(?: \(calculated\))?=(?P<b>\S+)")
_GEN_BATCH = re.compile(r"global train batch size \((?P<a>\d+) x (?P<b>\d+)\) must be evenly divisible by the "
                        r"number of generations per prompt \((?P<g>\d+)\)")


def _rule_config(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    facts: dict[str, str] = {}
    pairs = _DS_VS_HF.findall(msg)
    if pairs:
        same = all(a.strip("'\"") == b.strip("'\"") for a, b in pairs)
        facts["config.values"] = "equal" if same else "differ"
    m = _GEN_BATCH.search(msg)
    if m:
        g = int(m.group("g"))
        facts["batch.divides"] = "yes" if g and int(m.group("a")) * int(m.group("b")) % g == 0 else "no"
    return facts, _hint("configuration:", facts)


_SYMPTOMS: Final[list[tuple[str, re.Pattern]]] = [
    ("inplace", re.compile(r"modified by an inplace operation")),
    ("backward_twice", re.compile(r"backward through the graph a second time")),
    ("batch_size", re.compile(r"Expected input batch_size \(?\S{1,12}\)? to match target batch_size")),
    ("no_process_group", re.compile(r"Default process group (?:has not been|is not) initialized")),
    ("zip_archive", re.compile(r"PytorchStreamReader failed reading zip archive")),
    ("matmul_shapes", re.compile(r"mat1 and mat2 shapes cannot be multiplied")),
    ("no_grad_fn", re.compile(r"does not require grad and does not have a grad_fn")),
    ("index_range", re.compile(r"index out of range in self")),
    # generate() checks only the last column for pad ids, so a pad token equal to EOS trips it too
    ("right_padding", re.compile(r"right-padding was detected")),
]


def _rule_symptoms(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    for name, rx in _SYMPTOMS:
        if rx.search(msg):
            return {"symptom": name}, f"a message with many known causes ({name})"
    return {}, None


_CPU_BUILD = re.compile(r"\d\+cpu\b|not compiled with CUDA enabled", re.I)
_GPU_BUILD = re.compile(r"\d\+(?:cu\d{2,3}|rocm[\d.]+)\b")


def _rule_builds(exc_type: str, msg: str) -> tuple[dict[str, str], str | None]:
    build = "cpu" if _CPU_BUILD.search(msg) else "cuda" if _GPU_BUILD.search(msg) else None
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
