"""`diagnose --verify`: run the top match's recipe and compare what it reproduced with the report's own error.

"confirmed" needs both: the recipe reproduced its entry's failure, and the reproduced error's signature agrees with
the report's primary error (the matcher's similarity, and no conflicting hard fact). The report is only parsed;
nothing from it runs: the recipe comes from the knowledge base, chosen by the entry id.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Callable, Literal

from kb.models import Diagnosis
from kb.repro.environment import detect, skip_reason
from kb.repro.outcome import closest, event_line
from kb.traceback.signature import SIG_ACCEPT
from kb.repro.recipe import Recipe, RecipeBook
from kb.repro.results import ReproResult
from kb.traceback.parse import parse_report
from kb.traceback.signature import hard_conflicts, signature_of_event, signature_of_line, similarity

Verdict = Literal["confirmed", "not_confirmed", "unavailable"]


@dataclass
class Verification:
    verdict: Verdict
    reason: str
    entry_id: str | None = None
    recipe_id: str | None = None
    repro_status: str | None = None
    similarity: float | None = None
    conflicts: list[str] = field(default_factory=list)
    reproduced: str | None = None      # the recipe's error line
    report: str | None = None          # the report's primary error line
    duration_s: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def pick_recipe(book: RecipeBook, entry_id: str) -> Recipe | None:
    """The entry's recipe to run here: a real GPU one when this machine can run it, else the CPU mechanism."""
    recipes = book.for_entry(entry_id)
    env = detect()
    runnable = [r for r in recipes if skip_reason(r, env) is None]
    gpu = [r for r in runnable if r.needs_gpu]
    return (gpu or runnable or recipes or [None])[0]


def verify(report_text: str, entry_id: str | None, book: RecipeBook,
           run: Callable[[Recipe], ReproResult]) -> tuple[Verification, ReproResult | None]:
    """Verify a diagnosis: (verdict, the recipe's result when one ran)."""
    if entry_id is None:
        return Verification("unavailable", "no entry matched, so there is nothing to reproduce"), None
    recipe = pick_recipe(book, entry_id)
    if recipe is None:
        return Verification("unavailable", f"entry {entry_id} has no reproduction recipe", entry_id), None
    result = run(recipe)
    out = Verification("not_confirmed", "", entry_id, recipe.id, result.status, duration_s=result.duration_s,
                       reproduced=result.matched)
    if result.status == "skipped":
        out.verdict, out.reason = "unavailable", f"recipe {recipe.id} skipped: {result.reason}"
        return out, result
    if result.status != "reproduced":
        out.reason = f"recipe {recipe.id} did not reproduce its failure ({result.status}: {result.reason})"
        return out, result
    primary = parse_report(report_text).primary
    if primary is None:
        out.reason = "the report has no error line to compare with"
        return out, result
    report_sig = signature_of_event(primary)
    # the whole reproduced event (a load_state_dict error spans lines) when the log tail still holds it
    found = closest(result.log_tail, signature_of_line(recipe.expect.signature))
    repro_sig = found.signature if found is not None and found.agrees else signature_of_line(result.matched or "")
    score, _why = similarity(report_sig, repro_sig)
    out.similarity, out.conflicts = round(score, 3), hard_conflicts(report_sig, repro_sig)
    out.report = event_line(primary, repro_sig)
    if out.conflicts:
        out.reason = f"the reproduced error conflicts with the report's: {'; '.join(out.conflicts)}"
    elif score < SIG_ACCEPT:
        out.reason = f"the reproduced error is not the report's (similarity {score:.2f} < {SIG_ACCEPT})"
    else:
        out.verdict = "confirmed"
        out.reason = (f"recipe {recipe.id} reproduced the report's error (similarity {score:.2f}, "
                      f"no conflicting facts)")
    return out, result


def verify_and_record(store, diag: Diagnosis, report_text: str) -> Verification:
    """What `diagnose --verify` and the bots' `--verify` do: run the top match's recipe here (local backend), keep
    the result in `store` (a `kb.repro.results.ResultStore`), and say whether it confirms the report."""
    from kb.repro.runner import run_recipe

    entry_id = diag.matches[0].entry_id if diag.verdict == "match" and diag.matches else None
    verification, result = verify(report_text, entry_id, RecipeBook(), run_recipe)
    if result is not None:
        store.record(result)
    return verification
