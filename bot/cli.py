"""Command line: `triage ingest|search|stats|export|eval|diagnose` and the `diagnose` shortcut.

Errors of ours reach the user as one line (exit 1; 2 for usage and unreadable input); `--debug` shows the traceback.
"""
from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import click

from kb.config import Settings
from kb.errors import BadInput, KBError

_debug = False


def _fail(message: str, code: int) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def guarded(fn):
    """Turn our errors into one line and an exit code; anything unexpected too, unless --debug."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BadInput as exc:
            _fail(exc.user_message, 2)
        except KBError as exc:
            _fail(exc.user_message, 1)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:  # noqa: BLE001 - the edge of the program
            if _debug:
                raise
            _fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)", 1)

    return wrapper


def settings_from(ctx: click.Context) -> Settings:
    return ctx.obj["settings"]


def kb_option(fn):
    return click.option(
        "--kb", "kb_dir", type=click.Path(path_type=Path), default=None,
        help="Knowledge-base folder (default: $TRIAGE_KB, else your own KB if you built one, else the bundled starter KB).",
    )(fn)


def resolve_kb_for_writing(settings: Settings, kb_dir: Path | None) -> Path:
    return kb_dir or settings.kb or settings.default_kb_dir()


def _chosen_kb(settings: Settings, kb_dir: Path | None) -> Path | None:
    """--kb, $TRIAGE_KB, or the user's own KB if it exists; None means the bundled starter KB."""
    chosen = kb_dir or settings.kb
    if chosen is None and (settings.default_kb_dir() / "CURRENT").exists():
        chosen = settings.default_kb_dir()
    return chosen


def kb_folder(settings: Settings, kb_dir: Path | None) -> Path:
    """The folder `open_kb` reads, without loading or building it (feedback and repro results live beside it)."""
    from ingest.starter import starter_kb_dir

    return _chosen_kb(settings, kb_dir) or starter_kb_dir(settings)


def open_kb(settings: Settings, kb_dir: Path | None, progress=None):
    """The KB to read: --kb, $TRIAGE_KB, the user's own KB if it exists, else the bundled starter KB."""
    from kb.index.hybrid import KnowledgeBase

    chosen = _chosen_kb(settings, kb_dir)
    if chosen is None:
        from ingest.starter import ensure_starter_kb

        chosen = ensure_starter_kb(settings, progress=progress)
    return KnowledgeBase.open(chosen, settings)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show full tracebacks of unexpected errors.")
@click.pass_context
def main(ctx: click.Context, debug: bool) -> None:
    """triage-kb: a knowledge base of large-model training failures, and a traceback diagnoser."""
    global _debug
    _debug = debug
    ctx.ensure_object(dict)
    settings = Settings()
    ctx.obj["settings"] = settings
    from kb.index.tokenize import set_jieba_cache_dir

    set_jieba_cache_dir(settings.cache_dir / "jieba")


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@kb_option
@click.option("--prune", is_flag=True, help="Drop documents whose files are gone.")
@click.option("--with-starter", is_flag=True, help="Also include the bundled starter entries.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
@guarded
def ingest(ctx, paths, kb_dir, prune, with_starter, as_json):
    """Ingest postmortems (txt, md, html, GitHub issue JSON; files or folders) into a knowledge base."""
    from bot.progress import progress_bar
    from ingest.build import ingest as run_ingest

    settings = settings_from(ctx)
    target = resolve_kb_for_writing(settings, kb_dir)
    paths = list(paths)
    if with_starter:
        from kb.starter import ENTRIES_DIR

        paths.append(ENTRIES_DIR)
    with progress_bar(enabled=not as_json) as tick:
        report = run_ingest(paths, target, settings, prune=prune, progress=tick)
    if as_json:
        click.echo(json.dumps({"kb": str(target), **report.as_dict()}, ensure_ascii=False))
    else:
        from bot.render import print_ingest_report

        print_ingest_report(report, target)
    if report.documents == 0 and not report.changed:
        sys.exit(1)


@main.command()
@click.argument("text")
@kb_option
@click.option("--top", default=5, show_default=True, type=click.IntRange(1, 100))
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@guarded
def search(ctx, text, kb_dir, top, as_json):
    """Hybrid (dense + BM25) search over the knowledge base."""
    kb = open_kb(settings_from(ctx), kb_dir)
    results = kb.search(text, top=top)
    if as_json:
        click.echo(json.dumps([r.__dict__ for r in results], ensure_ascii=False))
        return
    from bot.render import print_search_results

    print_search_results(results)


@main.command()
@kb_option
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@guarded
def stats(ctx, kb_dir, as_json):
    """Documents, chunks, languages, model and sizes of a knowledge base."""
    from kb.stats import kb_stats

    kb = open_kb(settings_from(ctx), kb_dir)
    info = kb_stats(kb)
    if as_json:
        click.echo(json.dumps(info, ensure_ascii=False))
        return
    for key, value in info.items():
        click.echo(f"{key:>12}: {value}")


@main.command()
@kb_option
@click.pass_context
@guarded
def export(ctx, kb_dir):
    """Every document with all extracted fields and its chunks, as JSON Lines."""
    kb = open_kb(settings_from(ctx), kb_dir)
    for doc_id, doc in kb.documents().items():
        record = doc.model_dump()
        record["chunks"] = [sc.chunk.model_dump() for sc in kb.store.chunks_of(doc_id)]
        click.echo(json.dumps(record, ensure_ascii=False))


def _read_report(arg: str, max_bytes: int) -> tuple[str, str | None]:
    """(text, problem): the report's text, or a one-line reason it cannot be read."""
    from kb.report_input import decode_report

    if arg == "-":
        data = sys.stdin.buffer.read()
    else:
        path = Path(arg)
        if not path.exists():
            return "", f"{arg}: no such file"
        if path.is_dir():
            return "", f"{arg}: is a folder, not a report file"
        try:
            data = path.read_bytes()
        except OSError as exc:
            return "", f"{arg}: cannot read ({exc.strerror})"
    return decode_report(data, max_bytes)


@main.command("diagnose")
@click.argument("files", nargs=-1, required=True)
@kb_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per input, one per line.")
@click.option("--top", default=3, show_default=True, type=click.IntRange(1, 20), help="At most K matches.")
@click.option("--verify", is_flag=True, help="Run the top match's reproduction recipe: does it confirm the report?")
@click.pass_context
@guarded
def diagnose_cmd(ctx, files, kb_dir, as_json, top, verify):
    """Diagnose tracebacks / error reports (FILE... ; - reads standard input)."""
    from bot.progress import progress_bar
    from bot.render import print_diagnosis
    from kb.diagnose import Diagnoser

    settings = settings_from(ctx)
    with progress_bar(enabled=not as_json) as tick:
        kb = open_kb(settings, kb_dir, progress=tick)
    from kb.feedback import FeedbackStore
    from kb.repro.results import ResultStore
    from kb.state import state_for

    # The same feedback and repro results as the service's answers (read-only unless --verify records a run).
    diagnoser = Diagnoser(kb, feedback=FeedbackStore(state_for(settings, kb.path, create=False)),
                          repro=ResultStore(state_for(settings, kb.path, create=verify)))
    status = 0
    for arg in files:
        text, problem = _read_report(arg, settings.max_report_bytes)
        if problem:
            click.echo(f"error: {problem}", err=True)
            if as_json:
                click.echo(json.dumps({"input": arg, "ok": False, "error": problem}, ensure_ascii=False))
            status = 2
            continue
        diag = diagnoser.diagnose(text, name=arg, top=top)
        verification = None
        if verify:
            from kb.repro.verify import verify_and_record

            verification = verify_and_record(diagnoser.repro, diag, text)
        if as_json:
            click.echo(diag.model_dump_json() if verification is None else json.dumps(
                {**diag.model_dump(mode="json"), "verification": verification.as_dict()}, ensure_ascii=False))
        else:
            print_diagnosis(diag, verification)
    # Nothing is left to write (the KB is opened read-only), and the OpenMP threads of FAISS and the query encoder
    # spin for seconds at interpreter teardown: end the process as soon as the output is out.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


@main.command("eval")
@click.argument("setdirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--cv", is_flag=True, help="Leave one set out: answer each set with a decision trained on the others.")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None,
              help="Also write the figures (and per-query results) here.")
@click.pass_context
@guarded
def eval_cmd(ctx, setdirs, cv, json_out):
    """Measure the matcher on labelled sets (SETDIR/corpus, queries, labels.jsonl) beside two baselines."""
    from bot.progress import progress_bar

    settings = settings_from(ctx)
    if cv:
        from bot.crossval import cross_validate, measure_set, set_name
        from bot.render import print_cv

        if len(setdirs) < 2:
            raise BadInput("--cv needs at least two sets: each is answered by a decision trained on the others")
        names = [set_name(d) for d in setdirs]
        if len(set(names)) < len(names):
            raise BadInput("--cv needs sets with different folder names (they name the sets in the figures)")
        with progress_bar() as tick:
            measured = {set_name(d): measure_set(d, settings, progress=tick) for d in setdirs}
        result, _ = cross_validate(measured)
        print_cv(result)
        if json_out:
            json_out.write_text(json.dumps(result, indent=2), encoding="utf-8")
        return
    from bot.evaluate import run_eval
    from bot.render import print_eval

    everything = []
    for setdir in setdirs:
        with progress_bar() as tick:
            figures, details = run_eval(setdir, settings, progress=tick)
        if len(setdirs) > 1:
            click.echo(f"== {setdir}")
        print_eval(figures)
        everything.append({"set": str(setdir), "figures": [f.as_dict() for f in figures], "queries": details})
    if json_out:
        data = everything[0] if len(everything) == 1 else everything
        json_out.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


@main.command("eval-extract")
@click.argument("setdir", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the figures and per-document results as JSON.")
@click.pass_context
@guarded
def eval_extract(ctx, setdir, as_json):
    """Precision and recall of the error lines ingest extracts, on a labelled set (SETDIR/docs, labels.jsonl)."""
    from bot.extract_eval import run_extract_eval

    summary, results = run_extract_eval(setdir, settings_from(ctx))
    if as_json:
        click.echo(json.dumps({**summary, "docs": [r.__dict__ for r in results]}, ensure_ascii=False))
        return
    lines = summary["error_lines"]
    click.echo(f"documents: {summary['documents']}")
    click.echo(f"error lines: recall {lines['recall']:.3f} ({lines['labelled']} labelled), "
               f"precision {lines['precision']:.3f} ({lines['extracted']} extracted)")
    for key, label in (("root_cause_found", "root cause found"), ("fix_found", "fix found")):
        value = summary[key]
        click.echo(f"{label}: {'-' if value is None else f'{value:.3f}'}")
    for r in results:
        for line in r.missed:
            click.echo(f"  missed   {r.doc}: {line[:150]}")
        for line in r.spurious:
            click.echo(f"  spurious {r.doc}: {line[:150]}")
        if r.root_cause is False:
            click.echo(f"  no root cause found in {r.doc}")
        if r.fix is False:
            click.echo(f"  no fix found in {r.doc}")


@main.command("train-decision")
@click.argument("setdirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Where to write the weights (default: the ones the matcher ships, kb/data/decision/weights.json).")
@click.pass_context
@guarded
def train_decision(ctx, setdirs, out):
    """Train the matcher's decision on labelled sets (fixed seed: the same sets give the same weights)."""
    from bot.crossval import measure_set, set_name
    from bot.progress import progress_bar
    from kb.decision import WEIGHTS_PATH, fit

    settings = settings_from(ctx)
    with progress_bar() as tick:
        sets = {set_name(d): measure_set(d, settings, progress=tick).rows for d in setdirs}
    model = fit(sets)
    target = out or WEIGHTS_PATH
    model.save(target)
    click.echo(f"trained on {model.meta['queries']} queries of {len(sets)} sets; threshold {model.threshold:.3f}; "
               f"wrote {target}")


# Commands with modules of their own (bot/commands/*.py) register below. Those modules import heavy libraries
# (fastapi, ray, slack-bolt) inside their functions, never at module level: the CLI's cold start depends on it.
# `python -m bot.cli` runs this file as __main__: let the command modules' `from bot.cli import ...` find this
# module instead of importing a second copy of it (which would import them again, circularly).
if __name__ == "__main__":
    sys.modules.setdefault("bot.cli", sys.modules[__name__])
# --- registered commands ---
from bot.commands.serve import serve  # noqa: E402
main.add_command(serve)
from bot.commands.slack import slack  # noqa: E402
main.add_command(slack)
from bot.commands.feedback import feedback  # noqa: E402
main.add_command(feedback)
from bot.commands.repro import repro  # noqa: E402
main.add_command(repro)
# --- end of registered commands ---


def diagnose_main() -> None:
    """Entry point of the `diagnose` script: the same as `triage diagnose`."""
    main(["diagnose", *sys.argv[1:]], prog_name="diagnose")


if __name__ == "__main__":
    main()
