"""The Ray backend: each recipe becomes a Ray task that runs the local runner on the worker it lands on.

The task asks for `num_gpus = world_size` of a GPU recipe, so Ray places it on a GPU node of the cluster (a KubeRay
worker group, see deploy/kuberay/); the worker detects its own CUDA and records its own environment. A recipe that
lists packages gets them through the task's runtime environment (`pip`), which needs the cluster to reach a package
index. A GPU recipe is skipped up front when the cluster has too few GPUs, rather than left pending.
"""
from __future__ import annotations

from typing import Final

from kb.errors import ConfigError
from kb.repro.recipe import Recipe
from kb.repro.results import ReproResult

GET_MARGIN_S: Final = 120.0
PRIVATE_OBJECT_STORE: Final = 128 * 1024 * 1024      # scheduling, worker start and runtime-env setup on top of a recipe's own timeout


def _run_on_worker(recipe: Recipe, fix: bool, script: bytes) -> dict:
    """Runs on the worker: the recipe's script travels with the task (the driver's paths do not exist there)."""
    import tempfile
    from pathlib import Path

    from kb.repro.runner import run_recipe

    with tempfile.TemporaryDirectory(prefix="triage-recipe-") as folder:
        name = Path(recipe.script).name
        (Path(folder) / name).write_bytes(script)
        here = recipe.model_copy(update={"folder": Path(folder), "script": name})
        return run_recipe(here, fix=fix, backend="ray").as_dict()


def run_on_ray(recipes: list[Recipe], fix: bool, address: str | None = None, use_pip: bool = True
               ) -> list[ReproResult]:
    """Run recipes as Ray tasks and wait for all of them.

    Args:
        recipes: what to run.
        fix: run with each recipe's fix switched on.
        address: a Ray cluster (`ray://host:10001`, `host:6379`); None starts a private local one on 127.0.0.1
            for this call. When this process is already connected to Ray, that connection is used.
        use_pip: pass a recipe's `packages` as the task's runtime_env pip list (off where no index is reachable).
    """
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(f"the Ray backend needs Ray ({exc}); install it with `pip install 'triage-kb[ray]'`") from exc

    started = False
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            # results are small dicts: a small object store is plenty
            ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False,
                     object_store_memory=PRIVATE_OBJECT_STORE)
        started = True
    try:
        gpus = int(ray.cluster_resources().get("GPU", 0))
        remote = ray.remote(_run_on_worker)
        pending: list[tuple[Recipe, object | None]] = []
        results: dict[str, ReproResult] = {}
        for r in recipes:
            if r.needs_gpu and gpus < r.world_size:
                results[r.id] = ReproResult(recipe_id=r.id, entry_id=r.entry, kind=r.kind, fix=fix, backend="ray",
                                            status="skipped",
                                            reason=f"needs {r.world_size} GPU(s); the Ray cluster has {gpus}")
                continue
            options: dict = {"num_cpus": 1, "num_gpus": r.world_size if r.needs_gpu else 0, "max_retries": 0}
            if use_pip and r.packages:
                options["runtime_env"] = {"pip": list(r.packages)}
            pending.append((r, remote.options(**options).remote(r, fix, r.script_path.read_bytes())))
        for r, ref in pending:
            try:
                results[r.id] = ReproResult.from_dict(ray.get(ref, timeout=r.timeout_s + GET_MARGIN_S))
            except Exception as exc:  # noqa: BLE001 - a task's failure is this recipe's result, not the command's
                ray.cancel(ref, force=True)
                results[r.id] = ReproResult(recipe_id=r.id, entry_id=r.entry, kind=r.kind, fix=fix, backend="ray",
                                            status="error", reason=f"Ray task failed: {type(exc).__name__}: "
                                                                   f"{str(exc).splitlines()[0][:300] if str(exc) else ''}")
        return [results[r.id] for r in recipes]
    finally:
        if started:
            ray.shutdown()
