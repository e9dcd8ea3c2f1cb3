"""Every threshold and weight the matcher applies around its learned decision, in one frozen object.

The decision itself (which candidate is the cause, and whether it is likely enough) is learned: its weights are data
in kb/data/decision. What is here shapes what it is shown: how much each event of a report counts, which facts are
too common to pick an entry alone, how candidates are scored and pooled. `Matcher(kb, policy=...)` takes another one;
tests and experiments change a field with `dataclasses.replace`, never a module constant.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from kb.traceback.signature import SIG_ACCEPT


def _frozen(d: dict) -> Mapping:
    return MappingProxyType(d)


@dataclass(frozen=True)
class MatchPolicy:
    # How much an event of the report counts, by role; inferred events (no printed error line) count less.
    role_weight: Mapping[str, float] = field(default_factory=lambda: _frozen(
        {"primary": 1.0, "cause": 0.95, "secondary": 0.8, "wrapper": 0.45, "cleanup": 0.3}))
    other_role_weight: float = 0.5
    inferred_weight: Mapping[str, float] = field(default_factory=lambda: _frozen({"frame": 0.6, "prose": 0.55}))
    # Facts whose value is the same for many unrelated root causes (None: every value): a report whose only evidence
    # is one of these needs corroboration from the rest of the report before an entry is accepted.
    generic_facts: Mapping[str, frozenset[str] | None] = field(default_factory=lambda: _frozen({
        "cuda_assert.condition": None,            # any out-of-range index on the GPU
        "cuda.error": frozenset({"device-side assert triggered", "out of memory",
                                 "an illegal memory access was encountered"}),
        "oom.kind": None,                          # many things run out of memory
        "signal": None,
        "exitcode": None,
        "device.pair": None,                       # a tensor on the wrong device: which one is the whole question
        "cuda_assert.kernel": None,                # the kernel of an index assert names the op, not the cause
        "symptom": None,                           # an in-place modification, a second backward, a batch mismatch ...
        # NCCL's catch-alls: shared memory, the network interface, InfiniBand, a driver or a peer all end in these
        "nccl.error": frozenset({"ncclSystemError", "ncclInternalError", "ncclUnhandledCudaError"}),
    }))
    # Facts of how a message is put, and facts of what a report is about rather than what failed ("we train in
    # fp16"): agreeing on them does not make a generic error specific.
    presentation_facts: frozenset[str] = frozenset({"device.order"})
    topic_facts: frozenset[str] = frozenset({"dtype.mentioned"})

    sig_accept: float = SIG_ACCEPT   # a similarity this high means the entry's line explains the report's error
    sig_related: float = 0.45        # below this an entry is not about the report's error at all
    quote_sim: float = 0.85          # a prose mention this close to an entry's line is a verbatim quote of it
    corroborate: float = 0.6         # how strongly the rest of a report must point to an entry when its error is generic
    tie_sig: float = 0.03            # entries this close on the report's error explain it equally well...
    tie_lead: float = 0.1            # ...unless the rest of the report favours one by this much
    prose_min: int = 20              # characters of the reporter's own words below which the rest says nothing

    # score = sig·signature + dense·dense_norm + bm25·bm25 + frames·frames (orders candidates before the decision)
    sig_weight: float = 0.55
    dense_weight: float = 0.2
    bm25_weight: float = 0.15
    frames_weight: float = 0.1

    consider_top: int = 6            # candidates the decision weighs: the best by score...
    consider_each: int = 2           # ...and the best few by signature and by retrieval alone
    score_all_max: int = 5000        # a KB up to this many entries has every entry scored; a larger one, what
    retrieve_depth: int = 256        # retrieval finds: this many chunks per retriever...
    pool_per_retriever: int = 40     # ...of which the entries each retriever ranks best get scored
    profile_cache_max: int = 20_000  # entry profiles kept on a KB too large to profile whole
    rare_chunks: int = 3             # a function name in at most this many chunks tells where a failure is (coverage)

    def event_weight(self, role: str, origin: str) -> float:
        return self.role_weight.get(role, self.other_role_weight) * self.inferred_weight.get(origin, 1.0)

    def generic_fact(self, name: str, value: str) -> bool:
        values = self.generic_facts.get(name, ())
        return name in self.generic_facts and (values is None or value in values)

    def score(self, signature: float, bm25: float, dense_normed: float, frames: float) -> float:
        return (self.sig_weight * signature + self.bm25_weight * bm25 + self.frames_weight * frames
                + self.dense_weight * dense_normed)


POLICY = MatchPolicy()
