"""Command line: `triage ingest|search|stats|export|eval|diagnose` and the `diagnose` shortcut.

Errors of ours reach the user as one line (exit 1; 2 for usage, bad TRIAGE_* settings and unreadable input; 130 for
Ctrl-C); `--debug` (on `triage` and on `diagnose`) shows the traceback of an unexpected one.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from bot.clikit import (CONTEXT, TriageCommand, TriageGroup, debug_option, guarded, kb_option, settings_from,
                        version_option)
from bot.commands import feedback, importer, repro, serve, slack
from bot.compose import chosen_kb, given_kb, open_kb, resolve_kb_for_writing
from kb.errors import BadInput

@click.group(cls=TriageGroup, context_settings=CONTEXT)
@debug_option
@version_option
@click.pass_context
def main(ctx: click.Context) -> None:
    """triage-kb: a knowledge base of large-model training failures, and a traceback diagnoser."""
    ctx.ensure_object(dict)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@kb_option
@click.option("--prune", is_flag=True, help="Drop documents whose files are gone.")
@click.option("--with-starter", is_flag=True, help="Also include the bundled starter entries.")
@click.option("--repair", is_flag=True,
              help="Rebuild a damaged knowledge base from its stored chunks (PATHS may then be left out).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.pass_context
@guarded
def ingest(ctx, paths, kb_dir, prune, with_starter, repair, as_json):
    """Ingest postmortems (txt, md, html, GitHub issue JSON; files or folders) into a knowledge base."""
    from bot.compose import build_kb
    from bot.progress import progress_bar

    if not paths and not with_starter and not repair:
        raise BadInput("Give the postmortem files or folders to ingest (or --repair to rebuild a damaged knowledge "
                       "base from its stored chunks)")
    settings = settings_from(ctx)
    target = resolve_kb_for_writing(settings, kb_dir)
    paths = list(paths)
    if with_starter:
        from kb.starter import ENTRIES_DIR

        paths.append(ENTRIES_DIR)
    with progress_bar(enabled=not as_json) as tick:
        report = build_kb(paths, target, settings, prune=prune, repair=repair, progress=tick)
    if as_json:
        click.echo(json.dumps({"kb": str(target), **report.as_dict()}, ensure_ascii=False))
    else:
        from bot.render.terminal import print_ingest_report

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
    from kb.stats import kb_identity

    kb = open_kb(settings_from(ctx), kb_dir)
    results = kb.search(text, top=top)
    if as_json:
        click.echo(json.dumps([r.__dict__ for r in results], ensure_ascii=False))
        return
    from bot.render.terminal import print_search_results

    print_search_results(results, kb=kb_identity(kb))


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
    from bot.render.terminal import print_stats

    print_stats(info)


@main.command()
@kb_option
@click.pass_context
@guarded
def where(ctx, kb_dir):
    """Which knowledge base the commands read, and why: --kb, $TRIAGE_KB, your own KB, the bundled starter KB."""
    from bot.compose import starter_folder
    from bot.render.terminal import print_where
    from kb.starter import ENTRIES_DIR
    from kb.stats import peek_identity

    settings = settings_from(ctx)
    given_kb(settings, kb_dir)             # a file where a folder belongs is an error here too

    def state(path: Path | None, unset: str, missing: str) -> str:
        if path is None:
            return unset
        found = peek_identity(path)
        if found is None:
            return missing
        from bot.render.terminal import when

        n = found["documents"]
        return f"{n} document{'s' if n != 1 else ''}, built {when(found['built_at'])}"

    own = settings.default_kb_dir()
    starter = starter_folder(settings)
    entries = len(list(ENTRIES_DIR.glob("*.md")))
    choices = [
        {"label": "--kb DIR", "path": kb_dir, "state": state(kb_dir, "not given", "no knowledge base built there yet")},
        {"label": "$TRIAGE_KB", "path": settings.kb,
         "state": state(settings.kb, "not set", "no knowledge base built there yet")},
        {"label": "your own KB", "path": own,
         "state": state(own, "", "not built; `triage ingest DIR` without --kb builds it")},
        {"label": "bundled starter KB", "path": starter,
         "state": state(starter, "", f"built on first use from the {entries} bundled entries")},
    ]
    chosen = chosen_kb(settings, kb_dir)
    used = 3 if chosen is None else 0 if kb_dir else 1 if settings.kb else 2
    print_where(choices, used, resolve_kb_for_writing(settings, kb_dir))


@main.command()
@kb_option
@click.option("--doc", "doc_ids", multiple=True, metavar="DOC_ID", help="Only this document (repeatable).")
@click.option("--removed", is_flag=True,
              help="Add the lines cleaning removed from each page and why (\"removed\"), read again from its file.")
@click.pass_context
@guarded
def export(ctx, kb_dir, doc_ids, removed):
    """Every document with all extracted fields and its chunks, as JSON Lines."""
    settings = settings_from(ctx)
    kb = open_kb(settings, kb_dir)
    docs = kb.documents()
    unknown = [d for d in doc_ids if d not in docs]
    if unknown:
        raise click.BadParameter(f"no document {unknown[0]!r} in {kb.path}", param_hint="--doc")
    if removed:
        from bot.compose import removed_lines as removed_of

        removed_lines = removed_of(kb, settings)
    for doc_id, doc in ([(d, docs[d]) for d in dict.fromkeys(doc_ids)] if doc_ids else docs.items()):
        record = doc.model_dump()
        record["chunks"] = [sc.chunk.model_dump() for sc in kb.store.chunks_of(doc_id)]
        if removed:
            record["removed"] = removed_lines.of(doc)
        click.echo(json.dumps(record, ensure_ascii=False))


def _read_report(arg: str, max_bytes: int):
    """The report `arg` names (a file, or - for standard input) as kb.report_input.ReportText; its problem and notes
    name the input."""
    from kb.report_input import ReportText, read_report_bytes

    name = "standard input" if arg == "-" else arg
    if arg == "-":
        if sys.stdin.isatty():
            click.echo("Reading the report from standard input until end of file: paste it, then press Ctrl-D "
                       "on a line of its own.", err=True)
        data = sys.stdin.buffer.read()
    else:
        path = Path(arg)
        if not path.exists():
            return ReportText("", f"{arg}: no such file")
        if path.is_dir():
            return ReportText("", f"{arg}: is a folder, not a report file")
        try:
            data = path.read_bytes()
        except OSError as exc:
            return ReportText("", f"{arg}: cannot read ({exc.strerror})")
    got = read_report_bytes(data, max_bytes)
    return ReportText(got.text, got.problem and f"{name}: {got.problem}", tuple(f"{name}: {n}" for n in got.notes))


@main.command("diagnose", cls=TriageCommand, context_settings=CONTEXT)
@click.argument("files", nargs=-1, required=True)
@kb_option
@debug_option
@version_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per input, one per line.")
@click.option("--top", default=3, show_default=True, type=click.IntRange(1, 20), help="At most K matches.")
@click.option("--verify", is_flag=True, help="Run the top match's reproduction recipe: does it confirm the report?")
@click.option("--lang", type=click.Choice(["auto", "en", "zh"]), default=None,
              help="Answer in English or Chinese; auto: the report's language (default: TRIAGE_LANG, else auto).")
@click.pass_context
@guarded
def diagnose_cmd(ctx, files, kb_dir, as_json, top, verify, lang):
    """Diagnose tracebacks / error reports (FILE... ; - reads standard input)."""
    from bot.progress import progress_bar

    settings = settings_from(ctx)
    with progress_bar(enabled=not as_json) as tick:
        kb = open_kb(settings, kb_dir, progress=tick)
    kb.preload_query_embedder()             # loads while the modules below, the matcher and the report are prepared
    from bot.render.terminal import print_diagnosis
    from kb.diagnose import Diagnoser, answer_json
    from kb.stats import kb_identity
    source = kb_identity(kb)                # every answer says which knowledge base it came from
    from kb.feedback import FeedbackStore
    from kb.repro.results import ResultStore
    from kb.state import state_for

    # The same feedback and repro results as the service's answers (read-only unless --verify records a run).
    diagnoser = Diagnoser(kb, feedback=FeedbackStore(state_for(settings, kb.path, create=False)),
                          repro=ResultStore(state_for(settings, kb.path, create=verify)))
    status = 0
    for arg in files:
        report = _read_report(arg, settings.max_report_bytes)
        text, problem = report.text, report.problem
        for note in report.notes:
            click.echo(f"note: {note}", err=True)
        if problem:
            click.echo(f"error: {problem}", err=True)
            if as_json:
                click.echo(json.dumps({"input": arg, "ok": False, "error": problem}, ensure_ascii=False))
            status = 2
            continue
        diag = diagnoser.diagnose(text, name=arg, top=top, lang=lang or settings.lang)
        verification = None
        if verify:
            from kb.repro.verify import verify_and_record

            verification = verify_and_record(diagnoser.repro, diag, text)
        if as_json:
            extra = {"verification": verification.as_dict()} if verification is not None else {}
            click.echo(answer_json(diag, source, **extra))
        else:
            print_diagnosis(diag, verification, kb=source)
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
        from bot.render.terminal import print_cv

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
    from bot.render.terminal import print_eval

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


# Commands with modules of their own (bot/commands/*.py) add themselves to the group. Those modules import heavy
# libraries (fastapi, ray, slack-bolt) inside their functions, never at module level: the CLI's cold start depends on it.
for _module in (serve, slack, feedback, repro, importer):
    _module.register(main)


def diagnose_main() -> None:
    """Entry point of the `diagnose` script: the same as `triage diagnose`, with usage and help of its own."""
    diagnose_cmd.main(sys.argv[1:], prog_name="diagnose")


if __name__ == "__main__":
    main()
