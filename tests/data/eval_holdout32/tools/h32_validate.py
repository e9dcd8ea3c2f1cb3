import json,os,re,collections
base="/work/staging/eval_holdout32/"
used=set(l.strip().lower() for l in open("/work/staging/USED_THREADS.txt") if l.strip())
L=[json.loads(l) for l in open(base+"labels.jsonl")]
errs=[]
docs=sorted(os.listdir(base+"corpus"))
exp=collections.Counter()
for r in L:
    if not os.path.exists(base+r["query"]): errs.append("missing "+r["query"])
    if not os.path.basename(r["query"]).startswith("h32_"): errs.append("prefix "+r["query"])
    if r["kind"]=="positive":
        if not r["expected"] or not os.path.exists(base+r["expected"]): errs.append("bad expected "+r["query"])
        else: exp[r["expected"]]+=1
    else:
        if r["expected"] is not None: errs.append("non-null expected "+r["query"])
    if r["source"].lower() in used: errs.append("USED source "+r["source"])
    t=open(base+r["query"]).read()
    own,num=r["source"].split("#")
    owner,repo=own.split("/")
    if own.lower() in t.lower(): errs.append("own owner/repo in "+r["query"])
    if re.search(r"github\.com",t): errs.append("github link in "+r["query"])
    if re.search(r"#\s*%s\b"%num,t) or re.search(r"(issues|pull)/%s\b"%num,t): errs.append("own number in "+r["query"])
    if owner.lower() in t.lower() and len(owner)>3: errs.append("WARN owner name appears in %s (%s)"%(r["query"],owner))
# doc checks
dist=[d for d in docs if "corpus/"+d not in exp]
for d in docs:
    if not d.startswith("h32_"): errs.append("doc prefix "+d)
# no doc cites a query thread
srcs=[r["source"] for r in L]
for d in docs:
    t=open(base+"corpus/"+d).read()
    for s in srcs:
        own,num=s.split("#")
        o,rp=own.split("/")
        if re.search(re.escape(own)+r"\s*(issue|PR|pull|#)?\s*%s\b"%num,t,re.I) or re.search(re.escape(rp)+r"\s+(issue|PR)\s+%s\b"%num,t,re.I):
            errs.append("doc %s cites query thread %s"%(d,s))
print("queries",len(L),collections.Counter(r["kind"] for r in L))
print("docs",len(docs),"queried",len(exp),"distractors",len(dist),dist)
for k,v in sorted(exp.items()): print(v,k)
print("\n".join(errs) if errs else "NO ERRORS")
