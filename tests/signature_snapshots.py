"""Signature snapshots: what this version of the parser and signature rules makes of every traceback case and every
bundled example (each event's role, signature key, facts and the steps that produced them).

The rules' version is derived from their files (kb.traceback.signature.SIGNATURE_VERSION), so any change to a rule
is a new version; `tests/test_signature_snapshots.py` fails until that version's snapshot is written, and the diff
of the snapshot is the review of what the change did. `python -m tests.signature_snapshots` (`make snapshots`)
writes it for the current version, removes the one it replaces and prints which cases changed.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from kb.traceback.parse import parse_report
from kb.traceback.signature import SIGNATURE_VERSION, signature_of_event

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "tests" / "data" / "signature_snapshots"


def cases() -> list[Path]:
    return sorted((ROOT / "tests" / "data" / "tracebacks").glob("*.txt")) + sorted((ROOT / "examples").glob("*.txt"))


def snapshot() -> dict[str, list[dict]]:
    out = {}
    for path in cases():
        report = parse_report(path.read_text(encoding="utf-8"))
        events = []
        for ev in report.events:
            sig = signature_of_event(ev)
            events.append({"role": ev.role, "key": sig.key, "facts": sig.facts, "steps": sig.steps})
        out[f"{path.parent.name}/{path.name}"] = events
    return out


def path_for(version: str = SIGNATURE_VERSION) -> Path:
    return FOLDER / f"{version.replace(':', '-')}.json"


def main() -> int:
    new = snapshot()
    target = path_for()
    olds = [p for p in sorted(FOLDER.glob("*.json")) if p != target]
    if olds:
        old = json.loads(olds[-1].read_text(encoding="utf-8"))
        changed = sorted(k for k in new.keys() | old.keys() if new.get(k) != old.get(k))
        print(f"{olds[-1].name} -> {target.name}: {len(changed)} of {len(new)} cases changed")
        for k in changed:
            print(f"  {k}")
    FOLDER.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(new, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for p in olds:
        p.unlink()
    print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
