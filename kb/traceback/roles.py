"""Merging duplicate events (ranks, threads, repeats) and choosing roles: primary, cause, wrapper, cleanup."""
from __future__ import annotations

import re

import kb.traceback.lines as L
from kb.traceback.models import ErrorEvent, Frame

# Exception types and messages that only wrap or re-raise another error.
_WRAPPER_TYPE = re.compile(r"(?:ChildFailedError|CalledProcessError|ProcessRaisedException|ProcessExitedException|"
                           r"RayTaskError\w*|_RemoteTraceback)$")
_WRAPPER_MSG = re.compile(
    r"^(?:Caught \w+ in (?:replica \d+ on device \d+|DataLoader worker process \d+)"   # DataParallel / DataLoader
    r"|-- Process \d+ terminated with the following error"                            # torch.multiprocessing.spawn
    r"|backend='\w+' raised:"                                 # torch.compile: BackendCompilerFailed wraps the real one
    r"|Exception in worker \w+ while processing method \w+[.:]?\s*$"   # vLLM's workers relay the error below (when
                                                                      # the line carries its message, it is no wrapper)
    r"|Traceback \(most recent call last\))"
)
# ------------------------------------------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d+")


def _key(ev: ErrorEvent, *, loose: bool) -> tuple:
    first = ev.message.split("\n", 1)[0][:300]
    first = L.dedupe_key(first)
    if loose:
        first = _DIGITS.sub("#", first)
    t = (ev.type or "").rsplit(".", 1)[-1]
    return (ev.kind, t, first.strip().rstrip("."))


def _richer(a: ErrorEvent, b: ErrorEvent) -> ErrorEvent:
    """Merge b into a (a comes first): keep a's position, take frames/lines from whichever has more."""
    upd: dict = {"count": a.count + b.count, "ranks": sorted(set(a.ranks) | set(b.ranks))}
    if len(b.frames) > len(a.frames):
        upd.update(frames=b.frames)
    if len(b.message) > len(a.message):
        upd.update(message=b.message, lines=b.lines)
    if a.origin in ("inline", "prose", "frame") and b.origin in ("line", "traceback"):
        upd.update(origin=b.origin, type=b.type or a.type, kind=b.kind, chain_id=b.chain_id, chain_pos=b.chain_pos)
    return a.model_copy(update=upd)


def merge_events(events: list[ErrorEvent], notes: list[str], multi_rank: bool) -> list[ErrorEvent]:
    events = sorted(events, key=lambda e: e.position)
    out: list[ErrorEvent] = []
    index: dict[tuple, int] = {}
    collapsed_threads = 0
    rank_dups = 0
    for ev in events:
        key = _key(ev, loose=multi_rank)
        if key in index:
            k = index[key]
            if ev.kind == "cuda" and "block: [" in ev.message:
                collapsed_threads += 1
            elif ev.ranks and out[k].ranks and set(ev.ranks) - set(out[k].ranks):
                rank_dups += 1
            out[k] = _richer(out[k], ev)
            continue
        index[key] = len(out)
        out.append(ev)
    if collapsed_threads:
        notes.append(f"collapsed {collapsed_threads} repeated CUDA assert lines (other threads/blocks)")
    if rank_dups:
        ranks = {r for e in out for r in e.ranks}
        notes.append(f"deduplicated {len(ranks)} ranks ({rank_dups} repeated events merged)")
    # drop inferred events whose frames are a prefix of a real traceback that was printed too
    real_frames = [e.frames for e in out if e.origin == "traceback" and e.frames]
    kept = []
    for ev in out:
        if ev.origin == "frame" and any(_same_frames(ev.frames, rf) for rf in real_frames):
            notes.append("dropped a cut copy of a traceback that is printed in full elsewhere")
            continue
        kept.append(ev)
    return kept


def _same_frames(a: list[Frame], b: list[Frame]) -> bool:
    ka = [(f.file, f.lineno) for f in a]
    kb = [(f.file, f.lineno) for f in b]
    return len(ka) <= len(kb) and kb[: len(ka)] == ka


# Tier of an event when choosing the primary: lower is better; ties go to the earliest.
#   0 printed error line or end of a traceback     1 typed error inline in prose      2 printed error-ish log line
#   3 cut traceback, deepest frame raises a type   4 cut traceback, other code line   5 warning
#   6 launcher / wrapper                           7 prose sentence naming the failure
#   8 prose that only introduces a paste ("I get this error:")                        9 cleanup error
def tier(ev: ErrorEvent) -> int:
    if ev.role == "cleanup":
        return 9
    if ev.role == "wrapper" or ev.kind == "launcher":
        return 6
    if ev.kind == "warning":
        return 5
    if ev.origin in ("line", "traceback"):
        return 2 if ev.kind == "log" else 0
    if ev.origin == "inline":
        return 1
    if ev.origin == "frame":
        return 3 if ev.type else 4
    return 8 if ev.message.rstrip().endswith((":", "：")) or len(ev.message) < 12 else 7


def _label(ev: ErrorEvent) -> str:
    """A short name for an event in notes."""
    if ev.type:
        return ev.type.rsplit(".", 1)[-1]
    text = " ".join([ev.message, *ev.lines])
    m = re.search(r"exitcode\s{0,2}:\s{0,2}-?\d+|return code = -?\d+|Signal \d+ \(SIG[A-Z]+\)|closing signal SIG[A-Z]+",
                  text)
    return m.group(0) if m else ev.message.split("\n", 1)[0][:40]


def assign_roles(events: list[ErrorEvent], notes: list[str],
                 error_cut: bool = False) -> tuple[list[ErrorEvent], ErrorEvent | None]:
    """Roles of the events, and the primary one. `error_cut`: the report shows a traceback header cut before its
    first frame; its error is not in the report, so a warning printed before it is no primary (it stays a side line)."""
    out: list[ErrorEvent] = []
    for ev in events:
        role = ev.role
        if role != "cleanup":
            role = "secondary"
            if ev.kind == "launcher" or _WRAPPER_TYPE.search(ev.type or "") or _WRAPPER_MSG.match(ev.message):
                role = "wrapper"
            elif ev.chain_pos > 0:
                role = "wrapper"
        out.append(ev.model_copy(update={"role": role}))
    # the root of a chain is a cause when a later link wraps it
    chains_with_links = {e.chain_id for e in out if e.chain_pos > 0}
    if not out:
        return out, None
    best = min(range(len(out)), key=lambda k: (tier(out[k]), out[k].position))
    prim = out[best]
    if prim.kind == "launcher" or prim.role == "wrapper":
        # only wrappers: prefer the one that says how the child died
        launchers = [k for k, e in enumerate(out) if e.kind == "launcher" or e.role == "wrapper"]
        with_code = [k for k in launchers if re.search(r"exitcode|exit status|return code",
                                                        out[k].message + " ".join(out[k].lines))]
        with_signal = [k for k in launchers if re.search(r"Signal \d|signal SIG(?:KILL|SEGV|ABRT|BUS)|^Killed$",
                                                          out[k].message + " ".join(out[k].lines))]
        best = (with_code or with_signal or launchers or [best])[0]
        notes.append("only a launcher/wrapper error was found; it is the primary (the child's own error is not in "
                     "the report)")
    elif prim.role == "cleanup":
        notes.append("only a cleanup error was found; it is the primary")
    elif prim.kind == "warning" and error_cut:
        notes.append("a traceback is cut before its first frame, so its error is not in the report; the warnings "
                     "printed before it are side lines, not that error")
        return out, None
    elif prim.kind == "warning":
        notes.append("only warnings were found; the first one is the primary")
    skipped = [e for e in out if e.role == "wrapper" and e.kind == "launcher" or _WRAPPER_TYPE.search(e.type or "")]
    if skipped and out[best].role != "wrapper" and out[best].kind != "launcher":
        names = sorted({_label(e) for e in skipped})
        notes.append(f"skipped launcher wrapper {', '.join(names)}")
    cleanups = [e for e in out if e.role == "cleanup"]
    if cleanups and out[best].role != "cleanup":
        notes.append(f"skipped {len(cleanups)} cleanup error(s) raised after the real one (e.g. in __del__)")
    for k, e in enumerate(out):
        if k == best:
            continue
        if e.chain_id == out[best].chain_id and e.chain_pos < out[best].chain_pos:
            out[k] = e.model_copy(update={"role": "cause"})
    out[best] = out[best].model_copy(update={"role": "primary"})
    prim = out[best]
    if prim.chain_id in chains_with_links:
        n = sum(1 for e in out if e.chain_id == prim.chain_id)
        notes.append(f"exception chain of {n}; primary is link {prim.chain_pos + 1} (later links wrap it)")
    if prim.origin == "frame":
        notes.append("no final exception line (report cut); primary inferred from the deepest frame's "
                     f"{'raise' if prim.type else 'code'} line")
    elif prim.origin == "prose":
        notes.append("no error line; primary is a prose sentence or quoted message naming the failure")
    elif prim.origin == "inline":
        notes.append("primary error was found inline in the prose")
    return out, prim
