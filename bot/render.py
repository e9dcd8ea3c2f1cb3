"""Terminal rendering of command results (rich). Pure presentation: no matching or storage logic here."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def print_ingest_report(report, kb_dir: Path) -> None:
    console.print(
        f"[bold]{kb_dir}[/]: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.removed)} removed, {len(report.skipped)} skipped "
        f"-> {report.documents} documents, {report.chunks} chunks ({report.embedded} embedded) "
        f"in {report.seconds:.1f}s"
    )
    for source, reason in report.skipped:
        err_console.print(f"  skipped {source}: {reason}")
    for note in report.notes:
        err_console.print(f"  note: {note}")


def print_search_results(results) -> None:
    if not results:
        console.print("No results.")
        return
    table = Table(show_lines=True)
    for col in ("#", "score", "source", "section", "text"):
        table.add_column(col, overflow="fold")
    for i, r in enumerate(results, 1):
        snippet = " ".join(r.text.split())[:240]
        table.add_row(str(i), f"{r.score:.3f}", r.source, r.section, snippet)
    console.print(table)


def print_diagnosis(diag, verification=None) -> None:
    from rich.panel import Panel

    head = f"[bold]{diag.input}[/]: "
    if diag.verdict == "match":
        best = diag.matches[0]
        console.print(head + f"[green bold]match[/] (confidence {diag.confidence:.2f}) [bold]{best.title}[/]")
        console.print(f"  entry: {best.entry_id}   source: {best.source}")
        console.print(Panel(best.root_cause or "(no root cause recorded)", title="Root cause", expand=False))
        for fix in best.fixes:
            by_repro = fix.verified and fix.verified_by == "repro"
            mark = "[green]✔ verified by repro[/] " if by_repro else "[green]✔ verified[/] " if fix.verified else "  "
            who = f" ({fix.verified_by})" if fix.verified and not by_repro else ""
            console.print(f"  {mark}{fix.text}{who}")
        if best.evidence:
            console.print("  [dim]evidence:[/]")
            for line in best.evidence:
                console.print(f"    [dim]- {line}[/]")
        for other in diag.matches[1:]:
            console.print(f"  also possible: {other.title} ({other.entry_id}, score {other.score:.2f})")
    else:
        console.print(head + f"[yellow bold]no match[/] (confidence {diag.confidence:.2f}): {diag.reason}")
        for rel in diag.related:
            console.print(f"  related: {rel.title} ({rel.entry_id}) - not accepted: {rel.reason}")
    q = diag.query
    if q.exception_type or q.message:
        console.print(f"  [dim]report: {q.exception_type or ''}: {q.message[:200]}[/]")
    for note in q.notes:
        console.print(f"  [dim]note: {note}[/]")
    if verification is not None:
        print_verification(verification)


def print_verification(v) -> None:
    from rich.markup import escape

    color = {"confirmed": "green", "not_confirmed": "red"}.get(v.verdict, "yellow")
    took = f" in {v.duration_s:.1f} s" if v.duration_s else ""
    console.print(f"  verify: [{color} bold]{v.verdict.replace('_', ' ')}[/] - {escape(v.reason)}{took}")
    if v.reproduced:
        console.print(f"    [dim]reproduced: {escape(v.reproduced[:200])}[/]")


def print_recipes(rows: list[dict]) -> None:
    from rich.markup import escape

    table = Table(title="reproduction recipes")
    for col in ("recipe", "entry", "kind", "GPU", "ranks", "last reproduce", "last fix"):
        table.add_column(col, overflow="fold", no_wrap=col in ("recipe", "kind"))
    for r in rows:
        table.add_row(r["id"], r["entry_id"], r["kind"], "yes" if r["needs_gpu"] else "no", str(r["world_size"]),
                      escape(r["last"]["reproduce"] or "-"), escape(r["last"]["fix"] or "-"))
    console.print(table)


_STATUS_COLOR = {"reproduced": "green", "fix_verified": "green", "skipped": "yellow"}


def print_repro_results(results) -> None:
    from rich.markup import escape

    table = Table()
    for col in ("recipe", "mode", "status", "time", "ran on"):
        table.add_column(col, no_wrap=col != "ran on", overflow="fold")
    for r in results:
        env = r.environment
        where = f"{r.backend}: torch {env.get('torch') or '-'}, {env.get('device') or '-'}" if env else r.backend
        table.add_row(r.recipe_id, r.mode, f"[{_STATUS_COLOR.get(r.status, 'red')}]{r.status}[/]",
                      f"{r.duration_s:.1f}s", escape(where))
    console.print(table)
    for r in results:
        console.print(f"[bold]{r.recipe_id}[/] ({r.entry_id}, {r.mode}): {escape(r.reason)}")


def print_eval(figures) -> None:
    table = Table(title="triage eval")
    for col in ("system", "top-1 (positives)", "wrong (positives)", "abstention (null)", "overall", "recall@3", "threshold"):
        table.add_column(col)
    for f in figures:
        t = "-" if f.threshold is None else f"{f.threshold:.3f}"
        table.add_row(f.name, f"{f.top1_positive:.3f}", str(f.wrong_on_positive), f"{f.abstention:.3f}",
                      f"{f.overall:.3f}", f"{f.recall_at_3:.3f}", t)
    # Piped into a file or CI log, rich would squeeze the table into 80 columns; the figures need ~110.
    out = console if console.is_terminal else Console(highlight=False, width=120)
    out.print(table)
    out.print(f"[bold]misses of the matcher ({len(figures[0].misses)}):[/]")
    for miss in figures[0].misses:
        out.print(f"  {miss}", overflow="ignore", crop=False)


def print_cv(result: dict) -> None:
    """Leave-one-set-out figures: per set, pooled, and the calibration table."""
    table = Table(title="triage eval --cv (each set answered by a decision trained on the others)")
    cols = ("set", "n", "accuracy", "top-1 (pos)", "wrong (pos)", "abstention", "helpful@3", "threshold",
            "bm25 best")
    for col in cols:
        table.add_column(col)
    base = result.get("baselines", {}).get("bm25_best_threshold_per_set", {})
    rows = list(result["sets"].items()) + [("pooled", result["pooled"])]
    for name, f in rows:
        t = f.get("threshold")
        b = base.get(name, {}).get("accuracy") if name != "pooled" else result.get("baselines", {}).get(
            "bm25_pooled_accuracy")
        table.add_row(name, str(f["n"]), f"{f['accuracy']:.3f}", f"{f['top1']:.3f}", f"{f['wrong_on_positives']:.3f}",
                      f"{f['abstention']:.3f}", f"{f['helpful_at_3']:.3f}", "-" if t is None else f"{t:.3f}",
                      "-" if b is None else f"{b:.3f}")
    out = console if console.is_terminal else Console(highlight=False, width=120)
    out.print(table)
    cal = Table(title="calibration: answers binned by confidence")
    for col in ("confidence", "answers", "right", "share right"):
        cal.add_column(col)
    for b in result["calibration"]:
        share = f"{b['right'] / b['n']:.3f}" if b["n"] else "-"
        cal.add_row(f"{b['lo']:.2f}-{b['hi']:.2f}", str(b["n"]), str(b["right"]), share)
    out.print(cal)
    out.print("wrong (pos): share of positives answered with another entry. bm25 best: whole-document BM25 at the "
              "threshold that suits it best on that very set (an upper bound for it).", overflow="fold")
