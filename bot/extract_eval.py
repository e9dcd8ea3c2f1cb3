"""`triage eval-extract SETDIR`: how well ingest finds a postmortem's error lines, root cause and fix.

A set is `docs/` (postmortems as people write them) and `labels.jsonl`, one object per document:
`{"doc": "docs/x.md", "error_lines": [...], "root_cause": "<quote>"|null, "fix": "<quote>"|null, ...}`. Error
lines are the lines a reader would point at (exception lines, log lines with levels and ranks, C++/CUDA/NCCL lines,
messages quoted inline); the extracted ones are what the matcher reads of the document (its error lines and the
events of its tracebacks).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from kb.config import Settings
from kb.errors import BadInput
from kb.traceback.lines import clean_line, dedupe_key

_TOKEN = re.compile(r"[A-Za-z0-9_]+|[\u4e00-\u9fff]")
LINE_OVERLAP = 0.9     # share of one line's tokens the other must hold to be the same line
LINE_SHARE = 0.5       # an extracted line that is part of a label must be at least this share of it
FRAGMENT_TOKENS = 4    # a label this long quoted inside a longer extracted line (a phrase quoted inline) is found
QUOTE_OVERLAP = 0.6    # share of a root-cause or fix quote's tokens the extracted text must hold


def _tokens(s: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(s)]


def _covers(a: list[str], b: list[str]) -> float:
    """The share of a's tokens that b holds."""
    have = set(b)
    return sum(t in have for t in a) / len(a) if a else 0.0


def found(label: str, got: str) -> bool:
    """Whether an extracted line gives the reader the labelled line: the same line less a prefix (a timestamp, a
    rank) or a wrapped tail, or a longer line that holds a phrase the document quoted from it."""
    a, b = _tokens(clean_line(label)), _tokens(got)    # labels keep their timestamps and ranks; lines are cleaned
    if not a or not b:
        return False
    if _covers(a, b) >= LINE_OVERLAP:
        return len(a) >= FRAGMENT_TOKENS or len(b) <= 2 * len(a)
    return _covers(b, a) >= LINE_OVERLAP and len(b) >= LINE_SHARE * len(a)


def rightly_extracted(got: str, label: str) -> bool:
    """Whether an extracted line is (part of) a labelled line rather than prose or a fragment of something else."""
    a, b = _tokens(got), _tokens(label)
    return bool(a) and (_covers(a, b) >= LINE_OVERLAP or found(label, got))


def holds_quote(quote: str, text: str) -> bool:
    q = _tokens(quote)
    have = set(_tokens(text))
    return bool(q) and sum(t in have for t in q) >= QUOTE_OVERLAP * len(q)


@dataclass
class DocResult:
    doc: str
    labelled: list[str]
    extracted: list[str]
    missed: list[str] = field(default_factory=list)
    spurious: list[str] = field(default_factory=list)
    root_cause: bool | None = None      # None: the document states none
    fix: bool | None = None


def extracted_groups(doc) -> list[list[str]]:
    """The error lines the matcher reads of a document: the events of its tracebacks (the first line of each
    message) and its error lines, grouped by what the matcher reads as one line, in text order. Copies of one line
    from different ranks or steps are one (`copies`), and so are a traceback's event and the error line it was
    printed as (one signature)."""
    from kb.traceback.parse import documents_error, parse_report
    from kb.traceback.signature import signature_of_event, signature_of_line

    keyed: dict[str, tuple] = {}
    for block in doc.tracebacks:
        for ev in parse_report(block).events:
            if documents_error(ev, bool(doc.error_lines)) and ev.message.strip():
                sig = signature_of_event(ev)
                keyed.setdefault(ev.message.split("\n", 1)[0].strip(), (sig.exc_type, sig.template))
    for line in doc.error_lines:
        if line.strip():
            sig = signature_of_line(line)
            keyed.setdefault(line.strip(), (sig.exc_type, sig.template))
    lines = list(keyed)
    at = {line: doc.body.find(line) for line in lines}
    lines.sort(key=lambda line: at[line] if at[line] >= 0 else len(doc.body))     # the first copy is the first
    groups: list[list[str]] = []
    where: dict = {}
    for line in lines:
        keys = (("line", dedupe_key(clean_line(line))), ("signature", keyed[line]))
        k = next((where[key] for key in keys if key in where), None)
        if k is None:
            k = len(groups)
            groups.append([])
        groups[k].append(line)
        for key in keys:
            where.setdefault(key, k)
    return groups


def copies(lines) -> list[list[str]]:
    """Lines grouped as copies of one line from different ranks or steps (the same line less its rank, pid,
    timestamps and counters: `dedupe_key`), in order of each group's first line. Writers differ on whether to label
    every rank's copy; the matcher reads one."""
    groups: dict[str, list[str]] = {}
    for line in lines:
        groups.setdefault(dedupe_key(clean_line(line)), []).append(line)
    return list(groups.values())


def run_extract_eval(setdir: Path, settings: Settings) -> tuple[dict, list[DocResult]]:
    from ingest.clean import find_boilerplate
    from ingest.extract.document import extract_document
    from ingest.read import Skipped, read_path

    setdir = Path(setdir)
    path = setdir / "labels.jsonl"
    if not path.is_file():
        raise BadInput(f"{setdir} is not an extraction set: it needs labels.jsonl (and the documents it names)")
    labels = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                d = json.loads(line)
                labels.append((d["doc"], list(d["error_lines"]), d.get("root_cause"), d.get("fix")))
            except (ValueError, KeyError, TypeError) as exc:
                raise BadInput(f"{path}:{n}: not a valid label line ({exc})") from None
    raws = {}
    for doc, *_ in labels:
        got = read_path(setdir / doc, settings.max_file_bytes)
        if isinstance(got, Skipped):
            raise BadInput(f"{setdir / doc}: {got.reason}")
        raws[doc] = got
    boilerplate = find_boilerplate([r.text for r in raws.values()])
    results = []
    for doc, want, cause, fix in labels:
        d = extract_document(raws[doc], doc, boilerplate)
        got = extracted_groups(d)
        labelled = copies(want)
        r = DocResult(doc, [group[0] for group in labelled], [group[0] for group in got])
        r.missed = [group[0] for group in labelled
                    if not any(found(w, g) for w in group for lines in got for g in lines)]
        r.spurious = [lines[0] for lines in got if not any(rightly_extracted(g, w) for g in lines for w in want)]
        if cause:
            r.root_cause = holds_quote(cause, d.root_cause)
        if fix:
            r.fix = holds_quote(fix, "\n".join(f.text for f in d.fixes))
        results.append(r)
    return summarise(results), results


def summarise(results: list[DocResult]) -> dict:
    labelled = sum(len(r.labelled) for r in results)
    extracted = sum(len(r.extracted) for r in results)
    found = labelled - sum(len(r.missed) for r in results)
    right = extracted - sum(len(r.spurious) for r in results)
    causes = [r.root_cause for r in results if r.root_cause is not None]
    fixes = [r.fix for r in results if r.fix is not None]
    return {
        "documents": len(results),
        "error_lines": {"labelled": labelled, "extracted": extracted,
                        "recall": round(found / labelled, 4) if labelled else 1.0,
                        "precision": round(right / extracted, 4) if extracted else 1.0},
        "root_cause_found": round(sum(causes) / len(causes), 4) if causes else None,
        "fix_found": round(sum(fixes) / len(fixes), 4) if fixes else None,
    }
