"""Signatures of error messages: a parameterized template, discriminating facts, tokens, and the steps taken.

Templating follows sentry's `parameterization.py`: a table of named, commented regexes compiled into one verbose
alternation, applied in a single left-to-right pass, so a replaced span is never touched twice and the work is
linear in the message length. Every rule that fires leaves a human line in `Signature.steps`.

Facts (`kb.traceback.facts`) are read from the raw message before templating; they keep the literals a template
must drop but that tell look-alike failures apart (which side of a size mismatch is 0, the byte of an invalid
load key, the op of a device mismatch, ...).

`SIGNATURE_VERSION` is derived from the rules themselves (the rule files of kb/data/rules and the code that runs
them, `kb.rules.version_inputs`): any change to them is a new version, with no constant to forget to bump. It is
written into each KB's manifest, each feedback row, Slack button values and GitHub markers. These name a signature
by `signature_ref`, a fixed-length digest of its key, never by a key cut to fit.
"""
from __future__ import annotations

import builtins
import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Final

from pydantic import BaseModel, ConfigDict, Field

from kb import rules
from kb.traceback.facts import FACTS, extract_facts, oom_phase
from kb.traceback.frames import reduce_frames
from kb.traceback.lines import exception_head
from kb.traceback.models import ErrorEvent



def rules_version(files: list[Path]) -> str:
    """A version naming exactly these rule files' contents."""
    h = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.name):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return "sig:" + h.hexdigest()[:12]


SIGNATURE_VERSION: Final = rules_version(rules.version_inputs())


def signature_ref(key: str) -> str:
    """A fixed-length name for a signature key (`Signature.key`), for places with a size limit or a veto to match:
    feedback rows, Slack button values, GitHub markers."""
    return "ref:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]

SIG_ACCEPT: Final = 0.72         # a similarity this high means the line explains the error (matcher, repro outcomes)
MAX_MESSAGE: Final = 4000        # longer messages are cut before templating (a note goes into steps)


class Signature(BaseModel):
    """What a message is, with its variable parts replaced; see the module docstring."""

    model_config = ConfigDict(extra="forbid")

    exc_type: str | None             # last dotted component (`torch.cuda.OutOfMemoryError` → `OutOfMemoryError`)
    template: str
    facts: dict[str, str] = Field(default_factory=dict)
    tokens: list[str] = Field(default_factory=list)
    steps: list[str] = Field(default_factory=list)
    frames: list[str] = Field(default_factory=list)     # innermost-first `module:function` of library frames
    version: str = SIGNATURE_VERSION

    @property
    def key(self) -> str:
        """The one-line form people see (`query.signature`), and what feedback is keyed by."""
        return f"{self.exc_type}: {self.template}" if self.exc_type else self.template

    @property
    def ref(self) -> str:
        return signature_ref(self.key)


# ----------------------------------------------------------------------------------------------------------------
# Parameterization rules
# ----------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    name: str
    pattern: str                     # verbose-mode regex body; named groups must be unique across rules
    replace: Callable[[re.Match[str]], str]
    what: str                        # noun for the step line ("shapes", "paths")


def _const(s: str) -> Callable[[re.Match[str]], str]:
    return lambda m: s


def _torch_size(m: re.Match[str]) -> str:
    # a zero size is a fact (ZeRO-3 / meta placeholder) and stays; other sizes become <n>
    dims = [d.strip() for d in m.group("size_dims").split(",") if d.strip()]
    return "torch.Size([" + ", ".join("0" if d == "0" else "<n>" for d in dims) + "])"


def _tuple_shape(m: re.Match[str]) -> str:
    dims = [d.strip() for d in re.split(r"[,x×]", m.group("tuple_dims")) if d.strip()]
    open_, close = m.group("tuple_open"), {"(": ")", "[": "]"}[m.group("tuple_open")]
    return open_ + ", ".join("0" if d == "0" else "<n>" for d in dims) + close


def _keep_lower(m: re.Match[str]) -> str:
    return m.group(0).lower()


def _dir_only(m: re.Match[str]) -> str:
    return "<path>/"


RULES: Final[list[Rule]] = [
    # URLs before paths (they contain slashes)
    Rule("url", r"(?P<url>https?://[^\s'\"`)>\]]{1,500})", _const("<url>"), "URLs"),
    # `torch.Size([151936, 896])` → `torch.Size([<n>, <n>])`; `torch.Size([0])` kept
    Rule("torch_size", r"torch\.Size\(\[(?P<size_dims>[\d,\s]{0,80})\]\)", _torch_size, "shapes"),
    # bare shapes: `(75968, 1024)`, `[4, 2]`, `mat (2x4096)` — at least two dims so `(59)` stays a number
    Rule("tuple_shape",
         r"(?P<tuple_open>[(\[])(?P<tuple_dims>\d{1,12}(?:\s?[,x×]\s?\d{1,12}){1,7})[)\]]", _tuple_shape, "shapes"),
    Rule("dims", r"(?<![\w.])(?P<dims>\d{1,12}x\d{1,12}(?:x\d{1,12}){0,5})(?![\w.])", _const("<n>x<n>"), "shapes"),
    # CUDA block/thread coordinates of a kernel assert
    Rule("cuda_coords", r"(?P<coord_kind>block|thread):\s?\[\d{1,6},\s?\d{1,6},\s?\d{1,6}\]",
         lambda m: f"{m.group('coord_kind')}: [<n>]", "thread/block ids"),
    # mangled C++ symbols of an undefined-symbol ImportError
    Rule("symbol", r"(?<!\w)(?P<symbol>_Z[\w]{4,4000})", _const("<symbol>"), "C++ symbols"),
    # parameter names where PyTorch prints them: `size mismatch for X:`, `X: copying a param`, `X not in state_dict`
    Rule("param_sizemismatch", r"(?<=size mismatch for )(?P<param_a>[\w.\-]{1,300})(?=:)", _const("<param>"),
         "parameter names"),
    Rule("param_copying", r"(?<![\w.])(?P<param_b>[\w\-]{1,80}(?:\.[\w\-]{1,80}){1,30})(?=:\s?copying a param)",
         _const("<param>"), "parameter names"),
    Rule("param_not_in", r"(?<![\w.])(?P<param_c>[\w\-]{1,80}(?:\.[\w\-]{1,80}){1,30})(?=\s(?:is\s)?not in (?:the )?state_dict)",
         _const("<param>"), "parameter names"),
    # quoted state-dict keys (`Missing key(s) in state_dict: "lm_head.weight", ...`): dotted, ending in a tensor name
    Rule("param_quoted",
         r"(?P<pq>[\"'])(?P<param_d>[\w\-]{1,80}(?:\.[\w\-]{1,80}){0,30}\.(?:weight|bias|inv_freq|running_mean|"
         r"running_var|num_batches_tracked|scale|w\d|w1w3|qweight|qzeros|scales|g_idx|lora_[AB]\.weight))(?P=pq)",
         lambda m: f"{m.group('pq')}<param>{m.group('pq')}", "parameter names"),
    # model classes in known positions and by their suffix
    Rule("model_for", r"(?<=state_dict for )(?P<model_a>\w{1,120})|(?<=Some weights of )(?P<model_b>\w{1,120})",
         _const("<model>"), "model classes"),
    Rule("model_class",
         r"\b(?P<model_c>[A-Z]\w{0,80}(?:For(?:CausalLM|SequenceClassification|TokenClassification|"
         r"ConditionalGeneration|MaskedLM|QuestionAnswering|Seq2SeqLM|PreTraining|MultipleChoice)|LMHeadModel|"
         r"PreTrainedModel))\b",
         _const("<model>"), "model classes"),
    # file paths: directories go, the base name stays (`Indexing.cu:1289` keeps `Indexing.cu`)
    Rule("path",
         r"(?P<path>(?:[A-Za-z]:)?(?:\.{1,2}[\\/]|[\\/])?(?:[\w.\-+@~]{1,120}[\\/]){2,60}|(?:[A-Za-z]:)?[\\/][\w.\-+@~]{1,120}[\\/])"
         r"(?=[\w.\-+@~])",
         _dir_only, "paths"),
    # device names are literals: `cuda:0`, `CUDA:1`, `CPU` → lower case, never numbers (`CUDA error` is left alone)
    Rule("device", r"(?<![\w.])(?P<device>(?i:cuda|npu|xpu|mps|hpu|meta|cpu):\d{1,3}|(?i:cpu))(?![\w.])",
         _keep_lower, "device names"),
    # timestamps and dates
    Rule("timestamp", r"(?P<ts>\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?)?)", _const("<ts>"),
         "timestamps"),
    Rule("clock", r"(?<![\w:])(?P<clock>\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d{1,6})?)(?![\w:])", _const("<ts>"),
         "timestamps"),
    # uuids and hex ids / addresses
    Rule("uuid", r"(?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)",
         _const("<uuid>"), "uuids"),
    Rule("hex_addr", r"(?P<hex_addr>\b0x[0-9a-fA-F]{1,16}\b)", _const("<hex>"), "hex addresses"),
    Rule("hex_id", r"(?P<hex_id>\b(?=[0-9a-f]{0,63}[a-f])(?=[0-9a-f]{0,63}\d)[0-9a-f]{8,64}\b)", _const("<hex>"),
         "hex ids"),
    # ranks: `[Rank 3]`, `rank 3`, `local_rank: 0`
    Rule("rank", r"(?P<rank_word>\b(?:[Rr]ank|local_rank|global_rank)\b)(?P<rank_sep>\s?[:=]?\s?)\d{1,6}",
         lambda m: f"{m.group('rank_word')}{m.group('rank_sep')}<n>", "ranks"),
    # memory sizes: `2.00 GiB`
    Rule("mem", r"(?<![\w.])(?P<mem>\d{1,9}(?:\.\d{1,4})?\s?(?:[KMGT]i?B|bytes))\b", _const("<mem>"), "memory sizes"),
    # remaining numbers (ints, floats, versions); digits inside identifiers (fp16, w1w3, mat2) are not numbers
    Rule("number", r"(?<![\w.])(?P<number>-?\d{1,30}(?:\.\d{1,30}){0,4})(?![\w])", _const("<n>"), "numbers"),
]

_COMBINED: Final = re.compile("|".join(f"(?P<r{k}>{r.pattern})" for k, r in enumerate(RULES)))


def parameterize(message: str) -> tuple[str, Counter[str]]:
    """Replace the variable parts of a message. Returns (template, count of replacements per rule name)."""
    counts: Counter[str] = Counter()

    def repl(m: re.Match[str]) -> str:
        for k, rule in enumerate(RULES):
            if m.group(f"r{k}") is not None:
                out = rule.replace(m)
                if out != m.group(0):
                    counts[rule.name] += 1
                return out
        return m.group(0)

    return _COMBINED.sub(repl, message), counts


# ----------------------------------------------------------------------------------------------------------------
# Signatures
# ----------------------------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"<\w+>|[A-Za-z_][A-Za-z0-9_]{1,60}|[\u4e00-\u9fff]{1,20}")
_TOKEN_STOP: Final = rules.words(rules.load("vocabulary")["token_stopwords"])
_GENERIC_TYPES: Final = frozenset({None, "", "Error", "Exception", "BaseException"})
# Library exceptions that subclass a builtin one (vocabulary.toml): libraries move a message to a more specific type
# between releases, so a report and an entry of one message may name a parent and its child.
_LIBRARY_PARENTS: Final[dict[str, str]] = rules.load("vocabulary")["exception_parents"]


def _ancestors(name: str) -> list[str]:
    """`name` and the types it subclasses, nearest first, as far as the builtins and `_LIBRARY_PARENTS` say."""
    out = [name]
    while name in _LIBRARY_PARENTS:
        name = _LIBRARY_PARENTS[name]
        out.append(name)
    builtin = getattr(builtins, name, None)
    if isinstance(builtin, type) and issubclass(builtin, BaseException):
        out.extend(k.__name__ for k in builtin.__mro__[1:] if issubclass(k, BaseException))
    return out


def related_types(a: str, b: str) -> bool:
    """True when one exception type subclasses the other (`DistNetworkError` is a `RuntimeError`)."""
    return a in _ancestors(b) or b in _ancestors(a)


def _tokens(template: str) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for t in _TOKEN.findall(template):
        t = t.lower()
        if t in _TOKEN_STOP or t.startswith("<"):
            continue
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _steps(counts: Counter[str], facts: dict[str, str]) -> list[str]:
    steps: list[str] = []
    by_what: Counter[str] = Counter()
    for rule in RULES:
        if counts[rule.name]:
            by_what[rule.what] += counts[rule.name]
    for what, n in by_what.items():
        line = f"replaced {n} {what}" if what != "device names" else f"kept {n} device names (lower-cased)"
        if what == "shapes":
            zs = facts.get("mismatch.zero_side")
            if zs in ("current_model", "checkpoint"):
                line += f"; kept zero size on the {zs.replace('_', '-')} side"
        steps.append(line)
    return steps


# An error body, of an HTTP API (`Error code: 400 - {'object': 'error', 'message': '...', 'type': ...}`) or of an app
# that prints one (`{"title": "Failed to load model", "cause": "llama.cpp error: ..."}`): the message is the error;
# the other fields are how a server or app frames it, and servers, clients and apps frame the same message differently.
_BODY_MESSAGE = re.compile(r"""(['"])(?:message|msg|detail|cause|error)\1\s*:\s*(['"])(?P<msg>.+?)(?<!\\)\2\s*[,}]""")
_BODY_FIELD = re.compile(r"""\s*,?\s*(['"])(?:type|code|param|object|status)\1\s*:\s*(?:'[^']*'|"[^"]*"|[\w.-]+)""")


def _api_error_message(message: str) -> str | None:
    """The message inside an API error body, or None when `message` is not one. A body cut before its `message`
    key (only `...', 'type': ..., 'code': 400}` left) keeps what precedes its fields."""
    if "{" in message:
        m = _BODY_MESSAGE.search(message)
        if not m or len(m.group("msg").split()) < 2:
            return None
        return m.group("msg").replace('\\"', '"').replace("\\'", "'").strip()   # JSON escapes its quotes
    if message.rstrip().endswith("}") and len(_BODY_FIELD.findall(message)) >= 2:
        rest = _BODY_FIELD.sub("", message).rstrip(" }'\"")
        return rest if len(rest.split()) >= 2 else None
    return None


# pydantic prints an error raised inside a validator as `Value error, <message> [type=value_error, input_value=...]`
# (`Assertion failed, ...` for an assert), under `1 validation error for <Model>` and the field's name: the same
# failure as `ValueError: <message>` raised without pydantic in between (another release, a plain check).
_VALIDATOR = re.compile(r"""^(?:1\ validation\ error\ for\ [\w.]+\s+(?:[\w.\[\]-]+\s+)?)?
                            (?P<kind>Value\ error|Assertion\ failed),\ (?P<msg>.+?)
                            (?:\s*\[type=\w+[^\]]*\]?)?(?:\s*For\ further\ information\ visit\ \S+)?\s*$""", re.S | re.X)
_VALIDATOR_TYPES: Final = {"Value error": "ValueError", "Assertion failed": "AssertionError"}
# Python 3.10+ ends an AttributeError/NameError/ImportError with a guess at the name meant (`Did you mean:
# 'tokenize'?`): it depends on the object's other names and the interpreter, not on the failure
_SUGGESTION = re.compile(r"""\.?\s+Did\ you\ mean:?\ ['"`][\w.]{1,120}['"`]\s?\??\s*$""", re.X)


def _validator_error(exc_type: str | None, message: str) -> tuple[str, str] | None:
    """(type, message) of the error a pydantic validator raised, when `message` is pydantic's rendering of one."""
    if exc_type is not None and exc_type.rsplit(".", 1)[-1] != "ValidationError":
        return None
    m = _VALIDATOR.match(message)
    if not m or len(m.group("msg").split()) < 3:
        return None
    return _VALIDATOR_TYPES[m.group("kind")], m.group("msg").strip()


def make_signature(exc_type: str | None, message: str) -> Signature:
    """Signature of one error.

    Args:
        exc_type: the exception type as printed (`torch.OutOfMemoryError`), or None.
        message: the message after `Type: ` (may span lines).

    Returns:
        A `Signature` with template, facts, tokens and the steps that produced them.
    """
    steps: list[str] = []
    if len(message) > MAX_MESSAGE:
        message = message[:MAX_MESSAGE]
        steps.append(f"message cut to {MAX_MESSAGE} chars")
    message = message.strip()
    if len(message) > 2 and message[0] == message[-1] == "`" and message.count("`") == 2:
        message = message[1:-1].strip()          # `Error: \`param: copying a param ...\``
        steps.append("unwrapped a message quoted in backticks")
    if (hint := _SUGGESTION.search(message)) is not None and hint.start() > 0:
        message = message[:hint.start()]
        steps.append("dropped the interpreter's guess at the name meant (Did you mean ...?)")
    raised = _validator_error(exc_type, message)
    if raised is not None:
        steps.append(f"took the {raised[0]} a pydantic validator raised out of its validation error")
        exc_type, message = raised
    body = _api_error_message(message)
    if body is not None:
        message = body
        steps.append("took the message out of an API error body (its type/code/param fields frame it)")
    facts, hints = extract_facts(exc_type, message)
    template, counts = parameterize(" ".join(message.split()))   # whitespace runs and newlines → one space
    steps.extend(_steps(counts, facts))
    steps.extend(f"fact rule: {h}" for h in hints)
    short = exc_type.rsplit(".", 1)[-1] if exc_type else None
    if short and short != exc_type:
        steps.append(f"type {exc_type} → {short}")
    return Signature(exc_type=short, template=template, facts=facts, tokens=_tokens(template), steps=steps)


def signature_of_line(line: str) -> Signature:
    """Signature of one error line: `Type: message` is split, other lines are all message."""
    line = line.strip()
    head = exception_head(line)
    if head is not None:
        return make_signature(head[0], head[1] or "")
    return make_signature(None, line)


def signature_of_event(event: ErrorEvent) -> Signature:
    """Signature of a parsed event, with its library frames kept as evidence."""
    sig = make_signature(event.type, event.message)
    frames = reduce_frames(event.frames, libraries_only=True, limit=8)
    if frames:
        sig = sig.model_copy(update={"frames": frames,
                                     "steps": [*sig.steps, f"kept {len(frames)} library frames as evidence"]})
    # The functions an OOM passed through say where it struck (backward vs an evaluation loop).
    return with_oom_phase(sig, " ".join(f.function or "" for f in event.frames), "frames")


def with_oom_phase(sig: Signature, text: str, where: str) -> Signature:
    """`sig` with the OOM phase that `text` names, when it names one and `sig` is an OOM without a phase."""
    phase = oom_phase(text) if "oom.kind" in sig.facts and "oom.phase" not in sig.facts else None
    if not phase:
        return sig
    return sig.model_copy(update={"facts": {**sig.facts, "oom.phase": phase},
                                  "steps": [*sig.steps, f"fact rule: oom.phase={phase} from the {where}"]})


# ----------------------------------------------------------------------------------------------------------------
# Similarity
# ----------------------------------------------------------------------------------------------------------------

# Names a template keeps because they may carry the cause: quoted literals, CamelCase and snake_case identifiers,
# and the name of a called function (`forward()` and `compute_loss()` are other APIs even in the same words).
_LITERAL = re.compile(r"'([^'<>\s]{2,80})'|\"([^\"<>\s]{2,80})\"|\b([A-Z]\w*[a-z]\w*[A-Z]\w*|[a-z][a-z0-9]*_[a-z0-9_]+)\b"
                      r"|\b([a-z][a-z0-9]{2,})\(\)")


@lru_cache(maxsize=8192)
def _literals(template: str) -> frozenset[str]:
    """The names a template keeps (entry templates recur in every query, and every pair asks: computed once each)."""
    return frozenset(next(g for g in m.groups() if g) for m in _LITERAL.finditer(template))


def shared_quoted(a: Signature, b: Signature) -> set[str]:
    """Quoted values both messages carry (`'compute_86'`, `'fused_adam'`): what they say of one specific thing."""
    quoted = [{next(g for g in m.groups()[:2] if g) for m in _LITERAL.finditer(t) if m.group(1) or m.group(2)}
              for t in (a.template, b.template)]
    return quoted[0] & quoted[1]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


@lru_cache(maxsize=8192)
def _first_sentence_tokens(template: str) -> tuple[str, ...]:
    """Tokens of a template's first sentence (entry templates recur in every query: computed once each)."""
    return tuple(_tokens(_SENTENCE_END.split(template, maxsplit=1)[0]))


# `Owner.method()` in a call's error ("CustomTrainer.compute_loss() got an unexpected keyword argument ..."): the
# class whose method was called. Subclasses share a method and its signature, so the same method of another owner
# (a user's own Trainer subclass, another model class) is the same error. A constructor is not: `X.__init__()` is
# another API for every X.
_CALL_OWNER = re.compile(r"\b([A-Za-z_]\w*)\.(?!__init__\(|__new__\(|__call__\()[A-Za-z_]\w*\(\)")


@lru_cache(maxsize=8192)
def _call_owners(template: str) -> frozenset[str]:
    return frozenset(_CALL_OWNER.findall(template))


DIVERGE_SHARE: Final = 0.15    # below this share of its words, what one message adds is a name in the same message


def divergence(a: Signature, b: Signature) -> tuple[list[str], list[str]]:
    """What each message says in place of the other's, or two empty lists when one merely says more (a cut or a
    longer form of one message).

    First the names (`QWenTokenizer` / `LLaMATokenizer`, one keyword for another): the same words about another
    name are the same kind of error, but an entry whose cause is that name does not explain the other by itself.
    Then plain words, when each side has at least two the other lacks and they are a fair share of it ("on
    multiple devices" / "on a different device than the one you're training on"): two messages that part ways, not
    one message in two versions, or about another model ("... it looks like vikp/surya_tablerec is not the path")."""
    la, lb = _literals(a.template) - _call_owners(a.template), _literals(b.template) - _call_owners(b.template)
    only_a, only_b = _unbroken(sorted(la - lb), lb, a.template), _unbroken(sorted(lb - la), la, b.template)
    if only_a and only_b:
        return only_a, only_b
    # Words: of the first sentence only. What follows it is advice, which releases reword ("Hint: enable anomaly
    # detection ..." / "Hint: the backtrace further above shows ...") without the error changing.
    first_a, first_b = _first_sentence_tokens(a.template), _first_sentence_tokens(b.template)
    ta, tb = set(first_a), set(first_b)
    words_a, words_b = [t for t in first_a if t not in tb], [t for t in first_b if t not in ta]
    parts = all(len(w) >= 2 and len(w) >= DIVERGE_SHARE * len(t) for w, t in ((words_a, ta), (words_b, tb)))
    return (words_a, words_b) if parts else ([], [])


def _unbroken(names: list[str], others: set[str], template: str) -> list[str]:
    """`names` less those that are the start of one of `others` broken by a line wrap or a copy (`DistributedD
    ataParallel` for `DistributedDataParallel`): the rest of that name follows it after one space; and less those
    that name another release of the same model (`Qwen2_5_VL` / `Qwen2VL`): both carry a release number, and the
    letters are the same."""
    family = {_family(o) for o in others if re.search(r"\d", o)}
    return [n for n in names
            if not any(o != n and o.startswith(n) and f"{n} {o[len(n):]}" in template for o in others)
            and not (re.search(r"\d", n) and _family(n) in family)]


def _family(name: str) -> str:
    return re.sub(r"[\d_.-]+", "", name).lower()


VARIANT_WORDS: Final = 3        # words a message needs beside its name for two names in it to be one message


def named_like(q: Signature, d: Signature, siblings: list[Signature]) -> Signature | None:
    """`q` read with `d`'s name in place of its own, when the entry shows that name varies: another of its lines
    says the same words about another name (two architectures in one "unknown model architecture" message, two
    model types in one "does not recognize this architecture"). A report that names a third is then that message,
    not another one. None when more than one name differs, or no line of the entry varies this one."""
    lq, ld = _literals(q.template), _literals(d.template)
    only_q, only_d = lq - ld, ld - lq
    if len(only_q) != 1 or len(only_d) != 1:
        return None
    (own,), (name,) = only_q, only_d
    words = set(_tokens(d.template.replace(name, " "))) - set(_tokens(name))
    varies = len(words) >= VARIANT_WORDS and any(
        o is not d and name not in _literals(o.template) and _literals(o.template) - ld and words <= set(o.tokens)
        for o in siblings)
    if not varies or own not in q.template:
        return None
    template = q.template.replace(own, name)
    return q.model_copy(update={"template": template, "tokens": _tokens(template),
                                "steps": [*q.steps, f"read {own} as {name}: the entry's lines vary that name"]})


HARD_CONFLICT: Final = 0.25      # factor per conflicting hard fact
SOFT_CONFLICT: Final = 0.85      # factor per conflicting soft fact


def values_agree(a: str, b: str) -> bool:
    """Two fact values agree when they share an alternative (`embedding|lm_head` agrees with `lm_head`)."""
    return bool(set(a.split("|")) & set(b.split("|")))


# Value pairs whose conflict is only soft even for a hard fact: embedding and LM head are often the same (tied)
# matrix and show up together in one mismatch.
_NEAR_VALUES: Final[dict[str, list[frozenset[str]]]] = {
    "mismatch.param_role": [frozenset({"embedding", "lm_head"})],
}


# Facts whose values are ordered buckets: neighbouring buckets are neither agreement nor conflict.
_ORDERED: Final[dict[str, list[str]]] = {"mismatch.delta": ["1", "2-8", "9-64", "65-1024", ">1024"]}


def _neighbours(name: str, a: str, b: str) -> bool:
    order = _ORDERED.get(name)
    if not order or a not in order or b not in order:
        return False
    return abs(order.index(a) - order.index(b)) <= 1


def _near(name: str, a: str, b: str) -> bool:
    va, vb = set(a.split("|")), set(b.split("|"))
    return any(va <= group and vb <= group for group in _NEAR_VALUES.get(name, []))


def _excused(name: str, a: Signature, b: Signature) -> str | None:
    """Why a shared fact should not be compared at all, or None."""
    if name == "mismatch.param_role" and a.facts.get("mismatch.relation") == "zero" == b.facts.get("mismatch.relation"):
        return "both sides are 0-sized placeholders, so every parameter fails alike"
    return None


def hard_conflicts(a: Signature, b: Signature) -> list[str]:
    """The hard facts both signatures carry and disagree on (the messages describe different mechanisms)."""
    out = []
    for name in sorted(set(a.facts) & set(b.facts)):
        spec = FACTS.get(name)
        if (spec and spec.hard and not _excused(name, a, b) and not values_agree(a.facts[name], b.facts[name])
                and not _near(name, a.facts[name], b.facts[name])):
            out.append(f"{name}: report has {a.facts[name]}, entry has {b.facts[name]}")
    return out


def similarity(a: Signature, b: Signature) -> tuple[float, list[str]]:
    """How alike two signatures are, 0..1, with the reasons.

    Type (30%: the same 1, one a subclass of the other 0.6) and template tokens (70%: a blend of Jaccard and containment, so a message cut short still matches
    its full form) make a base score; facts both sides carry then move it: agreement lifts it towards 1, each
    conflicting *hard* fact multiplies it by `HARD_CONFLICT`, each conflicting soft fact by `SOFT_CONFLICT`.
    """
    why: list[str] = []
    if a.version != b.version:
        why.append(f"different signature versions {a.version} / {b.version}: compared anyway")
    # type
    if a.exc_type in _GENERIC_TYPES or b.exc_type in _GENERIC_TYPES:
        t = 0.5
        why.append(f"type unknown or generic on one side ({a.exc_type} / {b.exc_type})")
    elif a.exc_type == b.exc_type:
        t = 1.0
        why.append(f"same type {a.exc_type}")
    elif related_types(a.exc_type, b.exc_type):
        t = 0.6
        why.append(f"related types {a.exc_type} / {b.exc_type} (one subclasses the other)")
    else:
        t = 0.0
        why.append(f"different types {a.exc_type} / {b.exc_type}")
    # text
    ta, tb = set(a.tokens), set(b.tokens)
    if a.template == b.template:
        text = 1.0
        why.append("identical templates")
    elif ta and tb:
        inter = ta & tb
        jacc = len(inter) / len(ta | tb)
        cont = len(inter) / min(len(ta), len(tb))
        text = 0.35 * jacc + 0.65 * cont
        shared = ", ".join(sorted(inter)[:8])
        why.append(f"template overlap {text:.2f} (jaccard {jacc:.2f}, containment {cont:.2f}; shared: {shared})")
    else:
        text = 0.0
        why.append("no template tokens to compare")
    score = 0.3 * t + 0.7 * text
    # facts: agreement lifts the score towards 1 first, then every conflict multiplies it down
    shared_facts = sorted(set(a.facts) & set(b.facts))
    factor = 1.0
    total = agree = 0.0
    for name in shared_facts:
        spec = FACTS.get(name)
        w = spec.weight if spec else 0.5
        excuse = _excused(name, a, b)
        if excuse:
            why.append(f"fact {name} not compared: {excuse}")
            continue
        if a.facts[name] != b.facts[name] and _neighbours(name, a.facts[name], b.facts[name]):
            why.append(f"fact {name} close: {a.facts[name]} vs {b.facts[name]} (neighbouring buckets)")
            continue
        total += w
        if values_agree(a.facts[name], b.facts[name]):
            agree += w
            why.append(f"fact {name} agrees: {a.facts[name]}")
        else:
            hard = (spec.hard if spec else False) and not _near(name, a.facts[name], b.facts[name])
            f = HARD_CONFLICT if hard else SOFT_CONFLICT
            factor *= f
            why.append(f"fact {name} CONFLICTS ({'hard' if hard else 'soft'}): {a.facts[name]} vs "
                       f"{b.facts[name]} → ×{f}")
    if agree and total > 0:
        score = score + (1 - score) * 0.4 * (agree / total)
    score *= factor
    # frames
    if a.frames and b.frames:
        common = set(a.frames) & set(b.frames)
        if common:
            score = min(1.0, score + 0.05)
            why.append(f"shared library frames: {', '.join(sorted(common)[:4])}")
    score = max(0.0, min(1.0, score))
    why.append(f"score {score:.3f}")
    return score, why
