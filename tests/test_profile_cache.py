"""Entry profiles cached per KB folder (kb.profile_cache): read back when they fit, rebuilt when they do not."""
from kb.profile_cache import cache_file, load_or_build, rules_hash


def test_profiles_are_built_once_then_read_back(tmp_path):
    path = cache_file(tmp_path / "cache", tmp_path / "kb")
    built = []

    def build(doc_id):
        built.append(doc_id)
        return {"id": doc_id, "lines": [doc_id.upper()]}

    first = load_or_build(path, "gen-1", ["a", "b"], build)
    assert path.exists() and built == ["a", "b"]
    again = load_or_build(path, "gen-1", ["a", "b"], build)
    assert again == first and built == ["a", "b"]          # nothing built the second time


def test_other_entries_a_new_generation_or_a_damaged_file_rebuild_in_the_same_file(tmp_path):
    cache = tmp_path / "cache"
    path = cache_file(cache, tmp_path / "kb")
    load_or_build(path, "gen-1", ["a"], lambda d: d)
    assert load_or_build(path, "gen-1", ["a", "c"], lambda d: d * 2) == {"a": "aa", "c": "cc"}   # entries changed
    assert load_or_build(path, "gen-2", ["a", "c"], lambda d: d + "2") == {"a": "a2", "c": "c2"}  # new generation
    assert list((cache / "profiles").iterdir()) == [path]                  # one file per KB folder, replaced
    assert cache_file(cache, tmp_path / "other-kb") != path
    path.write_bytes(b"not a pickle")
    assert load_or_build(path, "gen-2", ["a"], lambda d: d + "!") == {"a": "a!"}
    assert len(rules_hash()) == 16


def test_an_unwritable_cache_still_answers(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    path = cache_file(blocker, tmp_path / "kb")          # its folder would have to be under a file
    assert load_or_build(path, "gen-1", ["a"], lambda d: 1) == {"a": 1}
