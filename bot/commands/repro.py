"""`triage repro list|run|import`: the knowledge base's minimal reproductions, run locally or on a Ray cluster.

torch and ray are imported only when a recipe runs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from bot.clikit import guarded, kb_option, settings_from
from bot.compose import kb_folder


@click.group()
def repro() -> None:
    """Minimal reproductions of knowledge-base entries: confirm a failure mechanism and verify its fix."""


def recipes_option(fn):
    return click.option("--recipes", "recipes_dir", type=click.Path(path_type=Path, file_okay=False, exists=True),
                        default=None, help="A folder of your own recipes instead of the bundled ones.")(fn)


@repro.command("list")
@kb_option
@recipes_option
@click.option("--json", "as_json", is_flag=True, help="A JSON array of recipes.")
@click.pass_context
@guarded
def list_cmd(ctx: click.Context, kb_dir: Path | None, recipes_dir: Path | None, as_json: bool) -> None:
    """Recipes with their entry, kind, GPU needs, world size and last results."""
    from kb.repro.results import ResultStore
    from kb.state import state_for

    settings = settings_from(ctx)
    latest = ResultStore(state_for(settings, kb_folder(settings, kb_dir), create=False)).latest()
    rows = []
    for r in _book(recipes_dir).recipes.values():
        last = {mode: latest.get((r.id, fix)) for mode, fix in (("reproduce", False), ("fix", True))}
        rows.append({**r.summary(), "last": {m: (x.status if x else None) for m, x in last.items()},
                     "last_run_at": max((x.created_at for x in last.values() if x), default=None)})
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    from bot.render.terminal import print_recipes

    print_recipes(rows)


@repro.command("run")
@click.argument("names", nargs=-1, required=True)
@kb_option
@recipes_option
@click.option("--fix", is_flag=True, help="Run with the recorded fix switched on (fix_verified / fix_failed).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Run here, or as Ray tasks ($TRIAGE_RAY_ADDRESS, else a private local Ray instance).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object: ok, backend and the results.")
@click.pass_context
@guarded
def run_cmd(ctx: click.Context, names: tuple[str, ...], kb_dir: Path | None, recipes_dir: Path | None, fix: bool,
            backend: str, as_json: bool) -> None:
    """Run the recipes of ENTRY... (entry or recipe ids); results are kept in the KB folder.

    Exit code 0 when every recipe reproduced, verified its fix or was skipped (no GPU, say); 1 otherwise.
    """
    from kb.repro.results import ResultStore
    from kb.state import state_for

    settings = settings_from(ctx)
    recipes = _book(recipes_dir).resolve(list(names))
    if backend == "ray":
        from kb.repro.ray_backend import run_on_ray

        results = run_on_ray(recipes, fix, address=settings.ray_address)
    else:
        from kb.repro.runner import run_recipe

        results = []
        for r in recipes:
            if not as_json:
                click.echo(f"running {r.id} ({'fix' if fix else 'reproduce'}) ...", err=True)
            results.append(run_recipe(r, fix=fix))
    store = ResultStore(state_for(settings, kb_folder(settings, kb_dir)))
    for res in results:
        store.record(res)
    ok = all(res.ok for res in results)
    if as_json:
        click.echo(json.dumps({"ok": ok, "backend": backend, "results": [r.as_dict() for r in results]},
                              ensure_ascii=False))
    else:
        from bot.render.terminal import print_repro_results

        print_repro_results(results)
    sys.exit(0 if ok else 1)


@repro.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path, dir_okay=False, exists=True))
@kb_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object: recorded and already_there.")
@click.pass_context
@guarded
def import_cmd(ctx: click.Context, files: tuple[Path, ...], kb_dir: Path | None, as_json: bool) -> None:
    """Record results that ran on another machine (FILE: what `triage repro run --json` printed there, or one
    result per line), so that `triage repro list` and the answers show them. Importing twice records nothing new."""
    from kb.repro.results import ResultStore, parse_results
    from kb.state import state_for

    results = [r for f in files for r in parse_results(f.read_text(encoding="utf-8"), str(f))]
    settings = settings_from(ctx)
    recorded, there = ResultStore(state_for(settings, kb_folder(settings, kb_dir))).import_results(results)
    if as_json:
        click.echo(json.dumps({"recorded": recorded, "already_there": there}))
    else:
        click.echo(f"recorded {recorded} result(s)" + (f"; {there} already there" if there else ""))


def _book(recipes_dir: Path | None):
    from kb.repro.recipe import RECIPES_DIR, RecipeBook

    return RecipeBook(recipes_dir or RECIPES_DIR)


def register(group) -> None:
    group.add_command(repro)
