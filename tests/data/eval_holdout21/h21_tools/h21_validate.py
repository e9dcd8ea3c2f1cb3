import json, os, re, sys, glob
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
rows = [json.loads(l) for l in open("labels.jsonl", encoding="utf-8")]
err = []; warn = []
docs = sorted(glob.glob("corpus/*.md"))
for d in docs + sorted(glob.glob("queries/*")):
    if not os.path.basename(d).startswith("h21_"): err.append("prefix: " + d)
expected_by = {}
for r in rows:
    if not os.path.exists(r["query"]): err.append("missing query " + r["query"])
    k = r["kind"]
    if k not in ("positive", "near_miss", "negative"): err.append("bad kind " + str(r))
    if k == "positive":
        if not r["expected"] or not os.path.exists(r["expected"]): err.append("bad expected " + r["query"])
        else: expected_by.setdefault(r["expected"], []).append(r["query"])
    elif r["expected"] is not None: err.append("expected must be null " + r["query"])
    text = open(r["query"], encoding="utf-8").read()
    owner_repo, num = r["source"].split("#")
    owner, repo = owner_repo.split("/")
    low = text.lower()
    if owner_repo.lower() in low: err.append(f"{r['query']} contains {owner_repo}")
    if "github.com" in low: err.append(f"{r['query']} contains github.com")
    if re.search(r"#\s*%s\b" % num, text) or re.search(r"issues/%s\b" % num, text): err.append(f"{r['query']} contains its number {num}")
    if re.search(r"\b%s\b" % re.escape(repo.lower()), low): warn.append(f"{r['query']} mentions repo name '{repo}' (log/package text)")
    if re.search(r"(^|\s)@[A-Za-z0-9-]+", text): warn.append(f"{r['query']} has an @-mention-like token")
# docs must not cite query threads
alltext = {d: open(d, encoding="utf-8").read() for d in docs}
for r in rows:
    for d, t in alltext.items():
        if re.search(re.escape(r["source"]) + r"(?!\d)", t): err.append(f"{d} cites query thread {r['source']}")
distractors = [d for d in docs if d not in expected_by]
cjk = lambda s: bool(re.search(r"[\u4e00-\u9fff]", s))
print("docs:", len(docs), " zh:", sum(d.endswith("_zh.md") for d in docs), " en:", sum(d.endswith("_en.md") for d in docs))
print("queries:", len(rows), {k: sum(r["kind"] == k for r in rows) for k in ("positive", "near_miss", "negative")})
print("zh queries:", sum(cjk(open(r["query"], encoding="utf-8").read()) for r in rows))
print("distractors (expected by no query):", len(distractors))
for d in distractors: print("   ", d)
print("positives per document:")
for d in docs:
    if d in expected_by: print("   ", len(expected_by[d]), d)
for w in warn: print("WARN", w)
for e in err: print("ERROR", e)
print("OK" if not err else f"{len(err)} errors")
