import json, os, re, sys
os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/..")
PFX = "h23"
errs, warns = [], []
labels = [json.loads(l) for l in open("labels.jsonl", encoding="utf-8")]
docs = sorted(os.listdir("corpus"))
for d in docs:
    if not d.startswith(PFX): errs.append(f"corpus name without prefix: {d}")
for q in os.listdir("queries"):
    if not q.startswith(PFX): errs.append(f"query name without prefix: {q}")
# package names that legitimately appear in logs even though they equal a repo name
PKG_OK = {"transformers", "peft", "accelerate", "deepspeed", "pytorch", "nccl", "colossalai", "glm", "llamafactory"}
used = {}
corpus_text = {d: open(os.path.join("corpus", d), encoding="utf-8").read() for d in docs}
for L in labels:
    q, exp, kind, src = L["query"], L["expected"], L["kind"], L["source"]
    if not os.path.exists(q): errs.append(f"missing query {q}")
    if kind not in ("positive", "near_miss", "negative"): errs.append(f"bad kind {q}")
    if (exp is None) != (kind in ("near_miss", "negative")): errs.append(f"expected/kind mismatch {q}")
    if exp is not None:
        if not os.path.exists(exp): errs.append(f"missing doc {exp}")
        used[exp] = used.get(exp, 0) + 1
    text = open(q, encoding="utf-8").read()
    owner_repo, num = src.split("#")
    owner, repo = owner_repo.split("/")
    low = text.lower()
    if owner_repo.lower() in low: errs.append(f"{q}: contains {owner_repo}")
    if "github.com" in low: errs.append(f"{q}: github link")
    if "#" + num in text or (len(num) >= 3 and re.search(r"(?<![\w.])%s(?![\w.])" % re.escape(num), text)):
        errs.append(f"{q}: contains own number {num}")
    if owner.lower() in low and len(owner) > 3:
        (warns if owner.lower() in PKG_OK else errs).append(f"{q}: contains owner {owner}")
    if repo.lower() in low:
        (warns if repo.lower() in PKG_OK else errs).append(f"{q}: contains repo name '{repo}'")
    # no document may cite the thread of any query
    for d, t in corpus_text.items():
        if re.search(re.escape(owner_repo) + r"(#|\s*PR\s*#|\s*issue\s*#)" + re.escape(num) + r"(?!\d)", t, re.I):
            errs.append(f"doc {d} cites query thread {src}")
for d in docs:
    p = "corpus/" + d
    if p not in used: warns.append(f"distractor (no positive): {d}")
kinds = {}
for L in labels: kinds[L["kind"]] = kinds.get(L["kind"], 0) + 1
print("queries:", len(labels), kinds)
print("docs:", len(docs), "queried:", len(used), "distractors:", len(docs) - len(used))
for k, v in sorted(used.items()): print(f"  {v}  {k}")
for w in warns: print("WARN", w)
for e in errs: print("ERR ", e)
sys.exit(1 if errs else 0)
