"""The local runner with test-only recipes (tests/data/repros): timeouts kill the whole tree, a different error is
not a reproduction, GPU recipes are skipped with a reason, and a recipe sees a clean folder and environment."""
from __future__ import annotations

import json
import os
import resource
from pathlib import Path

import pytest

from kb.repro.environment import detect
from kb.repro.outcome import CHECK_MARKER, classify
from kb.repro.recipe import RecipeBook, RecipeError, load_recipe
from kb.repro.runner import run_recipe

TEST_RECIPES = RecipeBook(Path(__file__).parent / "data" / "repros")
ZERO3_LINE = RecipeBook().recipes["zero3-size0-load"].expect.signature


def alive(pid: int) -> bool:
    """A process that still runs (a zombie waiting for its reaper has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def test_a_hanging_recipe_is_killed_at_its_timeout_with_all_its_children():
    result = run_recipe(TEST_RECIPES.recipes["hang"])
    assert result.status == "timeout", result.reason
    assert "killed its process group (none left)" in result.reason
    pids = [int(line.split()[1]) for line in result.log_tail.splitlines() if line.startswith("pid ")]
    assert len(pids) == 3, result.log_tail          # the recipe, its child, and the child's child
    assert not [p for p in pids if alive(p)]
    # two of them ignore SIGTERM: the runner had to escalate to SIGKILL after the grace period
    assert 2 + 3 <= result.duration_s < 2 + 3 + 5


def test_a_size_mismatch_with_the_zero_on_the_other_side_is_not_a_reproduction():
    result = run_recipe(TEST_RECIPES.recipes["wrong-side"])
    assert result.status == "not_reproduced"
    assert "mismatch.zero_side" in result.reason and "checkpoint" in result.reason
    assert result.exit_code == 1


def test_gpu_recipes_are_skipped_on_cpu_naming_what_was_looked_for():
    if detect().gpus:
        pytest.skip("this machine has a GPU")
    recipe = RecipeBook().recipes["fsdp-lm-head-flattened-nccl"]
    result = run_recipe(recipe)
    assert result.status == "skipped" and result.kind == "gpu-real"
    assert result.reason.startswith("needs 2 CUDA GPUs, found 0")
    assert "nvidia-smi" in result.reason and "torch" in result.reason


def test_a_recipe_runs_in_a_fresh_folder_with_a_clean_environment_and_limits(monkeypatch):
    monkeypatch.setenv("https_proxy", "http://proxy.invalid:3128")
    monkeypatch.setenv("HF_ENDPOINT", "https://mirror.invalid")
    monkeypatch.setenv("TRIAGE_GITHUB_TOKEN", "secret")
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    recipe = TEST_RECIPES.recipes["env-probe"]
    result = run_recipe(recipe, fix=True)
    line = next(ln for ln in result.log_tail.splitlines() if ln.startswith("probe "))
    probe = json.loads(line[len("probe "):])
    env = probe["env"]
    assert not {"https_proxy", "HF_ENDPOINT", "TRIAGE_GITHUB_TOKEN"} & set(env)
    assert env["HF_HUB_OFFLINE"] == "1" and env["PROBE_FIX"] == "on" and env["HOME"] == probe["cwd"]
    assert env["CUDA_VISIBLE_DEVICES"] == ""          # a CPU recipe does not see the host's GPUs
    assert probe["files"] == ["output.log", "repro.py", "tmp"] and not Path(probe["cwd"]).exists()
    assert probe["pgid"] == probe["pid"] == probe["sid"] != os.getpgid(0)       # a session of its own
    assert probe["rlimit_as"] == recipe.memory_mb * 1024 * 1024 != resource.getrlimit(resource.RLIMIT_AS)[0]
    # it printed no check line, so even a clean exit with the fix on verifies nothing
    assert result.status == "fix_failed" and CHECK_MARKER in result.reason


@pytest.mark.parametrize("fix,code,output,status", [
    (False, 0, "all fine\n", "not_reproduced"),
    (False, 1, f"Traceback (most recent call last):\nRuntimeError: Error(s) in loading state_dict for M:\n\t"
               f"{ZERO3_LINE}\n", "reproduced"),
    (False, -9, "loading...\n", "error"),
    (True, 1, f"RuntimeError: Error(s) in loading state_dict for M:\n\t{ZERO3_LINE}\n", "fix_failed"),
    (True, 0, f"RuntimeError: Error(s) in loading state_dict for M:\n\t{ZERO3_LINE}\n{CHECK_MARKER}: x\n",
     "fix_failed"),
    (True, 0, f"{CHECK_MARKER}: weights equal\n", "fix_verified"),
])
def test_statuses_from_exit_code_and_output(fix, code, output, status):
    assert classify(ZERO3_LINE, fix, False, code, output)[0] == status


def test_a_verified_fix_names_no_unrelated_line_as_matched():
    # Seen on a GPU host: a CPU recipe printed a CUDA-initialisation warning, which was reported as the match.
    output = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 2: out of memory\n"
              f"{CHECK_MARKER}: loss equals the reference\n")
    status, _, found = classify(ZERO3_LINE, True, False, 0, output)
    assert status == "fix_verified" and found is None


def test_a_benign_warning_must_still_appear_when_its_fix_is_checked():
    line = RecipeBook().recipes["moe-w1w3-merge-warning"].expect.signature
    warning = "model.layers.0.mlp.experts.1.w1w3 not in state_dict, loading deepseek-ai/DeepSeek-V2-Tiny/model-00001-of-00004.safetensors\n"
    assert classify(line, True, True, 0, warning + f"{CHECK_MARKER}: ok\n")[0] == "fix_verified"
    status, reason, _ = classify(line, True, True, 0, f"{CHECK_MARKER}: ok\n")
    assert status == "fix_failed" and "did not appear" in reason


def test_recipes_are_validated_and_unknown_names_are_refused(tmp_path):
    folder = tmp_path / "bad-recipe"
    folder.mkdir()
    (folder / "recipe.yaml").write_text("id: bad-recipe\nentry: e\ntitle: t\nexpect: {signature: abc}\n"
                                        "fix: {args: []}\ntimeout: 3\n")
    (folder / "repro.py").write_text("")
    with pytest.raises(RecipeError, match="timeout"):
        load_recipe(folder)
    with pytest.raises(Exception, match="no reproduction recipe for nope"):
        RecipeBook().resolve(["nope"])
    assert [r.id for r in RecipeBook().resolve(["zero3-load-state-dict-size0"])] == [
        "zero3-size0-load", "zero3-size0-load-deepspeed"]
