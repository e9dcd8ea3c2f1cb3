"""The bundled recipes: each names a real entry and one of its signatures verbatim, and the CPU mechanism repros
(the four seed cases and four more starter entries) really run: each reproduces its entry's failure, and each fix
verifies."""
from __future__ import annotations

import pytest

from ingest.frontmatter import split_front_matter
from kb.repro.outcome import CHECK_MARKER
from kb.repro.recipe import RecipeBook
from kb.repro.runner import run_recipe
from kb.starter import ENTRIES_DIR

# Each CPU recipe and a literal its failure must carry (for the seed cases, the entries' arithmetic at the recipes'
# sizes).
CPU_RECIPES = {
    "zero3-size0-load": "size mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([1024, "
                        "64]) from checkpoint, the shape in current model is torch.Size([0]).",
    "fsdp-lm-head-flattened": "vec (16384)",               # vocab 512 x hidden 64 / 2 ranks: a 1-D shard
    "moe-w1w3-merge-warning": "experts.0.w1w3 not in state_dict, loading",
    "tp-vocab-not-divisible": "shape before sharding torch.Size([128256, 16]), shape after sharding "
                              "torch.Size([16064, 16])",    # 128256 padded to 128512 (64 x 8), / 8 ranks
    # more starter entries with an honest CPU mechanism
    "meta-tensor-copy": "Cannot copy out of meta tensor; no data!",
    "git-lfs-pointer-load": "invalid load key, 'v'.",
    "missing-pad-token": "Asking to pad but the tokenizer does not have a padding token.",
    "added-tokens-embedding-mismatch": "IndexError: index out of range in self",
}
BOOK = RecipeBook()


def entry(entry_id: str) -> dict:
    path = ENTRIES_DIR / f"{entry_id}.md"
    assert path.is_file(), f"recipe names a missing entry {entry_id}"
    return split_front_matter(path.read_text(encoding="utf-8"), path.name)[0]


def test_every_recipe_reproduces_a_real_entry_with_that_entry_s_own_signature():
    assert len(BOOK.recipes) >= 6
    for recipe in BOOK.recipes.values():
        front = entry(recipe.entry)
        assert recipe.expect.signature in front["signatures"], recipe.id
        assert any(f.get("verified_by") == "repro" for f in front["fixes"]), recipe.id
    # every entry that names a recipe names a CPU one that exists and is tested below; GPU recipes are extra
    named = []
    for path in ENTRIES_DIR.glob("*.md"):
        name = split_front_matter(path.read_text(encoding="utf-8"), path.name)[0].get("repro")
        if name:
            named.append(name)
            assert BOOK.recipes[name].kind == "cpu-mechanism" and BOOK.recipes[name].entry == path.stem
    assert sorted(named) == sorted(CPU_RECIPES)
    assert {r.kind for r in BOOK.recipes.values()} == {"cpu-mechanism", "gpu-real"}
    assert all(r.memory_mb is None for r in BOOK.recipes.values() if r.needs_gpu)


@pytest.mark.parametrize("recipe_id,literal", CPU_RECIPES.items(), ids=list(CPU_RECIPES))
def test_cpu_recipe_reproduces_and_its_fix_verifies(recipe_id, literal):
    recipe = BOOK.recipes[recipe_id]
    failed = run_recipe(recipe)
    assert failed.status == "reproduced", (failed.reason, failed.log_tail[-2000:])
    assert literal in failed.matched
    assert failed.similarity >= 0.72 and failed.kind == "cpu-mechanism"
    assert failed.environment["torch"] and failed.environment["python"]

    fixed = run_recipe(recipe, fix=True)
    assert fixed.status == "fix_verified", (fixed.reason, fixed.log_tail[-2000:])
    assert fixed.reason.startswith(CHECK_MARKER)



# Recipes on the real library stacks (issue 21): the GPU ones run where CUDA is, the XTuner one wherever its pinned
# stack is installed; here (CI: no GPU, none of these packages) each must parse and be skipped with the reason.
REAL_STACK_RECIPES = {   # recipe id: (entry, needs_gpu, GPUs, the package that gates it)
    "fsdp-lm-head-flattened-liger": ("fsdp-lm-head-flattened", True, 1, "liger-kernel"),
    "tp-vocab-not-divisible-colossalai": ("tp-vocab-not-divisible", True, 2, "colossalai"),
    "tp-vocab-not-divisible-colossalai-1gpu": ("tp-vocab-not-divisible", True, 1, "colossalai"),
    "moe-w1w3-merge-xtuner": ("moe-w1w3-merge-warning", False, 1, "xtuner"),
}


@pytest.mark.parametrize("recipe_id", list(REAL_STACK_RECIPES))
def test_real_stack_recipe_parses_and_is_skipped_where_its_stack_is_missing(recipe_id):
    from kb.repro.environment import detect, missing_packages, skip_reason

    entry_id, needs_gpu, gpus, package = REAL_STACK_RECIPES[recipe_id]
    recipe = BOOK.recipes[recipe_id]
    assert (recipe.entry, recipe.needs_gpu, recipe.world_size) == (entry_id, needs_gpu, gpus)
    assert any(p.startswith(package) for p in recipe.packages) and recipe.fix.args
    assert recipe.memory_mb is None if needs_gpu else recipe.memory_mb
    env = detect()
    reason = skip_reason(recipe, env)
    if needs_gpu and env.gpus < gpus:
        assert reason.startswith(f"needs {gpus} CUDA GPU")
    elif missing_packages(recipe.packages):
        assert reason.startswith("needs ") and package in reason
    if reason is None:
        pytest.skip(f"{recipe_id} can run here: the stack it needs is installed (run it with triage repro run)")
    for fix in (False, True):
        result = run_recipe(recipe, fix=fix)
        assert (result.status, result.reason, result.kind) == ("skipped", reason, recipe.kind)


def test_the_kuberay_cluster_can_place_every_gpu_recipe_on_one_pod():
    import re
    from pathlib import Path

    import yaml

    kuberay = Path(__file__).resolve().parents[1] / "deploy" / "kuberay"
    cluster = yaml.safe_load((kuberay / "raycluster.yaml").read_text())
    assert (cluster["apiVersion"], cluster["kind"]) == ("ray.io/v1", "RayCluster")
    groups = {g["groupName"]: g for g in cluster["spec"]["workerGroupSpecs"]}
    gpu_limit = int(groups["gpu"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"])
    assert groups["gpu"]["minReplicas"] >= 1       # the backend skips what the cluster cannot place right now
    assert max(r.world_size for r in BOOK.recipes.values() if r.needs_gpu) <= gpu_limit
    pods = [cluster["spec"]["headGroupSpec"], *groups.values()]
    assert len({p["template"]["spec"]["containers"][0]["image"] for p in pods}) == 1
    ray_arg = re.search(r"^ARG RAY_VERSION=(\S+)$", (kuberay / "Dockerfile").read_text(), re.M).group(1)
    assert cluster["spec"]["rayVersion"] == ray_arg
