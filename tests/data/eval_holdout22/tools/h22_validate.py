# Validates the eval_holdout22 set layout and labels.
import json, os, re, sys
BASE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
P = "h22"
errs = []
labels = [json.loads(l) for l in open(os.path.join(BASE, "labels.jsonl"), encoding="utf-8") if l.strip()]
docs = sorted(os.listdir(os.path.join(BASE, "corpus")))
qfiles = sorted(os.listdir(os.path.join(BASE, "queries")))
for d in docs:
    if not d.startswith(P): errs.append("doc name without prefix: " + d)
for q in qfiles:
    if not q.startswith(P): errs.append("query name without prefix: " + q)
seen = set()
expected_by = {}
for L in labels:
    for k in ("query", "expected", "kind", "source", "note"):
        if k not in L: errs.append("missing field %s in %s" % (k, L))
    qp = os.path.join(BASE, L["query"])
    if not os.path.isfile(qp): errs.append("missing query file " + L["query"])
    if L["query"] in seen: errs.append("duplicate query " + L["query"])
    seen.add(L["query"])
    kind = L["kind"]
    if kind not in ("positive", "near_miss", "negative"): errs.append("bad kind " + kind)
    if kind == "positive":
        if not L["expected"] or not os.path.isfile(os.path.join(BASE, L["expected"])):
            errs.append("positive without existing expected: " + L["query"])
        else:
            expected_by.setdefault(L["expected"], []).append(L["query"])
    else:
        if L["expected"] is not None: errs.append("non-positive with expected: " + L["query"])
    text = open(qp, encoding="utf-8").read()
    src = L["source"]
    m = re.match(r"^([^/]+)/([^#]+)#(\d+)$", src)
    if not m: errs.append("bad source " + src); continue
    owner, repo, num = m.groups()
    low = text.lower()
    if (owner + "/" + repo).lower() in low: errs.append("query contains its owner/repo: " + L["query"])
    if "github.com" in low: errs.append("query contains github.com: " + L["query"])
    if re.search(r"#%s\b" % num, text) or re.search(r"/(issues|pull)/%s\b" % num, text):
        errs.append("query contains its own number: " + L["query"])
    if owner.lower() in low and owner.lower() not in ("ollama", "vllm-project"):
        print("note: owner string '%s' appears in %s (check it is an ordinary name)" % (owner, L["query"]))
    if re.search(r"@[A-Za-z0-9][A-Za-z0-9-]{2,}", text):
        print("note: possible @-mention in %s" % L["query"])
if set(qfiles) != {os.path.basename(l["query"]) for l in labels}: errs.append("queries/ and labels.jsonl differ")
# non-distractor docs must be expected by >= 1 positive; distractors are the docs nobody expects
distractors = [d for d in docs if "corpus/" + d not in expected_by]
# documents must not cite the thread of any query
sources = {l["source"] for l in labels}
for d in docs:
    body = open(os.path.join(BASE, "corpus", d), encoding="utf-8").read()
    for s in sources:
        o, rest = s.split("/", 1); r, n = rest.split("#")
        if re.search(re.escape(o + "/" + r) + r"\s*(PR\s*)?#" + n + r"\b", body):
            errs.append("doc %s cites query thread %s" % (d, s))
kinds = {}
for L in labels: kinds[L["kind"]] = kinds.get(L["kind"], 0) + 1
print("docs:", len(docs), "queries:", len(labels), kinds)
print("positives per doc:")
for d in docs:
    print("  %-55s %d" % (d, len(expected_by.get("corpus/" + d, []))))
print("distractors (no positive):", distractors)
if errs:
    print("ERRORS:"); [print("  " + e) for e in errs]; sys.exit(1)
print("OK")
