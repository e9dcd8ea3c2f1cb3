"""Terminal rendering of command results (rich). Pure presentation: no matching or storage logic here.

An answer's parts are decided in bot.render.parts, as for GitHub and Slack; this module adds the terminal's markup."""
from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bot.render.parts import environment, evidence_lines, fix_mark, issue_label, report_said, verified_first, where
from kb.evidence import clip
from kb.messages import msg

def make_console(**options) -> Console:
    """A console for our output: no guessing at highlights, and no `:name:` emoji codes (a report's `:warning:` is
    text, not an emoji)."""
    return Console(highlight=False, emoji=False, **options)


console = make_console()
err_console = make_console(stderr=True)

# Control characters other than tab and newline: an ESC would let a pasted log recolour (or clear) the terminal, a
# carriage return or backspace would overwrite what was printed before it.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: object) -> str:
    """Text from a report, an entry, a file name or a result, ready to go inside rich markup: shown as it is.

    Every renderer passes such text through here, and only here. Brackets are escaped (`[/INST]` would end a tag
    that was never opened and crash rich; `[rank0]` or `[red]` would be taken for a style and vanish), and control
    characters are written out as `\\xNN` (an ANSI colour code shows as text instead of colouring the terminal).
    """
    text = str(text).replace("\r\n", "\n")
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return escape(text)


def when(stamp: str | None) -> str:
    """A manifest's build time (2026-05-01T12:00:03+0000) as people read it: 2026-05-01 12:00."""
    return stamp[:16].replace("T", " ") if stamp else "at an unknown time"


def describe_kb(kb: dict) -> str:
    """One line naming a knowledge base (kb.stats.kb_identity): its folder, size and build time, for markup."""
    docs = kb.get("documents")
    count = f"{docs} document{'s' if docs != 1 else ''}" if docs is not None else "documents not counted"
    return f"{shown(kb['path'])} ({count}, built {shown(when(kb.get('built_at')))})"


def print_kb_line(kb: dict | None) -> None:
    if kb is not None:
        console.print(f"  [dim]knowledge base: {describe_kb(kb)}[/]", soft_wrap=True)


def print_ingest_report(report, kb_dir: Path) -> None:
    console.print(
        f"[bold]{shown(kb_dir)}[/]: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.removed)} removed, {len(report.skipped)} skipped "
        f"-> {report.documents} documents, {report.chunks} chunks ({report.embedded} embedded) "
        f"in {report.seconds:.1f}s"
    )
    for source, reason in report.skipped:
        err_console.print(f"  skipped {shown(source)}: {shown(reason)}")
    for note in report.notes:
        err_console.print(f"  note: {shown(note)}")


def print_import_report(report, repos: list[str], kb_dir: Path) -> None:
    """`triage import github` for people (`--json` prints `report.as_dict()`)."""
    console.print(
        f"[bold]{shown(kb_dir)}[/] from {shown(', '.join(repos))}: {report.fetched} threads fetched; "
        f"{report.added} added, {report.updated} updated, {report.unchanged} unchanged "
        f"({report.resolved} resolved, {report.unresolved} unresolved); {report.embedded} chunks embedded; "
        f"{report.requests} requests ({report.not_modified} not modified) -> {report.documents} documents",
        soft_wrap=True)
    for reason, n in sorted(report.skipped.items()):
        err_console.print(f"  skipped {n}: {shown(reason)}")
    for note in report.notes:
        err_console.print(f"  note: {shown(note)}")


def print_search_results(results, kb: dict | None = None) -> None:
    if not results:
        console.print("No results.")
        print_kb_line(kb)
        return
    table = Table(show_lines=True)
    for col in ("#", "score", "source", "section", "text"):
        table.add_column(col, overflow="fold")
    for i, r in enumerate(results, 1):
        snippet = " ".join(r.text.split())[:240]
        table.add_row(str(i), f"{r.score:.3f}", shown(r.source), shown(r.section), shown(snippet))
    console.print(table)
    print_kb_line(kb)


def _heading(text: str) -> None:
    console.print(f"  [bold underline]{text}[/]")


def print_diagnosis(diag, verification=None, kb: dict | None = None) -> None:
    """An answer: the verdict with its one number (the confidence), then the headed parts in the order every
    surface uses (root cause, fixes with the verified ones first, versions, evidence, environment)."""
    head = f"[bold]{shown(diag.input)}[/]: "
    lang = diag.lang            # labels from the message table (kb/data/messages.json), in the answer's language
    colon = "：" if lang == "zh" else ": "
    if diag.verdict == "match":
        best = diag.matches[0]
        console.print(head + f"[green bold]{msg('match', lang)}[/] ({msg('confidence', lang)} {diag.confidence:.2f}) "
                             f"[bold]{shown(best.title)}[/]")
        console.print(f"  {msg('entry', lang)}: {shown(best.entry_id)}   {msg('source', lang)}: {shown(best.source)}")
        if best.issue is not None:
            print_issue(best.issue)
        _heading(msg("root_cause", lang))
        console.print(f"    {shown(best.root_cause or msg('no_root_cause', lang))}")
        if best.fixes:
            _heading(msg("fixes", lang))
        for fix in verified_first(best.fixes):
            console.print(f"    {_fix_label(fix, best, lang)}{shown(fix.text)}")
        if best.versions:
            _heading(msg("versions", lang))
            for line in best.versions:
                console.print(f"    {shown(line)}")
        evidence = evidence_lines(best)
        if evidence:
            _heading(msg("evidence", lang))
            for line in evidence:
                console.print(f"    [dim]- {shown(line.label + line.text)}[/]")
        env = environment(best, lang)
        if env:
            _heading(msg("environment", lang))
            for part in env:
                console.print(f"    {shown(part.label)}{colon}{shown(', '.join(part.values))}")
        for other in diag.matches[1:]:
            console.print(f"  {msg('also_possible', lang)}: {shown(other.title)} ({shown(other.entry_id)})")
    else:
        console.print(head + f"[yellow bold]{msg('no_match', lang)}[/] ({msg('confidence', lang)} "
                             f"{diag.confidence:.2f}): {shown(diag.reason)}")
        if diag.related:
            _heading(msg("nearest", lang))
        for rel in diag.related:
            why = f": {shown(rel.reason)}" if rel.reason else ""
            console.print(f"    - {shown(rel.title)} ({shown(where(rel))}){why}")
    q = diag.query
    if q.exception_type or q.message:
        console.print(f"  [dim]{msg('your_report', lang)}: {shown(clip(report_said(q), 200))}[/]")
    for note in q.notes:
        console.print(f"  [dim]note: {shown(note)}[/]")
    print_kb_line(kb)
    if verification is not None:
        print_verification(verification)


def _fix_label(fix, match, lang: str) -> str:
    """✔ verified by the maintainer: / ✔ verified by repro `recipe` on torch 2.6: / repro recipe ... / - """
    mark = fix_mark(fix, match, lang)
    colon = "：" if lang == "zh" else ":"
    if mark.pending:
        return f"- [dim]{shown(msg('repro_pending', lang, recipe=_recipe(mark)))}[/]"
    if not mark.verified:
        return "- "
    if mark.by_repro:
        ran = msg("ran_on", lang, env=mark.ran_on) if mark.ran_on else ""
        return f"[green]✔ {msg('verified_by_repro', lang)}{shown(_recipe(mark) + ran)}{colon}[/] "
    return f"[green]✔ {shown(msg('verified_by', lang, who=mark.who))}{colon}[/] "


def _recipe(mark) -> str:
    return f" {mark.recipe}" if mark.recipe else ""


def print_issue(issue) -> None:
    """The issue thread a match comes from: number, state, closing PR, link, and its resolution with who gave it."""
    console.print(f"  issue: {shown(issue_label(issue))} {shown(issue.title)}", soft_wrap=True)
    if issue.url:
        console.print(f"  link: {shown(issue.url)}", soft_wrap=True)
    res = issue.resolution
    if res is not None:
        who = {"maintainer": f"maintainer, {res.author_association or '?'}",
               "reporter": "reporter confirmed", "pull_request": f"closing pull request #{res.pull_request}",
               "commit": "closing commit"}[res.kind]
        text = " ".join(res.text.split())
        console.print(f"  resolution ({shown(who)}): {shown(text[:400])}", soft_wrap=True)


def _size(n: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def print_stats(info: dict) -> None:
    """`triage stats` for people (`--json` prints `info` itself)."""
    langs = ", ".join(f"{lang} {n}" for lang, n in info["languages"].items()) or "-"
    rows = [
        ("knowledge base", shown(info["kb"])),
        ("documents", f"{info['documents']} ({info['chunks']} chunks)"),
        ("languages", shown(langs)),
        ("bilingual", f"{info.get('bilingual', 0)} entries (title, root cause and fixes in en and zh)"),
        ("built", shown(when(info.get("built")))),
        ("model", f"{shown(info.get('model') or '-')} ({info.get('dim') or '?'} dimensions)"),
        ("tokenizer", shown(info.get("tokenizer") or "-")),
        ("size on disk", _size(info["bytes_on_disk"])),
    ]
    for label, value in rows:
        console.print(f"[bold]{label:<15}[/]{value}", soft_wrap=True)


def print_where(choices: list[dict], used: int, writes_to: Path) -> None:
    """`triage where`: the places a KB is taken from, in order, and the one used now.

    choices: each {"label", "path" (or None), "state"} in precedence order; used: the index of the one read now."""
    console.print("Which knowledge base is read: the first of these that applies.")
    for i, c in enumerate(choices):
        mark = "[green bold]->[/]" if i == used else "  "
        console.print(f"{mark} {i + 1}. {c['label']:<19} {shown(c['state'])}", soft_wrap=True)
        if c["path"]:
            console.print(f"{'':<26}[dim]{shown(c['path'])}[/]", soft_wrap=True)
    chosen = choices[used]
    console.print(f"Now read: {used + 1}. {chosen['label']}, {shown(chosen['path'])}", soft_wrap=True)
    console.print(f"`triage ingest` without --kb writes to {shown(writes_to)}", soft_wrap=True)


def print_verification(v) -> None:
    color = {"confirmed": "green", "not_confirmed": "red"}.get(v.verdict, "yellow")
    took = f" in {v.duration_s:.1f} s" if v.duration_s else ""
    console.print(f"  verify: [{color} bold]{shown(v.verdict.replace('_', ' '))}[/] - {shown(v.reason)}{took}")
    if v.reproduced:
        console.print(f"    [dim]reproduced: {shown(v.reproduced[:200])}[/]")


def print_recipes(rows: list[dict]) -> None:
    """`triage repro list`. A wide terminal gets a column per field; a narrow one (80 columns) gets what tells the
    recipes apart: the recipe (with its entry beneath when it is named otherwise), what it runs on, and its last
    results; the kind of recipe is left out there (`--json` has everything)."""
    if console.width >= 110:
        table = Table(title="reproduction recipes")
        for col in ("recipe", "entry", "kind", "GPU", "ranks", "last reproduce", "last fix"):
            table.add_column(col, overflow="fold", no_wrap=col in ("recipe", "kind"))
        for r in rows:
            table.add_row(shown(r["id"]), shown(r["entry_id"]), shown(r["kind"]), "yes" if r["needs_gpu"] else "no",
                          str(r["world_size"]), shown(r["last"]["reproduce"] or "-"), shown(r["last"]["fix"] or "-"))
        console.print(table)
        return
    from rich import box

    table = Table(title="reproduction recipes", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("recipe (and its entry)", no_wrap=True, overflow="ellipsis")
    table.add_column("runs on", no_wrap=True)
    table.add_column("last reproduce")
    table.add_column("last fix")
    for r in rows:
        name = shown(r["id"])
        if r["entry_id"] != r["id"]:
            name += f"\n[dim]  entry {shown(r['entry_id'])}[/]"
        ranks = r["world_size"]
        runs = f"{'GPU' if r['needs_gpu'] else 'CPU'}, {ranks} rank{'s' if ranks != 1 else ''}"
        last = [shown((r["last"][mode] or "-").replace("_", " ")) for mode in ("reproduce", "fix")]
        table.add_row(name, runs, *last)
    console.print(table)


_STATUS_COLOR = {"reproduced": "green", "fix_verified": "green", "skipped": "yellow"}


def print_repro_results(results) -> None:
    table = Table()
    for col in ("recipe", "mode", "status", "time", "ran on"):
        table.add_column(col, no_wrap=col != "ran on", overflow="fold")
    for r in results:
        env = r.environment
        where = f"{r.backend}: torch {env.get('torch') or '-'}, {env.get('device') or '-'}" if env else r.backend
        color = _STATUS_COLOR.get(r.status, "red")
        table.add_row(shown(r.recipe_id), shown(r.mode), f"[{color}]{shown(r.status)}[/]", f"{r.duration_s:.1f}s",
                      shown(where))
    console.print(table)
    for r in results:
        console.print(f"[bold]{shown(r.recipe_id)}[/] ({shown(r.entry_id)}, {shown(r.mode)}): {shown(r.reason)}")


def print_eval(figures) -> None:
    table = Table(title="triage eval")
    for col in ("system", "top-1 (positives)", "wrong (positives)", "abstention (null)", "overall", "recall@3", "threshold"):
        table.add_column(col)
    for f in figures:
        t = "-" if f.threshold is None else f"{f.threshold:.3f}"
        table.add_row(shown(f.name), f"{f.top1_positive:.3f}", str(f.wrong_on_positive), f"{f.abstention:.3f}",
                      f"{f.overall:.3f}", f"{f.recall_at_3:.3f}", t)
    # Piped into a file or CI log, rich would squeeze the table into 80 columns; the figures need ~110.
    out = console if console.is_terminal else make_console(width=120)
    out.print(table)
    out.print(f"[bold]misses of the matcher ({len(figures[0].misses)}):[/]")
    for miss in figures[0].misses:
        out.print(f"  {shown(miss)}", overflow="ignore", crop=False)


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
        table.add_row(shown(name), str(f["n"]), f"{f['accuracy']:.3f}", f"{f['top1']:.3f}",
                      f"{f['wrong_on_positives']:.3f}", f"{f['abstention']:.3f}", f"{f['helpful_at_3']:.3f}",
                      "-" if t is None else f"{t:.3f}", "-" if b is None else f"{b:.3f}")
    out = console if console.is_terminal else make_console(width=120)
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
