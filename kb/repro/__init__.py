"""The repro-runner: run a knowledge-base entry's minimal reproduction to confirm a match and verify its fix.

- `recipe`: recipes (`kb/data/repros/<id>/recipe.yaml` + script) and the `RecipeBook`
- `environment`: Python / torch / CUDA detection and why a recipe cannot run here
- `runner`: the local backend (process group, timeout, memory limit, clean folder and environment)
- `ray_backend`: the same runner as Ray tasks on a cluster
- `outcome`: output → status, with the matcher's parser and signatures
- `results`: results kept in the KB's state file
- `verify`: `diagnose --verify`
"""
