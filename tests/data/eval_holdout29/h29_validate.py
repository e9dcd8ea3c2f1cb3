import json, os, re, glob, sys
base=os.path.dirname(os.path.abspath(__file__)); os.chdir(base)
used=set(l.strip() for l in open("/work/staging/USED_THREADS.txt") if l.strip())
labels=[json.loads(l) for l in open("labels.jsonl")]
errs=[]
docs=sorted(glob.glob("corpus/*.md"))
distractors={"corpus/h29_trainer_resume_sharded_checkpoint_en.md","corpus/h29_stale_safetensors_index_shard_count_zh.md","corpus/h29_safetensors_shared_tensors_tied_weights_en.md","corpus/h29_internlm_convert2hf_tp_shards_zh.md",
 "corpus/h29_fsdp_full_optim_state_gather_timeout_en.md","corpus/h29_torchtune_merged_ckpt_lora_class_en.md",
 "corpus/h29_set_peft_model_state_dict_returns_none_zh.md","corpus/h29_lora_merge_4bit_rounding_zh.md",
 "corpus/h29_ds_universal_ckpt_stage3_rank_files_en.md","corpus/h29_transformers_gguf_loader_arch_unsupported_zh.md"}
for p in glob.glob("corpus/*")+glob.glob("queries/*"):
    if not os.path.basename(p).startswith("h29_"): errs.append("prefix "+p)
qs=sorted(glob.glob("queries/*.txt"))
if len(qs)!=len(labels): errs.append("count mismatch")
srcs=set()
for r in labels:
    if not os.path.exists(r["query"]): errs.append("missing "+r["query"])
    if r["kind"] in("near_miss","negative"):
        if r["expected"] is not None: errs.append("expected not null "+r["query"])
    elif r["kind"]=="positive":
        if not r["expected"] or not os.path.exists(r["expected"]): errs.append("bad expected "+r["query"])
    else: errs.append("kind "+r["query"])
    s=r["source"]; srcs.add(s)
    if s in used: errs.append("USED source "+s)
    owner_repo,num=s.split("#"); owner,repo=owner_repo.split("/")
    t=open(r["query"],encoding="utf-8").read()
    tl=t.lower()
    if owner_repo.lower() in tl: errs.append("owner/repo in "+r["query"])
    if "github.com" in tl: errs.append("github link in "+r["query"])
    if re.search(r"https?://",t): errs.append("link in "+r["query"])
    if re.search(r"#%s\b"%num,t): errs.append("#num in "+r["query"])
    if re.search(r"(?<![\w.])%s(?![\w.])"%num,t): print("WARN bare number",num,"in",r["query"])
    if re.search(r"(?<![\w])%s(?![\w])"%re.escape(owner),t,re.I): print("WARN owner",owner,"in",r["query"])
    if re.search(r"(?<![\w])%s(?![\w])"%re.escape(repo),t,re.I): print("WARN repo name",repo,"in",r["query"])
    if "@" in t and re.search(r"@\w",t): print("WARN @ in",r["query"])
if len(srcs)!=len(labels): errs.append("duplicate sources")
exp=set(r["expected"] for r in labels if r["expected"])
for d in docs:
    if d not in distractors and d not in exp: errs.append("doc never expected "+d)
    if d in distractors and d in exp: errs.append("distractor expected "+d)
    txt=open(d,encoding="utf-8").read()
    for m in re.findall(r"[\w.-]+/[\w.-]+#\d+",txt):
        if m in srcs: errs.append(f"doc {d} cites query thread {m}")
        if m in used: errs.append(f"doc {d} cites USED thread {m}")
kinds={}
for r in labels: kinds[r["kind"]]=kinds.get(r["kind"],0)+1
print("docs",len(docs),"zh",sum(d.endswith("_zh.md") for d in docs),"en",sum(d.endswith("_en.md") for d in docs),"distractors",len(distractors))
print("kinds",kinds)
from collections import Counter
print("positives per doc",Counter(r["expected"] for r in labels if r["expected"]))
print("ERRORS" if errs else "OK", *errs, sep="\n")
