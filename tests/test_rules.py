"""The rule files of kb/data/rules: each loads and is valid, and each is part of the rules version."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from kb import rules
from kb.traceback.facts import FACT_RULES, FACTS, extract_facts
from kb.traceback.signature import SIGNATURE_VERSION, rules_version


def _regex_tables(tables: dict | list) -> list[dict]:
    items = tables.values() if isinstance(tables, dict) else tables
    return [t for t in items if "regex" in t or "any" in t]


def _valid_regex_table(table: dict) -> re.Pattern[str]:
    assert ("regex" in table) != ("any" in table), table
    assert set(table.get("flags", "")) <= set("aimsx"), table
    return rules.regex(table)


def test_every_rule_file_is_known_and_shipped_with_the_package():
    names = {p.stem for p in rules.files()}
    assert names == {"facts", "lines", "vocabulary", "glossary", "talk", "page_noise"}
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert 'kb = ["data/**/*"]' in pyproject         # package-data: kb/data/rules/*.toml ship with kb


def test_facts_file_names_each_fact_once_and_its_patterns_compile():
    data = rules.load("facts")
    names = [f["name"] for f in data["fact"]]
    assert len(names) == len(set(names)) == len(FACTS) > 30
    for f in data["fact"]:
        assert set(f) <= {"name", "values", "hard", "weight"} and f["values"] and isinstance(f["hard"], bool)
    for name, table in data["pattern"].items():
        assert table.get("what"), f"pattern {name} says what it captures"
        _valid_regex_table(table)
    for section in ("oom_phase", "symptom"):
        assert len({t["name"] for t in data[section]}) == len(data[section])
    for table in _regex_tables(data["oom_phase"] + data["nccl_phrase"] + data["nccl_resource"] + data["symptom"]):
        _valid_regex_table(table)
    assert all(k.isdigit() and v.startswith("SIG") for k, v in data["signal_numbers"].items())
    dtypes = {"bf16", "fp16", "fp32", "fp64", "fp8", "int8", "int4", "int64", "int32", "bool"}
    assert set(data["dtype_names"].values()) <= dtypes


def test_every_fact_a_rule_reads_is_declared_in_the_facts_file():
    symptom = rules.load("facts")["symptom"][0]
    facts, _ = extract_facts("RuntimeError", "CUDA error: out of memory; exitcode: -9 " + symptom["regex"])
    assert facts and set(facts) <= set(FACTS)
    assert len(FACT_RULES) > 10


def test_lines_file_has_unique_prefixes_and_its_patterns_compile():
    data = rules.load("lines")
    prefixes = [p["name"] for p in data["prefix"]]
    assert len(prefixes) == len(set(prefixes)) and "rank" in prefixes
    for table in data["prefix"]:
        _valid_regex_table(table)
    for name, table in data["pattern"].items():
        assert table.get("what"), f"pattern {name} says what it means"
        _valid_regex_table(table)
    for mask in data["dedupe_mask"]:
        rx = _valid_regex_table(mask)
        refs = [int(n) for n in re.findall(r"\\(\d)", mask["replace"])]
        assert all(n <= rx.groups for n in refs), mask
    assert "the" in rules.words(data["stopwords"]) and data["bare_types"]


def test_vocabulary_file_lists_each_name_once_and_its_exception_parents_end():
    data = rules.load("vocabulary")
    for key in ("known_libraries", "version_names", "version_stopwords", "token_stopwords"):
        words = data[key].split()
        assert words and len(words) == len(set(words)), key
    for key in ("launcher_modules", "cleanup_functions"):
        assert data[key] and len(data[key]) == len(set(data[key])), key
    assert set(data["launcher_scripts"].values()) <= rules.words(data["known_libraries"])
    for name in data["exception_parents"]:
        seen = {name}
        while name in data["exception_parents"]:
            name = data["exception_parents"][name]
            assert name not in seen, f"a cycle through {name}"
            seen.add(name)


def test_glossary_file_has_two_sides_on_every_line_and_each_english_name_once():
    lines = rules.load("glossary")["concepts"].strip().splitlines()
    english = []
    for line in lines:
        assert line.count("|") == 1, line
        en, zh = (side.split(",") for side in line.split("|"))
        assert all(w.strip() for w in en + zh), line
        english += [w.strip() for w in en]
    assert len(english) == len(set(english)) and len(lines) > 100


def test_talk_file_keeps_talk_and_failure_words_apart():
    data = rules.load("talk")
    talk, failure = rules.words(data["talk"]), rules.words(data["failure"])
    assert talk and failure and not talk & failure


def test_page_noise_file_patterns_compile_and_languages_are_unique():
    data = rules.load("page_noise")
    for table in data["pattern"].values():
        _valid_regex_table(table)
    languages = data["languages"].split()
    assert len(languages) == len(set(languages)) and "Python" in languages
    assert all(" " in name for name in data["two_word_languages"])


@pytest.mark.parametrize("name", ["facts", "lines", "vocabulary", "glossary", "talk", "page_noise"])
def test_changing_a_rule_file_changes_the_rules_version(tmp_path, name):
    copies = []
    for path in rules.version_inputs():
        copies.append(tmp_path / path.name)
        copies[-1].write_bytes(path.read_bytes())
    assert rules_version(copies) == SIGNATURE_VERSION
    edited = tmp_path / f"{name}.toml"
    edited.write_bytes(edited.read_bytes() + b"# an edit\n")
    assert rules_version(copies) != SIGNATURE_VERSION
