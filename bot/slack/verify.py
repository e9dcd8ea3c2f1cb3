"""`/diagnose --verify` with the repro-runner: run the top entry's recipe (from the KB, never the report's text),
keep the result in the KB's state file, and say in a line or two whether it confirmed the diagnosis."""
from __future__ import annotations

from bot.slack.blocks import escape
from kb.models import Diagnosis

_MARK = {"confirmed": ":white_check_mark: *Confirmed*", "not_confirmed": ":x: *Not confirmed*",
         "unavailable": ":grey_question: *Could not verify*"}


def repro_verifier(state):
    """A Verifier (bot.slack.handlers) over `state` (a ServiceState with a loaded KB): the same verification as
    `diagnose --verify`, its result kept with the KB's other repro results."""

    def run(report_text: str, diag: Diagnosis) -> str:
        from kb.repro.results import ResultStore
        from kb.repro.verify import verify_and_record
        from kb.state import state_for

        state.require_ready()
        # A connection of its own: this runs in the verification thread, beside the diagnoser's reads.
        store = ResultStore(state_for(state.settings, state.kb.path))
        try:
            return format_verification(verify_and_record(store, diag, report_text))
        finally:
            store.close()

    return run


def format_verification(v) -> str:
    """A kb.repro.verify.Verification as mrkdwn."""
    head = f"{_MARK.get(v.verdict, v.verdict)} `{escape(v.entry_id or '-')}`: {escape(v.reason)}"
    lines = [head]
    if v.reproduced:
        lines.append(f"Reproduced: `{escape(v.reproduced[:300])}`")
    if v.duration_s is not None:
        lines.append(f"Recipe `{escape(v.recipe_id or '-')}` ran in {v.duration_s:.1f} s.")
    return "\n".join(lines)
