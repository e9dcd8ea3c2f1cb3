"""`triage repro list|run` and `diagnose --verify` through the real command line, with results in a KB folder."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kb.repro.environment import detect

ROOT = Path(__file__).resolve().parents[1]
TEST_RECIPES = ROOT / "tests" / "data" / "repros"
EXAMPLES = ROOT / "examples"


def triage(args: list[str], cache_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir), "COLUMNS": "200"}   # no wrapped lines
    env.pop("TRIAGE_KB", None)
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def test_run_stores_results_that_list_shows_and_exit_codes_say_what_happened(tmp_path, cache_dir):
    kb = str(tmp_path / "kb")
    ran = triage(["repro", "run", "zero3-size0-load", "--json", "--kb", kb], cache_dir)
    assert ran.returncode == 0, ran.stderr
    out = json.loads(ran.stdout)
    assert out["ok"] is True and out["backend"] == "local"
    (res,) = out["results"]
    assert {"recipe_id", "entry_id", "kind", "mode", "status", "reason", "duration_s", "environment", "log_tail",
            "created_at", "matched", "similarity", "exit_code"} <= set(res)
    assert (res["entry_id"], res["kind"], res["mode"], res["status"]) == (
        "zero3-load-state-dict-size0", "cpu-mechanism", "reproduce", "reproduced")
    assert {"python", "torch", "cuda", "device"} <= set(res["environment"])

    listed = triage(["repro", "list", "--json", "--kb", kb], cache_dir)
    rows = {r["id"]: r for r in json.loads(listed.stdout)}
    assert rows["zero3-size0-load"]["last"] == {"reproduce": "reproduced", "fix": None}
    assert rows["zero3-size0-load-deepspeed"]["needs_gpu"] is True
    assert rows["fsdp-lm-head-flattened"]["world_size"] == 2
    assert rows["tp-vocab-not-divisible"]["last"] == {"reproduce": None, "fix": None}

    wrong = triage(["repro", "run", "wrong-side", "--recipes", str(TEST_RECIPES), "--json", "--kb", kb], cache_dir)
    assert wrong.returncode == 1
    assert json.loads(wrong.stdout)["results"][0]["status"] == "not_reproduced"

    unknown = triage(["repro", "run", "no-such-entry", "--kb", kb], cache_dir)
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == ["error: no reproduction recipe for no-such-entry (see `triage repro list`)"]


@pytest.fixture(scope="module")
def starter_copy(tmp_path_factory, cache_dir) -> Path:
    """A private copy of the built starter KB, so the results written here reach no other test."""
    from ingest.starter import ensure_starter_kb
    from kb.config import Settings

    target = tmp_path_factory.mktemp("kb") / "starter"
    shutil.copytree(ensure_starter_kb(Settings(cache_dir=cache_dir)), target)
    return target


@pytest.mark.slow
def test_verify_confirms_the_seed_examples_and_a_verified_fix_shows_in_diagnose(starter_copy, cache_dir):
    kb = ["--kb", str(starter_copy)]
    examples = [str(EXAMPLES / f) for f in ("zero3_load_state_dict.txt", "colossalai_tp8_embed_shape_zh.txt")]
    verified = triage(["diagnose", "--json", "--verify", *examples, *kb], cache_dir)
    assert verified.returncode == 0, verified.stderr
    lines = [json.loads(line) for line in verified.stdout.splitlines()]
    assert len(lines) == 2
    for line, recipe in zip(lines, ["zero3-size0-load", "tp-vocab-not-divisible"]):
        v = line["verification"]
        assert (v["verdict"], v["recipe_id"], v["repro_status"]) == ("confirmed", recipe, "reproduced"), v
        assert v["similarity"] >= 0.72 and v["conflicts"] == []
    # reproducing the failure is not verifying the fix: the fix marked "repro" is not verified yet
    repro_fix = next(f for f in lines[0]["matches"][0]["fixes"] if f["verified_by"] == "repro")
    assert repro_fix["verified"] is False

    # the entry's recipes: the CPU one verifies its fix; the real ZeRO-3 one needs a GPU, is skipped, and counts as ran
    fixed = triage(["repro", "run", "zero3-load-state-dict-size0", "--fix", *kb], cache_dir)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "fix_verified" in fixed.stdout and "Traceback" not in fixed.stderr
    if not detect().gpus:
        assert "skipped" in fixed.stdout and "needs 1 CUDA GPU" in fixed.stdout

    after = triage(["diagnose", "--json", examples[0], *kb], cache_dir)
    diag = json.loads(after.stdout)
    assert "verification" not in diag
    repro_fix = next(f for f in diag["matches"][0]["fixes"] if f["verified_by"] == "repro")
    assert repro_fix["verified"] is True

    from bot.render.terminal import console, print_diagnosis
    from kb.models import Diagnosis

    with console.capture() as shown:
        print_diagnosis(Diagnosis.model_validate(diag))
    assert "✔ verified by repro" in shown.get()


def test_import_records_results_from_another_machine_once_and_list_shows_them(tmp_path, cache_dir):
    kb = str(tmp_path / "kb")
    gpu_run = ROOT / "tests" / "data" / "repro_results" / "h100_liger.jsonl"   # two results of a GPU machine
    first = triage(["repro", "import", str(gpu_run), "--json", "--kb", kb], cache_dir)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"recorded": 2, "already_there": 0}
    again = triage(["repro", "import", str(gpu_run), "--kb", kb], cache_dir)
    assert again.stdout.strip() == "recorded 0 result(s); 2 already there"

    rows = {r["id"]: r for r in json.loads(triage(["repro", "list", "--json", "--kb", kb], cache_dir).stdout)}
    liger = rows["fsdp-lm-head-flattened-liger"]
    assert liger["last"] == {"reproduce": "reproduced", "fix": "fix_verified"}
    ran_at = max(json.loads(line)["created_at"] for line in gpu_run.read_text().splitlines())
    assert liger["last_run_at"] == pytest.approx(ran_at)        # when it ran there, not when it was imported

    # an older run imported later does not hide the newer one: "last" goes by when each ran
    older = json.loads(gpu_run.read_text().splitlines()[0])
    older.update(status="not_reproduced", created_at=older["created_at"] - 3600)
    (tmp_path / "older.jsonl").write_text(json.dumps(older) + "\n")
    triage(["repro", "import", str(tmp_path / "older.jsonl"), "--kb", kb], cache_dir)
    rows = {r["id"]: r for r in json.loads(triage(["repro", "list", "--json", "--kb", kb], cache_dir).stdout)}
    assert rows["fsdp-lm-head-flattened-liger"]["last"]["reproduce"] == "reproduced"

    # `repro run --json` output imports too; bad input is one line naming the file, and nothing is recorded
    run_json = tmp_path / "run.json"
    run_json.write_text(triage(["repro", "run", "zero3-size0-load", "--json", "--kb", str(tmp_path / "other")],
                               cache_dir).stdout)
    assert json.loads(triage(["repro", "import", str(run_json), "--json", "--kb", kb], cache_dir).stdout) == {
        "recorded": 1, "already_there": 0}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(gpu_run.read_text().splitlines()[0] + "\n{not json\n")
    failed = triage(["repro", "import", str(bad), "--kb", kb], cache_dir)
    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [f"error: {bad}, line 2: not JSON (Expecting property name "
                                                  "enclosed in double quotes); expected the output of "
                                                  "`triage repro run --json` or one result per line"]
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps([{"recipe_id": "x", "status": "reproduced"}]))
    failed = triage(["repro", "import", str(partial), "--kb", kb], cache_dir)
    assert failed.returncode == 2 and "result 1 lacks entry_id, kind, fix, reason, created_at" in failed.stderr
    from kb.repro.results import ResultStore

    assert len(ResultStore(Path(kb), create=False).list()) == 4    # the two GPU results, the older one, the CPU run
