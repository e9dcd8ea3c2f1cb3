"""kb.versions: an entry's affected/fixed_in against the versions a report shows."""
from __future__ import annotations

from kb.versions import version_notes


def test_a_report_older_than_the_fix_is_told_to_upgrade():
    [note] = version_notes("transformers 4.47.1", "transformers>=4.46,<4.47.1", {"transformers": "4.46.0"})
    assert (note.package, note.running, note.fixed_in, note.affected) == ("transformers", "4.46.0", "4.47.1", True)
    assert note.upgrade_fixes


def test_a_report_already_on_the_fixed_release_is_not():
    [note] = version_notes("transformers==4.47.1", "transformers>=4.46,<4.47.1", {"Transformers": "4.48.0"})
    assert note.affected is False and not note.upgrade_fixes


def test_nothing_is_said_without_the_packages_version_or_with_one_that_cannot_be_read():
    assert version_notes("deepspeed 0.16.2", None, {"torch": "2.4.1"}) == []
    assert version_notes("deepspeed 0.16.2", None, {"deepspeed": "git-main"}) == []
    assert version_notes(None, "deepspeed>=0.16.0", {}) == []


def test_several_packages_and_names_spelled_differently():
    notes = version_notes("flash-attn 2.6.3; torch 2.5.0", None, {"flash_attn": "2.5.8", "torch": "2.5.1"})
    by = {n.package: n for n in notes}
    assert by["flash-attn"].upgrade_fixes and not by["torch"].upgrade_fixes


def test_a_package_named_twice_depends_on_something_else_and_is_not_judged():
    assert version_notes("torch 2.4 (Python 3.12), torch 2.6 (Python 3.13)", "torch<2.4 on 3.12; torch<2.6 on 3.13",
                         {"torch": "2.5.0"}) == []


def test_the_answer_says_what_the_reports_versions_mean(starter_diagnoser):
    report = ("KeyError: 'qwen2'\n\ntransformers==4.36.2\ntorch==2.1.0\n"
              "Loading Qwen1.5-7B-Chat with AutoModelForCausalLM.from_pretrained fails at once.")
    diag = starter_diagnoser.diagnose(report, lang="en")
    assert diag.verdict == "match" and diag.matches[0].entry_id == "keyerror-qwen2-old-transformers"
    assert diag.matches[0].versions == ["fixed in transformers 4.37.0; you run 4.36.2: upgrading should fix it"]
    zh = starter_diagnoser.diagnose(report, lang="zh")
    assert zh.matches[0].versions == ["已在 transformers 4.37.0 中修复；你使用的是 4.36.2：升级应能解决"]
    newer = starter_diagnoser.diagnose(report.replace("4.36.2", "4.40.0"), lang="en")
    assert all("upgrading should fix it" not in v for m in newer.matches for v in m.versions)


def test_a_fixed_release_that_cannot_be_read_says_nothing_rather_than_has_the_fix():
    from kb.versions import version_lines

    assert version_lines("transformers 4.37-fix", None, {"transformers": "4.36.2"}) == []
    assert version_lines("transformers 4.37.0", None, {"transformers": "4.36.2"}) == [
        "fixed in transformers 4.37.0; you run 4.36.2: upgrading should fix it"]
