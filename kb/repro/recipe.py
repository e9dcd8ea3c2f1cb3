"""Reproduction recipes: a small script plus `recipe.yaml`, one folder per recipe under `kb/data/repros/<id>/`.

    id: zero3-size0-load
    entry: zero3-load-state-dict-size0      # the knowledge-base entry it reproduces
    title: ...
    needs_gpu: false                        # true: a real CUDA stack; skipped without one
    world_size: 1                           # ranks (GPUs when needs_gpu)
    packages: []                            # requirements beyond torch ("deepspeed>=0.14"); skipped when absent
    timeout_s: 120
    memory_mb: 4096                         # address-space limit per process; null: none (CUDA needs none)
    script: repro.py                        # relative to the recipe folder
    args: []                                # always passed to the script
    expect:
      signature: "..."                      # one of the entry's `signatures`, verbatim
    fix:
      args: ["--fix"]                       # what switches the recorded fix on (and/or `env`)
      signature: absent                     # absent: the failure must be gone; present: it is benign and stays

Only recipes found here (or in a folder a test names) ever run; a report's text is never executed.
"""
from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kb.errors import BadInput, KBError

RECIPES_DIR = Path(__file__).resolve().parents[1] / "data" / "repros"
RECIPE_FILE = "recipe.yaml"
ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")

Kind = Literal["cpu-mechanism", "gpu-real"]


class RecipeError(KBError):
    code = "recipe_invalid"


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    signature: str = Field(min_length=3)


class FixSwitch(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    signature: Literal["absent", "present"] = "absent"


class Recipe(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    entry: str
    title: str
    needs_gpu: bool = False
    world_size: int = Field(1, ge=1, le=64)
    packages: list[str] = Field(default_factory=list)
    timeout_s: float = Field(120, gt=0, le=3600)
    memory_mb: int | None = Field(4096, ge=256)
    script: str = "repro.py"
    args: list[str] = Field(default_factory=list)
    expect: Expect
    fix: FixSwitch
    folder: Path

    @property
    def kind(self) -> Kind:
        return "gpu-real" if self.needs_gpu else "cpu-mechanism"

    @property
    def script_path(self) -> Path:
        return (self.folder / self.script).resolve()

    def command_args(self, fix: bool) -> list[str]:
        return [*self.args, *(self.fix.args if fix else [])]

    def summary(self) -> dict:
        return {"id": self.id, "entry_id": self.entry, "title": self.title, "kind": self.kind,
                "needs_gpu": self.needs_gpu, "world_size": self.world_size, "packages": self.packages,
                "timeout_s": self.timeout_s, "expect": self.expect.signature}


def load_recipe(folder: Path) -> Recipe:
    """Read and validate `folder/recipe.yaml`; its id must be the folder's name and its script must exist."""
    path = folder / RECIPE_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RecipeError(f"{path}: cannot read the recipe ({exc})") from None
    if not isinstance(data, dict):
        raise RecipeError(f"{path}: expected a mapping of fields")
    try:
        recipe = Recipe(**data, folder=folder.resolve())
    except (ValidationError, TypeError) as exc:
        raise RecipeError(f"{path}: {_first_error(exc)}") from None
    if recipe.id != folder.name or not ID_RE.match(recipe.id):
        raise RecipeError(f"{path}: id {recipe.id!r} must be the folder's name (lower case, digits, dashes)")
    if not recipe.script_path.is_file():
        raise RecipeError(f"{path}: script {recipe.script} not found")
    return recipe


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError) and exc.errors():
        err = exc.errors()[0]
        return f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}"
    return str(exc)


class RecipeBook:
    """The recipes of one folder, by id and by entry."""

    def __init__(self, root: Path = RECIPES_DIR):
        self.root = root

    @cached_property
    def recipes(self) -> dict[str, Recipe]:
        if not self.root.is_dir():
            return {}
        return {r.id: r for r in (load_recipe(d) for d in sorted(self.root.iterdir()) if (d / RECIPE_FILE).is_file())}

    def for_entry(self, entry_id: str) -> list[Recipe]:
        """Recipes of an entry: CPU mechanism repros first, then the GPU ones."""
        return sorted((r for r in self.recipes.values() if r.entry == entry_id), key=lambda r: (r.needs_gpu, r.id))

    def resolve(self, names: list[str]) -> list[Recipe]:
        """Recipes named by recipe id or entry id, in the order given, each once.

        Raises:
            BadInput: a name that is neither.
        """
        out: dict[str, Recipe] = {}
        unknown = []
        for name in names:
            found = [self.recipes[name]] if name in self.recipes else self.for_entry(name)
            if not found:
                unknown.append(name)
            for r in found:
                out.setdefault(r.id, r)
        if unknown:
            raise BadInput(f"no reproduction recipe for {', '.join(unknown)} (see `triage repro list`)")
        return list(out.values())
