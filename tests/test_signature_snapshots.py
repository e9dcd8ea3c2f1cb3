"""The rules of this version give the snapshot written for it (tests/signature_snapshots.py): a change to a rule
is a new version, and fails here until its snapshot is written and reviewed."""
from __future__ import annotations

import json

from kb.traceback.signature import SIGNATURE_VERSION
from tests.signature_snapshots import FOLDER, cases, path_for, snapshot


def test_the_current_rules_version_has_a_snapshot_and_gives_it():
    target = path_for()
    assert target.exists(), (f"no snapshot for rules version {SIGNATURE_VERSION}: run `make snapshots` and review "
                             f"the diff of {FOLDER.name}/")
    want = json.loads(target.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(snapshot()))          # the same JSON types as the file (tuples become lists)
    assert sorted(got) == sorted(want)
    changed = [k for k in got if got[k] != want[k]]
    assert not changed, f"cases that differ from the snapshot of {SIGNATURE_VERSION}: {changed}"


def test_the_snapshot_covers_every_case_and_only_one_version_is_kept():
    assert len(cases()) > 50
    assert [p.name for p in FOLDER.glob("*.json")] == [path_for().name]
    assert len(json.loads(path_for().read_text(encoding="utf-8"))) == len(cases())
