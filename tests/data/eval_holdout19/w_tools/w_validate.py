import json,os,re,glob
B="/work/staging/eval_holdout19/"
L=[json.loads(l) for l in open(B+"labels.jsonl")]
DISTR={"corpus/w_zero3_offload_host_ram_sigkill_en.md","corpus/w_ddp_unused_parameters_reduction_zh.md",
"corpus/w_trainer_resume_best_model_checkpoint_not_in_list_en.md","corpus/w_deepspeed_batch_size_hardcoded_config_zh.md",
"corpus/w_apex_fusedadam_built_without_cuda_ext_en.md","corpus/w_peft_legacy_enable_lora_key_zh.md","corpus/w_accelerate034_fsdp_flattened_weights_en.md","corpus/w_flash_attn_source_build_ram_max_jobs_zh.md","corpus/w_bnb_cuda_setup_cannot_find_libcudart_en.md"}
docs={"corpus/"+os.path.basename(p) for p in glob.glob(B+"corpus/*.md")}
err=[]
for f in glob.glob(B+"*/*")+glob.glob(B+"*"):
    n=os.path.basename(f)
    if n in("corpus","queries","w_tools","README.md","labels.jsonl"): continue
    if not n.startswith("w_"): err.append("prefix "+f)
for r in L:
    if not os.path.exists(B+r["query"]): err.append("missing "+r["query"])
    if r["kind"] in("near_miss","negative") and r["expected"] is not None: err.append("expected not null "+r["query"])
    if r["kind"]=="positive":
        if r["expected"] is None or not os.path.exists(B+r["expected"]): err.append("bad expected "+r["query"])
        if r["expected"] in DISTR: err.append("positive to distractor "+r["query"])
    t=open(B+r["query"]).read()
    own,num=r["source"].split("#")
    if own.lower() in t.lower(): err.append("own repo in "+r["query"])
    if re.search(r"#\s*"+num+r"\b",t): err.append("own number in "+r["query"])
    if "github.com" in t.lower(): err.append("link in "+r["query"])
    # docs must not cite query threads
    for d in docs:
        dt=open(B+d).read()
        o,rp=own.split("/")
        if re.search(re.escape(own)+r"(#| PR #| pull #)"+num+r"\b",dt) or (rp in dt and re.search(r"[#]"+num+r"\b",dt) and re.search(re.escape(own)+r"[^\n]*#"+num+r"\b",dt)):
            err.append(f"doc {d} cites query thread {r['source']}")
exp={r["expected"] for r in L if r["kind"]=="positive"}
for d in docs-DISTR:
    if d not in exp: err.append("unqueried non-distractor "+d)
for d in DISTR:
    if d not in docs: err.append("missing distractor "+d)
    if d in exp: err.append("distractor expected "+d)
print("docs",len(docs),"queries",len(L))
print("ERRORS:",err if err else "none")
