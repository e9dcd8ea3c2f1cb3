"""Validate the eval_holdout28 set (run: nice -n 19 python3 h28_validate.py)."""
import json, os, re, sys
root = os.path.dirname(os.path.abspath(__file__))
rows = [json.loads(l) for l in open(os.path.join(root, "labels.jsonl"), encoding="utf-8")]
errs = []
corpus = sorted(os.listdir(os.path.join(root, "corpus")))
queries = sorted(os.listdir(os.path.join(root, "queries")))
for n in corpus + queries:
    if not n.startswith("h28_"): errs.append(f"name without prefix: {n}")
if len(rows) != len(queries): errs.append(f"{len(rows)} labels vs {len(queries)} query files")
seen = set()
expected_docs = set()
for r in rows:
    q = r["query"]
    if q in seen: errs.append(f"duplicate label {q}")
    seen.add(q)
    if not os.path.exists(os.path.join(root, q)): errs.append(f"missing query file {q}")
    k, e = r["kind"], r["expected"]
    if k not in ("positive", "near_miss", "negative"): errs.append(f"bad kind {q}")
    if k == "positive":
        if not e: errs.append(f"positive without expected {q}")
        elif not os.path.exists(os.path.join(root, e)): errs.append(f"missing doc {e}")
        else: expected_docs.add(os.path.basename(e))
    elif e is not None: errs.append(f"{k} with expected {q}")
    text = open(os.path.join(root, q), encoding="utf-8").read()
    owner_repo, num = r["source"].split("#")
    owner, repo = owner_repo.split("/")
    low = text.lower()
    if owner_repo.lower() in low: errs.append(f"{q}: contains own owner/repo")
    if "github.com" in low: errs.append(f"{q}: github.com link")
    if re.search(r"#\s*%s\b" % num, text) or re.search(r"\b(issue|pr|pull)\s*%s\b" % num, low):
        errs.append(f"{q}: contains own number {num}")
    if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(repo.lower()), low):
        print(f"note: {q} mentions repo name '{repo}' (check it is only a package/log name)")
    if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(owner.lower()), low) and owner.lower() != repo.lower():
        print(f"note: {q} mentions owner '{owner}'")
# distractors = docs not expected by any positive; docs must not cite a query thread
sources = {r["source"] for r in rows}
for d in corpus:
    text = open(os.path.join(root, "corpus", d), encoding="utf-8").read()
    for s in sources:
        o_r, n = s.split("#")
        if re.search(re.escape(o_r) + r"\s*(#|PR #|PR#|pull request #)\s*" + n + r"\b", text):
            errs.append(f"{d} cites query thread {s}")
distractors = [d for d in corpus if d not in expected_docs]
kinds = {}
for r in rows: kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
print("docs:", len(corpus), "expected by positives:", len(expected_docs), "distractors:", len(distractors))
for d in distractors: print("  distractor:", d)
print("queries by kind:", kinds)
if errs:
    print("ERRORS:"); [print(" ", e) for e in errs]; sys.exit(1)
print("OK")
