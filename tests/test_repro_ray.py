"""The Ray backend against a real local Ray cluster on 127.0.0.1, started and stopped by the test."""
from __future__ import annotations

import pytest

from kb.repro.recipe import RecipeBook
from kb.repro.ray_backend import run_on_ray

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    ray = pytest.importorskip("ray")
    assert not ray.is_initialized()
    ray.init(address="local", num_cpus=1, num_gpus=0, include_dashboard=False, _node_ip_address="127.0.0.1",
             object_store_memory=80 * 1024 * 1024, _temp_dir=str(tmp_path_factory.mktemp("ray")),
             log_to_driver=False)
    yield ray
    ray.shutdown()


def test_a_recipe_runs_as_a_ray_task_on_a_worker_and_comes_back_as_a_result(ray_cluster):
    book = RecipeBook()
    results = run_on_ray([book.recipes["zero3-size0-load"], book.recipes["zero3-size0-load-deepspeed"]],
                         fix=True, use_pip=False)
    fixed, gpu = results
    assert fixed.backend == "ray" and fixed.status == "fix_verified", (fixed.reason, fixed.log_tail[-1500:])
    assert fixed.environment["torch"] and fixed.duration_s > 0
    # the cluster has no GPU: the GPU recipe is skipped up front instead of waiting for one forever
    assert gpu.status == "skipped" and "the Ray cluster has 0" in gpu.reason
    assert ray_cluster.is_initialized()        # a connection the caller made is left to the caller

