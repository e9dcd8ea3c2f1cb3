"""Render the benchmark's results (a dict, also saved as results.json) as bench/RESULTS.md."""
from __future__ import annotations

import json
import re
from pathlib import Path

GB_MIB = 1024
COLD_TARGET_S = 0.6      # seconds from start to answer of a one-shot `diagnose`
GPU_TARGET = 3000        # chunks/s embedded on one H100
# bench.gpu_encode's output from a lent GPU machine, kept by hand (make bench has no GPU)
GPU_RUNS = Path(__file__).resolve().parents[1] / "docs" / "repro-gpu"


def _ms(d: dict | None, key: str = "p50") -> str:
    return "–" if not d or key not in d else f"{d[key]:.1f}"


def _num(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1e6 else f"{n / 1e3:g}k" if n >= 1e3 else str(n)


def _verdict(ok: bool | None) -> str:
    return "not measured" if ok is None else "**met**" if ok else "**not met**"


def _quality_targets(cv: dict) -> list[tuple[str, str, bool | None, str]]:
    """The matcher issue's targets, on sets the decision was not trained on (leave one set out)."""
    if "pooled" not in cv:
        return [("leave-one-set-out accuracy ≥ 0.85", "–", None, cv.get("skipped") or cv.get("error") or "not run")]
    p = cv["pooled"]
    high = [c for c in cv["calibration"] if c["lo"] >= 0.9]
    n, right = sum(c["n"] for c in high), sum(c["right"] for c in high)
    worst = min(cv["sets"].items(), key=lambda kv: kv[1]["accuracy"])
    return [
        ("leave-one-set-out accuracy ≥ 0.85 (pooled)", f"{p['accuracy']:.3f} over {p['n']} reports",
         p["accuracy"] >= 0.85, f"lowest set {worst[0]} {worst[1]['accuracy']:.3f}; positives that abstain and "
         "near-misses that match are most of the loss (section 1)"),
        ("wrong answers on positives ≤ 3%", f"{p['wrong_on_positives'] * 100:.1f}%", p["wrong_on_positives"] <= 0.03,
         ""),
        ("answers at confidence ≥ 0.9: ≥ 95% right", f"{right}/{n}" + (f" ({right / n:.2f})" if n else ""),
         (right / n >= 0.95) if n else None, "near-misses that quote the entry's own message score high"),
    ]


def targets(r: dict) -> list[tuple[str, str, bool | None, str]]:
    """(target, measured, met, why) rows."""
    rows = _quality_targets(r.get("quality", {}).get("cv", {}))
    scale = {row["target"]: row for row in r.get("scale", {}).get("rows", [])}
    top = scale.get(max(scale)) if scale else None
    size = _num(top["target"]) if top else "the largest size"
    if top and "diagnose_ms" in top:
        d = top["diagnose_ms"]
        parts = (f"each part timed alone at this size, p50: query encoding {_ms(top.get('embed_ms'))} ms, "
                 f"BM25 search {_ms(top.get('bm25_ms'))} ms, FAISS search {_ms(top.get('dense_ms'))} ms")
        over = [name for name, key in (("query encoding", "embed_ms"), ("BM25 search", "bm25_ms"))
                if top.get(key, {}).get("p50", 0) > 20]
        if over:
            parts += f"; {' and '.join(over)} alone take{'s' if len(over) == 1 else ''} more than 20 ms"
        rows.append((f"warm diagnose p50 ≤ 20 ms at {size} chunks", f"{d['p50']:.1f} ms (n={d['n']})",
                     d["p50"] <= 20, parts))
        rows.append((f"warm diagnose p99 ≤ 100 ms at {size} chunks", f"{d['p99']:.1f} ms (n={d['n']})",
                     d["p99"] <= 100, parts))
    else:
        why = (top or {}).get("stopped", "the scale section did not run")
        rows.append((f"warm diagnose p50 ≤ 20 ms / p99 ≤ 100 ms at {size} chunks", "–", None, why))
    if top and "rss_after_mb" in top:
        files = top.get("files_mb", {})
        why = (f"after opening the KB: {top['rss_open_mb']:.0f} MiB, of which the BM25 arrays (loaded whole) "
               f"{files.get('bm25', 0):.0f} MiB and the FAISS index {files.get('dense.faiss', 0):.0f} MiB; with the "
               f"query encoder and the tokenizer's dictionary loaded: {top.get('rss_retrieval_mb', 0):.0f} MiB; the "
               f"rest ({top['rss_after_mb'] - top.get('rss_retrieval_mb', 0):.0f} MiB) grew during "
               f"{top['diagnose_ms']['n']} diagnoses: what the matcher and the store keep of the documents they read")
        rows.append((f"{size} chunks in ≤ 1 GB RSS", f"{top['rss_after_mb']:.0f} MiB after the diagnose run",
                     top["rss_after_mb"] <= GB_MIB, why))
    recalls = [(row["target"], row["recall10"]) for row in scale.values() if "recall10" in row]
    if recalls:
        worst = min(x for _, x in recalls)
        rows.append(("FAISS recall@10 ≥ 0.95 at every size", ", ".join(f"{_num(n)}: {x:.3f}" for n, x in recalls),
                     worst >= 0.95, ""))
    ing = r.get("ingest", {})
    real = ing.get("real")
    if real:
        own = real["seconds"] - real["embedded"] / real["raw_chunks_per_s"]
        why = (f"{own:.0f} s of the {real['seconds']:.0f} s went to ingest's own work (model loading, reading, "
               f"extraction, chunking, tokenizing, indexing)")
        rows.append(("ingest ≥ 80% of the raw encode rate", f"{real['ratio'] * 100:.0f}% "
                     f"({real['chunks_per_s']:.1f} vs {real['raw_chunks_per_s']:.1f} chunks/s, "
                     f"{real['documents']} docs)",
                     real["ratio"] >= 0.8, why))
        rows.append(("ingest ≥ 50 chunks/s on CPU", f"{real['chunks_per_s']:.1f} chunks/s end to end, raw encode "
                     f"{real['raw_chunks_per_s']:.1f} ({real.get('encoder', 'torch')}; 1-minute load average "
                     f"{ing.get('load', '?')} at the end of the section)",
                     real["chunks_per_s"] >= 50,
                     "" if real["chunks_per_s"] >= 50 else "the encoder is the bound: ingest runs at its raw rate; "
                     "other work shared the 2 cores (load average above)"))
    free = [x for x in ing.get("model_free", []) if "unchanged" in x]
    if free:
        big = max(free, key=lambda x: x["documents"])
        u = big["unchanged"]
        rows.append(("unchanged re-ingest ≥ 2000 documents/s",
                     f"{u['docs_per_s']:.0f} docs/s at {_num(u['documents'])} docs",
                     u["docs_per_s"] >= 2000, f"{u['documents']} documents in {u['seconds']} s, none re-embedded"
                     if u["embedded"] == 0 else f"{u['embedded']} chunks were re-embedded"))
    svc = r.get("service", {})
    if "p99_ms" in svc:
        ok = svc["p99_ms"] <= 300 and svc["errors"] == 0
        alone = min(scale.values(), key=lambda row: row["target"]) if scale else {}
        why = (f"p50 {svc['p50_ms']:.0f} ms at {svc['throughput_rps']:.1f} requests/s; one warm diagnose alone takes "
               f"{_ms(alone.get('diagnose_ms'))} ms p50 (section 3, {_num(alone.get('target', 0))} chunks), so "
               f"{svc['clients']} clients on {r['machine']['cores']} cores wait for each other")
        rows.append((f"service p99 ≤ 300 ms at {svc['clients']} clients, 0 errors",
                     f"p99 {svc['p99_ms']:.0f} ms, {svc['errors']} errors", ok, "" if ok else why))
        if "ratio_vs_one_client" in svc:
            ratio = svc["ratio_vs_one_client"]
            rows.append((f"service throughput at {svc['clients']} clients ≥ 1.8x one client's",
                         f"{ratio}x ({svc['throughput_rps']} vs {svc['one_client']['throughput_rps']} req/s)",
                         ratio >= 1.8, "" if ratio >= 1.8 else f"{r['machine']['cores']} cores shared with other work"))
    else:
        rows.append(("service p99 ≤ 300 ms at 8 clients, 0 errors", "–", None,
                     svc.get("skipped") or svc.get("error") or "the service section did not run"))
    rows.append(_gpu_target())
    cold = r.get("cold", {})
    if "median_s" in cold:
        zh = cold.get("zh", {}).get("median_s")
        worst = max(cold["median_s"], zh or 0.0)
        ok = worst <= COLD_TARGET_S
        measured = f"{cold['median_s']:.2f} s median of {len(cold['runs_s'])}"
        if zh is not None:
            measured += f" (a Chinese report: {zh:.2f} s)"
        rows.append((f"cold `diagnose` ≤ {COLD_TARGET_S} s", measured,
                     ok, "" if ok else "imports, the tokenizer's pieces, the ONNX Runtime session and two query "
                                       "encodings (section 5)"))
    else:
        rows.append((f"cold `diagnose` ≤ {COLD_TARGET_S} s", "–", None,
                     cold.get("error", "the cold-start section did not run")))
    return rows


def _gpu_target(folder: Path = GPU_RUNS) -> tuple[str, str, bool | None, str]:
    """The GPU ingest target, from the newest `*-encode-h100.json` that bench.gpu_encode wrote on a lent H100."""
    name = f"ingest on one H100 ≥ {GPU_TARGET:,} chunks/s"
    runs = sorted(folder.glob("*-encode-h100.json"))
    if not runs:
        return name, "–", None, "no H100 run recorded (python -m bench.gpu_encode run, docs/repro-gpu.md)"
    g = json.loads(runs[-1].read_text())
    best = g["best_chunks_per_s"]
    return (name, f"{best:,.0f} chunks/s, {g['dtype']}, {g['chunks']:,} chunks ({runs[-1].name[:10]}, by hand; "
                  f"section 7)", best >= GPU_TARGET, "" if best >= GPU_TARGET else "the tokenizer bounds the rate")


# A section measured by hand (a GPU machine, a long import) carries this line; `render` keeps such sections of the
# file it replaces, after the ones it writes.
BY_HAND = "<!-- measured by hand: make bench keeps this section -->"


def _sections(text: str) -> list[str]:
    """The `## ` sections of a RESULTS.md, each as it was."""
    return [part.rstrip() for part in re.split(r"(?m)^(?=## )", text)[1:]]


def hand_sections(previous: str) -> list[str]:
    """The `## ` sections of an earlier RESULTS.md that carry BY_HAND, as they were."""
    return [part for part in _sections(previous) if BY_HAND in part]


# Which rows of the targets table and which `## ` section each part of the benchmark writes, so that a run of some
# parts (`--only`) keeps what the earlier file says about the others instead of "not run".
PARTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "quality": ("## 1.", ("leave-one-set-out", "wrong answers on positives", "answers at confidence")),
    "ingest": ("## 2.", ("ingest ≥", "unchanged re-ingest")),
    "scale": ("## 3.", ("warm diagnose", "FAISS recall", "chunks in ≤ 1 GB", "the largest size")),
    "service": ("## 4.", ("service",)),
    "cold": ("## 5.", ("cold `diagnose`",)),
}


def _section_starting(sections: list[str], head: str) -> str:
    """The section whose heading starts with `head` ("" when there is none)."""
    return next((part for part in sections if part.startswith(head)), "")


def render(r: dict, previous: str = "") -> str:
    m = r["machine"]
    v = m["versions"]
    earlier = _sections(previous)
    unrun = [name for name in PARTS if name not in r and _section_starting(earlier, PARTS[name][0])]
    out = [
        "# Benchmark results",
        "",
        f"Written by `{r['command']}` on {m['date']}, in {r['minutes']:.1f} minutes. "
        f"Re-run it to refresh this file; `bench/README.md` says what each section measures."
        + (f" Not run by this command, so kept as the earlier file had them (with their rows of the targets table): "
           f"{', '.join(PARTS[name][0].removeprefix('## ') + ' ' + name for name in unrun)}." if unrun else ""),
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, {m['os']}; Python {m['python']}, "
        + ", ".join(f"{k} {val}" for k, val in v.items()) + ". "
        f"Commit {m['commit'] or '?'}{' with uncommitted changes' if m['uncommitted'] else ''}. "
        f"Load average (1 min) at start {m['load_start']}, at end {r.get('load_end', '?')}: other work shared "
        "these cores during the run, so times are slower than on an idle machine.",
        "",
        "## Targets",
        "",
        "| target | measured | | why (when not met) |",
        "| --- | --- | --- | --- |",
    ]
    earlier_rows = [line for line in _section_starting(earlier, "## Targets").splitlines()
                    if line.startswith("| ") and not line.startswith(("| target", "| ---"))]
    # Rows by part, in PARTS' order (rows of no part last); a part not run keeps the earlier file's rows, whether or
    # not `targets` writes a placeholder for it.
    by_part: dict[str | None, list[str]] = {name: [] for name in [*PARTS, None]}
    for name, measured, ok, why in targets(r):
        part = next((p for p, (_, rows) in PARTS.items() if any(x in name for x in rows)), None)
        if part not in unrun:
            by_part[part].append(f"| {name} | {measured} | {_verdict(ok)} | {why if ok is not True else ''} |")
    for part in unrun:
        by_part[part] = [row for row in earlier_rows if any(x in row.split(" | ")[0] for x in PARTS[part][1])]
    out += [row for rows in by_part.values() for row in rows]
    sections = {"quality": _quality, "ingest": _ingest, "scale": _scale, "service": _service, "cold": _cold}
    for name, write in sections.items():
        out += ["", *(_section_starting(earlier, PARTS[name][0]).splitlines() if name in unrun
                      else write(r.get(name, {})))]
    for kept in hand_sections(previous):
        out += ["", kept]
    if r.get("errors"):
        out += ["", "## Sections that failed", ""] + [f"- {name}: {msg}" for name, msg in r["errors"].items()]
    return "\n".join(out).rstrip() + "\n"


def _section_head(title: str, d: dict) -> list[str]:
    head = [f"## {title}", ""]
    if "seconds_total" in d:
        head.append(f"_{d['seconds_total']:.0f} s; load average {d.get('load', '?')}._")
        head.append("")
    return head


def _quality(q: dict) -> list[str]:
    out = _section_head("1. Quality: `triage eval` on the dev set, and leave one set out", q)
    if "figures" not in q:
        return out + [q.get("skipped") or q.get("error") or "Not run."]
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(q["kinds"].items()))
    out += [f"{q['queries']} queries ({kinds}) against `{q['set']}`. Baselines rank whole documents and are scored "
            "at the threshold that suits them best on this very set (an upper bound for them).", "",
            "| system | top-1 on positives | wrong answers on positives | correct abstentions | overall | recall@3 |",
            "| --- | --- | --- | --- | --- | --- |"]
    for f in q["figures"]:
        out.append(f"| {f['name']} | {f['top1_positive']:.2f} | {f['wrong_on_positive']} | {f['abstention']:.2f} | "
                   f"{f['overall']:.2f} | {f['recall_at_3']:.2f} |")
    out.append("")
    out.append("The shipped decision was trained on the dev set among others, so the table above is a training figure.")
    return out + ["", *_cv(q.get("cv", {}))]


def _cv(cv: dict) -> list[str]:
    out = ["### Leave one set out: `triage eval --cv` over every labelled set", ""]
    if "pooled" not in cv:
        return out + [cv.get("skipped") or cv.get("error") or "Not run."]
    base = cv.get("baselines", {}).get("bm25_best_threshold_per_set", {})
    out += ["Each set is answered by a decision trained on all the other sets (its threshold and calibration chosen "
            "on those too). `wrong` is the share of positives answered with another entry; helpful@3 counts the "
            "right entry among the first three shown, related ones included. BM25 is whole-document BM25 at the "
            f"threshold that suits it best on that very set (an upper bound for it). {cv.get('seconds', '?')} s.", "",
            "| set | n | accuracy | top-1 (pos) | wrong (pos) | abstention | helpful@3 | BM25 best |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    rows = list(cv["sets"].items()) + [("**pooled**", cv["pooled"])]
    for name, f in rows:
        b = base.get(name, {}).get("accuracy", cv.get("baselines", {}).get("bm25_pooled_accuracy"))
        out.append(f"| {name} | {f['n']} | {f['accuracy']:.3f} | {f['top1']:.3f} | {f['wrong_on_positives']:.3f} | "
                   f"{f['abstention']:.3f} | {f['helpful_at_3']:.3f} | {'-' if b is None else f'{b:.3f}'} |")
    out += ["", "Calibration (answers binned by confidence):", "", "| confidence | answers | right | share |",
            "| --- | --- | --- | --- |"]
    for c in cv["calibration"]:
        share = f"{c['right'] / c['n']:.2f}" if c["n"] else "-"
        out.append(f"| {c['lo']:.2f}-{c['hi']:.2f} | {c['n']} | {c['right']} | {share} |")
    return out


def _ingest(ing: dict) -> list[str]:
    out = _section_head("2. Ingest", ing)
    real = ing.get("real")
    if not real:
        return out + [ing.get("error", "Not run.")]
    out += [
        f"Generated postmortems (`bench/generate.py`: zh and en, Markdown, text and HTML, a third with page noise), "
        f"{real['mean_chunk_chars']} characters a chunk on average.", "",
        f"**With the real embedding model** (multilingual-e5-small, encoder {real.get('encoder', 'torch')}: "
        f"{'int8 in ONNX Runtime, one text per pass, a pass per core' if real.get('encoder') == 'onnx-int8' else 'float32, sentence-transformers'} on CPU):", "",
        "| documents | chunks | seconds | docs/s | chunks/s | raw encode chunks/s | ingest / raw |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| {real['documents']} | {real['chunks']} | {real['seconds']} | {real['docs_per_s']} | "
        f"{real['chunks_per_s']} | "
        f"{real['raw_chunks_per_s']} (sample of {real['raw_sample']}) | {real['ratio'] * 100:.0f}% |", "",
        f"{real['documents']} documents are embedded for real: as many as fit a {real['embed_budget_s']:.0f} s "
        f"budget at the pilot rate of {real['pilot_chunks_per_s']} chunks/s, at most {real.get('max_docs', '?')}, "
        f"and at least {real.get('min_docs', 1)} so that the 1k-chunk KB below has real embeddings. "
        f"{_too_long(real, [x['documents'] for x in ing.get('model_free', [])])}The raw rate is the same model "
        "call on a random sample of the same chunk texts, with the model loaded for both.", "",
        "**Model time taken out** (the embedding step answered by a stand-in whose time is "
        "subtracted; *projected* adds the real model's time for the same chunks at the raw rate above):", "",
        "| documents | chunks | ingest's own seconds | own docs/s | own chunks/s | projected docs/s | "
        "projected ingest / raw |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for x in ing.get("model_free", []):
        out.append(f"| {x['documents']} | {x['chunks']} | {x['seconds_without_model']} | "
                   f"{x['docs_per_s_without_model']} | {x['chunks_per_s_without_model']} | "
                   f"{x['projected_docs_per_s']} | {x['projected_ratio'] * 100:.0f}% |")
    cmp = real.get("compare") or {}
    if "int8_vs_fp32" in cmp:
        out += ["", f"**int8 vs float32**, measured in one run on the same {cmp['texts']} chunk texts, alternating "
                f"{cmp['rounds']} rounds: float32 (torch) {cmp['fp32_chunks_per_s']} chunks/s, int8 (ONNX Runtime) "
                f"{cmp['int8_chunks_per_s']} chunks/s: **{cmp['int8_vs_fp32']}x**."]
    out += ["", "**Unchanged re-ingest** (same files again: nothing re-embedded, no new generation written):", "",
            "| documents | seconds | docs/s | chunks re-embedded |", "| --- | --- | --- | --- |"]
    for x in [real, *ing.get("model_free", [])]:
        u = x["unchanged"]
        out.append(f"| {u['documents']} | {u['seconds']} | {u['docs_per_s']} | {u['embedded']} |")
    return out


def _too_long(real: dict, sizes: list[int]) -> str:
    """The sentence saying which corpus sizes the real model could not embed within the benchmark's time."""
    per_doc = real["chunks"] / real["documents"]
    late = [(n, n * per_doc / real["raw_chunks_per_s"] / 60) for n in sizes if n > real["documents"]]
    if not late:
        return ""
    spans = " and ".join(f"~{minutes:.0f} minutes for {_num(n)}" for n, minutes in late)
    return (f"At {real['raw_chunks_per_s']:.1f} chunks/s and {per_doc:.1f} chunks a document, embedding alone would "
            f"take {spans} documents, so those sizes run with the model time taken out (below). ")


def _scale(s: dict) -> list[str]:
    out = _section_head("3. Query latency, memory, disk and recall by KB size", s)
    rows = s.get("rows")
    if not rows:
        return out + [s.get("error", "Not run.")]
    out += [
        "Each size is written with the store's own functions (`bench/kbwriter.py`) from ingested generated "
        "postmortems (real extraction, chunks and BM25 tokens; beyond the corpus size, documents repeat under new "
        "ids), and measured in a fresh process (`bench/worker.py`). *real* = the model's embeddings; *generated* = "
        "vectors derived from real ones (`bench/vectors.py`) because the machine cannot embed that many chunks in "
        "the time; the FAISS and BM25 structures are real either way. Diagnose latency is warm (after "
        f"{s.get('warmup', 3)} reports), cycling through the dev-set queries and bundled examples; the component "
        "columns time the query encoder and the retrievers alone (256 chunks each). RSS is after the diagnose run "
        "(peak before the recall check). Recall@10 compares the index's top 10 with exhaustive search over "
        f"{rows[0].get('recall_queries', '?')} query vectors (real query embeddings plus generated ones).", "",
        "| chunks | vectors | index | open s | diagnose p50 / p99 ms (n) | query encode p50 ms | BM25 p50 / p99 ms | "
        "dense p50 / p99 ms | RSS MiB (peak) | disk MiB | recall@10 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        b = row["build"]
        idx = row.get("index", b.get("index", {}))
        kind = idx.get("kind", "?") + (f" nlist {idx['nlist']} nprobe {idx['nprobe']}" if "nlist" in idx else "")
        d = row.get("diagnose_ms")
        diag = f"{d['p50']:.1f} / {d['p99']:.1f} ({d['n']})" if d else row.get("stopped", "–")
        if "rss_after_mb" in row:
            rss = f"{row['rss_after_mb']:.0f} ({row.get('peak_before_recall_mb', row['peak_rss_mb']):.0f})"
        else:
            rss = f"{row['rss_open_mb']:.0f} after open" if "rss_open_mb" in row else "–"
        out.append(f"| {b['chunks']:,} | {b['vectors']} | {kind} | {row.get('open_s', '–')} | {diag} | "
                   f"{_ms(row.get('embed_ms'))} | {_ms(row.get('bm25_ms'))} / {_ms(row.get('bm25_ms'), 'p99')} | "
                   f"{_ms(row.get('dense_ms'))} / {_ms(row.get('dense_ms'), 'p99')} | {rss} | "
                   f"{row.get('disk_mb', '–')} | {row.get('recall10', '–')} |")
    stopped = [f"- {_num(row['target'])}: {row['stopped']}" for row in rows if row.get("stopped")]
    if stopped:
        out += ["", "Stopped runs:", *stopped]
    return out


def _service(svc: dict) -> list[str]:
    out = _section_head("4. Service under load", svc)
    if "p99_ms" not in svc:
        return out + [f"Not measured: {svc.get('skipped') or svc.get('error') or 'not run'}."]
    return out + [
        f"`triage serve` on 127.0.0.1 over `{svc['kb']}` (the real-embedding KB above); {svc['clients']} concurrent "
        f"clients in a second process (`bench/load.py`), {svc['requests']} POST /v1/diagnose requests.", "",
        f"Diagnosis workers: {svc.get('workers', '-')}. One client alone first, then {svc['clients']}, on the same "
        f"server in one run.", "",
        "| clients | throughput req/s | p50 ms | p99 ms | errors | server ready after s |",
        "| --- | --- | --- | --- | --- | --- |",
        *([f"| 1 | {one['throughput_rps']} | {one['p50_ms']} | {one['p99_ms']} | {one['errors']} | |"]
          if (one := svc.get("one_client")) else []),
        f"| {svc['clients']} | {svc['throughput_rps']} | {svc['p50_ms']} | {svc['p99_ms']} | {svc['errors']} | "
        f"{svc['ready_s']} |",
        *(["", f"Throughput at {svc['clients']} clients / 1 client: **{svc['ratio_vs_one_client']}x**."]
          if "ratio_vs_one_client" in svc else []),
        *(["", f"Errors seen: {'; '.join(svc['error_examples'])}"] if svc["errors"] else []),
    ]


def _cold(c: dict) -> list[str]:
    out = _section_head("5. Cold start", c)
    if "median_s" not in c:
        return out + [f"Not measured: {c.get('error', 'not run')}."]
    return out + [
        f"`diagnose {c['example']}` against the {c['kb']}, each run a fresh process (after one untimed run that "
        f"builds the KB in the cache and warms the OS file cache): {', '.join(f'{t} s' for t in c['runs_s'])}; "
        f"**median {c['median_s']} s**."] + ([
        "", f"The same for a Chinese report, `diagnose {c['zh']['example']}`: "
            f"{', '.join(f'{t} s' for t in c['zh']['runs_s'])}; **median {c['zh']['median_s']} s**."]
        if "median_s" in c.get("zh", {}) else [])
