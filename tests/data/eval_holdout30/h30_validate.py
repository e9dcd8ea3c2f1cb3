import json, os, re, sys
root = os.path.dirname(os.path.abspath(__file__))
rows = [json.loads(l) for l in open(os.path.join(root, "labels.jsonl"), encoding="utf-8")]
errs = []
queried = set()
for r in rows:
    q = os.path.join(root, r["query"])
    if not os.path.isfile(q): errs.append("missing query " + r["query"])
    if not os.path.basename(r["query"]).startswith("h30_"): errs.append("prefix " + r["query"])
    if r["kind"] == "positive":
        if not r["expected"] or not os.path.isfile(os.path.join(root, r["expected"])): errs.append("bad expected " + r["query"])
        else: queried.add(r["expected"])
    elif r["kind"] in ("near_miss", "negative"):
        if r["expected"] is not None: errs.append("expected must be null " + r["query"])
    else: errs.append("kind " + r["query"])
    text = open(q, encoding="utf-8").read()
    owner, rest = r["source"].split("/", 1)
    repo, num = rest.split("#")
    if "github.com" in text.lower(): errs.append("github link in " + r["query"])
    if re.search(re.escape(owner + "/" + repo), text, re.I): errs.append("owner/repo in " + r["query"])
    if re.search(r"(#|issues/|pull/)" + num + r"\b", text): errs.append("own number in " + r["query"])
docs = sorted("corpus/" + f for f in os.listdir(os.path.join(root, "corpus")))
for d in docs:
    if not os.path.basename(d).startswith("h30_"): errs.append("doc prefix " + d)
distractors = [d for d in docs if d not in queried]
srcs = {r["source"] for r in rows}
for d in docs:
    body = open(os.path.join(root, d), encoding="utf-8").read()
    for s in srcs:
        if s in body: errs.append(f"doc {d} cites query thread {s}")
kinds = {}
for r in rows: kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
print("queries", len(rows), kinds)
print("docs", len(docs), "queried", len(queried), "distractors", len(distractors))
for d in distractors: print("  distractor", d)
if errs:
    print("ERRORS"); [print(" ", e) for e in errs]; sys.exit(1)
print("OK")
