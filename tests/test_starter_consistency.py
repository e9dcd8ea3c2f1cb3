"""Self-consistency of the bundled starter KB: each entry's own signature lines, pasted as a report, diagnose to
that entry, and never to another one.

Some entries are identified by an error with many known causes (a device-side assert, a SIGKILL, a bare CUDA OOM).
For those the matcher must abstain on the bare lines (the error alone does not say which cause) and name the entry
as the nearest one; with one sentence saying what the reporter was doing (the entry's title) it must match. The same
holds for look-alikes, entries that share a message but not a cause: on the shared lines alone the matcher says they
explain the error equally well.
"""
from __future__ import annotations

import pytest

from ingest.frontmatter import split_front_matter
from kb.starter import ENTRIES_DIR

pytestmark = pytest.mark.slow

SEVERAL_CAUSES = "several known causes"
TIED = "equally well"


def _entries() -> list[dict]:
    out = []
    for path in sorted(ENTRIES_DIR.glob("*.md")):
        front, _body = split_front_matter(path.read_text(encoding="utf-8"), path.name)
        out.append(front)
    return out


ENTRIES = _entries()


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_signature_lines_diagnose_to_their_entry(starter_diagnoser, entry):
    report = "\n".join(entry["signatures"])
    diag = starter_diagnoser.diagnose(report, name=entry["id"])
    if diag.verdict == "match":
        assert diag.matches[0].entry_id == entry["id"], f"collides with {diag.matches[0].entry_id}"
        return
    # Only an error with several known causes may abstain, and then this entry must be the nearest one; or the
    # lines are also a look-alike's (same message, other cause), and then it is one of those tied.
    nearest = [r.entry_id for r in diag.related]
    if TIED in diag.reason:
        assert entry["id"] in nearest[:3], (nearest, diag.reason)
    else:
        assert nearest and nearest[0] == entry["id"], diag.reason
        assert SEVERAL_CAUSES in diag.reason, diag.reason
    # the entries are bilingual: the sentence may be said in either language. Most bodies are in English, so in
    # Chinese only the title and root cause are indexed: the Chinese sentence must put the entry first, and may still
    # leave look-alikes tied (a known limit, noted on the matcher issue).
    for key in ("title", "title_en", "title_zh"):
        if key not in entry:
            continue
        with_context = starter_diagnoser.diagnose(report + "\n\n" + entry[key], name=entry["id"])
        if with_context.verdict == "match":
            assert with_context.matches[0].entry_id == entry["id"], entry[key]
            continue
        assert key == "title_zh" and TIED in with_context.reason, (entry[key], with_context.reason)
        assert with_context.related[0].entry_id == entry["id"], (entry[key], with_context.related[0].entry_id)


def test_no_entry_matches_another_entrys_lines_over_its_own(starter_diagnoser):
    """Each signature line on its own: a line may be too generic to match, but it must never match another entry
    with more confidence than its own entry gets."""
    wrong = []
    for entry in ENTRIES:
        for line in entry["signatures"]:
            diag = starter_diagnoser.diagnose(line, name=entry["id"])
            if diag.verdict == "match" and diag.matches[0].entry_id != entry["id"]:
                own = next((m for m in diag.matches if m.entry_id == entry["id"]), None)
                if own is None or own.score < diag.matches[0].score:
                    wrong.append(f"{entry['id']}: {line[:80]!r} -> {diag.matches[0].entry_id}")
    assert not wrong, "\n".join(wrong)


def test_a_line_two_entries_share_is_no_answer_and_the_answer_says_why(starter_diagnoser):
    diag = starter_diagnoser.diagnose("NotImplementedError: Cannot copy out of meta tensor; no data!")
    assert diag.verdict == "no_match"
    assert {r.entry_id for r in diag.related[:2]} == {"meta-tensor-copy", "meta-tensor-offload-to"}
    assert "equally well" in diag.reason
