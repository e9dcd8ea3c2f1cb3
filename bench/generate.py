"""Synthetic but realistic postmortems, Chinese and English, for the ingest and scale benchmarks.

Each document is one failure from `bench/families.py` written up as teams write them: a title, background, the
symptom with log lines and a Python traceback (site-packages paths, line numbers and frames that vary), the
environment, the root cause, the fix, sometimes notes and a reference. About a third carry scraped-page noise
(breadcrumbs, author/date lines, share and login prompts, a "recommended" list of unrelated projects, a footer);
formats are Markdown, plain text and HTML. Output depends only on (seed, index): the same call writes the same files.

    python -m bench.generate OUT_DIR --docs 1000 [--seed 7]
"""
from __future__ import annotations

import argparse
import html
import random
from pathlib import Path

from bench.families import FAMILIES, Family

_MODELS = {   # name: (architecture class, module, hidden size, vocabulary)
    "Llama-2-7b-hf": ("LlamaForCausalLM", "llama", 4096, 32000),
    "Meta-Llama-3-8B": ("LlamaForCausalLM", "llama", 4096, 128256),
    "Qwen2-7B-Instruct": ("Qwen2ForCausalLM", "qwen2", 3584, 152064),
    "Qwen1.5-14B-Chat": ("Qwen2ForCausalLM", "qwen2", 5120, 152064),
    "Mistral-7B-v0.1": ("MistralForCausalLM", "mistral", 4096, 32000),
    "Baichuan2-13B-Chat": ("BaichuanForCausalLM", "baichuan", 5120, 125696),
    "chatglm3-6b": ("ChatGLMForConditionalGeneration", "chatglm", 4096, 65024),
    "Yi-34B": ("LlamaForCausalLM", "llama", 7168, 64000),
    "internlm2-chat-20b": ("InternLM2ForCausalLM", "internlm2", 6144, 92544),
    "gemma-7b": ("GemmaForCausalLM", "gemma", 3072, 256000),
    "deepseek-llm-67b-base": ("LlamaForCausalLM", "llama", 8192, 102400),
    "phi-2": ("PhiForCausalLM", "phi", 2560, 51200),
}
_GPUS = {"A100-SXM4-80GB": 79.33, "A800-80GB": 79.33, "H800": 79.11, "H100 80GB HBM3": 79.11, "RTX 4090": 23.64,
         "L40S": 44.52, "A10": 22.19, "RTX 3090": 23.69, "A100-PCIE-40GB": 39.39}
_OLD_GPUS = ("Tesla V100-SXM2-32GB", "Tesla T4", "GeForce RTX 2080 Ti", "Quadro RTX 6000", "Tesla P100")
_NEW_GPUS = (("NVIDIA H100 80GB HBM3", "90", "121"), ("NVIDIA GeForce RTX 5090", "120", "128"),
             ("NVIDIA L40S", "89", "118"), ("NVIDIA H20", "90", "124"))   # (name, sm, CUDA wheel tag)
_TORCH = ("2.0.1", "2.1.2", "2.2.1", "2.3.1", "2.4.0", "2.5.1", "2.6.0")
_TF = ("4.31.0", "4.33.2", "4.36.2", "4.38.1", "4.40.0", "4.44.2", "4.46.3")
_SITES = ("/usr/local/lib/python3.10/site-packages", "/opt/conda/lib/python3.11/site-packages",
          "/home/{user}/miniconda3/envs/{env}/lib/python3.10/site-packages", "/root/.venv/lib/python3.9/site-packages",
          "/mnt/{user}/envs/{env}/lib/python3.11/site-packages")
_USERS = ("alice", "bob", "chen", "wli", "zhang_wei", "kmurphy", "dev", "trainer", "liuyang", "ops")
_ENVS = ("llm", "train", "sft", "rlhf", "torch2", "ft", "pretrain", "py310")
_SCRIPTS = ("train.py", "finetune.py", "sft_lora.py", "pretrain_gpt.py", "run_clm.py", "train_dpo.py", "main.py",
            "scripts/finetune_{env}.py", "src/train_{env}.py")
_PARAMS = ("model.embed_tokens.weight", "lm_head.weight", "model.layers.{k}.self_attn.q_proj.weight",
           "model.layers.{k}.mlp.gate_proj.weight", "model.layers.{k}.self_attn.o_proj.weight", "model.norm.weight")
_MTYPES = (("qwen2", "4.37.0"), ("mistral", "4.34.0"), ("gemma", "4.38.0"), ("qwen2_moe", "4.40.0"),
           ("phi3", "4.40.0"), ("mixtral", "4.36.0"), ("llama", "4.28.0"))
_REPOS = ("huggingface/transformers", "microsoft/DeepSpeed", "pytorch/pytorch", "vllm-project/vllm",
          "NVIDIA/Megatron-LM", "huggingface/peft", "Dao-AILab/flash-attention", "hiyouga/LLaMA-Factory",
          "huggingface/accelerate", "QwenLM/Qwen2")

_EN_BACKGROUND = (
    "We were fine-tuning {model} on {world} x {gpu} with {lib}.",
    "The job ran nightly on our {nodes}-node cluster and had been stable for weeks.",
    "A teammate upgraded the training image (torch {torch}, transformers {tf}) the day before.",
    "The failure appeared right after we switched the data pipeline to the new {seqlen}-token packing.",
    "This is a write-up of an incident from the {team} training queue, so that the next on-call can find it.",
    "The same script worked on the previous cluster; only the environment changed.",
    "We first suspected the dataset, since the run failed at step {step} of {steps}.",
    "Reproducing it took about {mins} minutes on a single node.",
)
_ZH_BACKGROUND = (
    "我们在 {world} 张 {gpu} 上用 {lib} 微调 {model}。",
    "这个任务每天晚上在 {nodes} 台机器的集群上跑，之前几周都很稳定。",
    "前一天同事升级了训练镜像（torch {torch}，transformers {tf}）。",
    "数据管道切换到新的 {seqlen} token 打包方式之后开始出现这个问题。",
    "这是 {team} 训练队列的一次故障复盘，方便后续值班同学检索。",
    "同样的脚本在旧集群上可以正常运行，只有环境发生了变化。",
    "一开始怀疑是数据问题，因为任务总是在第 {step}/{steps} 步失败。",
    "单机复现大约需要 {mins} 分钟。",
)
_EN_OBSERVE = ("It failed the same way on every retry.", "Only some ranks printed the error; the rest hung.",
               "The first {step} steps were fine.", "Restarting from the last checkpoint did not help.",
               "Lowering the learning rate changed nothing.")
_ZH_OBSERVE = ("每次重试都以同样方式失败。", "只有部分 rank 打印了这个错误，其余 rank 卡住不动。",
               "前 {step} 步都正常。", "从上一个 checkpoint 重启也没有用。", "调低学习率没有任何变化。")
_EN_VERIFY = ("After the change the run went through {steps} steps without the error.",
              "Verified on two clusters; the job has been stable since.", "The reporter confirmed it fixed the issue.")
_ZH_VERIFY = ("修改后任务跑完了 {steps} 步，没有再报错。", "在两个集群上验证过，之后一直稳定。", "提问者确认问题已解决。")
# Cause and fix paragraphs are written per document: an opener and a detail around the family's sentence, naming
# this document's model, GPU or library, so that no paragraph recurs verbatim across a corpus (real write-ups do not
# share whole paragraphs; ingest drops lines that recur in many documents as page boilerplate).
_EN_CAUSE_OPEN = ("In our case: ", "After bisecting the {lib} setup we found the cause. ",
                  "What happened on the {gpu} nodes: ", "For {model} the explanation is simple. ",
                  "The {team} on-call traced it down. ", "")
_ZH_CAUSE_OPEN = ("排查后发现：", "在这次 {model} 任务里，", "我们对比了 {gpu} 节点上的日志，结论是：", "经过二分定位，{lib} 这边的原因是：",
                  "{team} 值班同学定位到的原因：", "")
_EN_DETAIL = ("We confirmed it on torch {torch} with transformers {tf}.", "It reproduced on one {gpu} with {model}.",
              "The failing step was {step} of {steps}.",
              "The {team} team hit the same thing with {model} a week later.",
              "Nothing in the {lib} config was wrong otherwise.", "")
_ZH_DETAIL = ("在 torch {torch}、transformers {tf} 上确认过。", "用一张 {gpu} 跑 {model} 就能复现。", "出错的是第 {step}/{steps} 步。",
              "一周后 {team} 组在 {model} 上又遇到了同样的问题。", "{lib} 的其他配置都没有问题。", "")
_EN_FIX_OPEN = ("The fix: ", "What worked for us on {gpu}: ", "We changed the {lib} launch script. ",
                "Resolution for {model}: ", "")
_ZH_FIX_OPEN = ("处理方式：", "最终方案：", "我们在 {gpu} 上的做法：", "针对 {model} 的修改：", "")
_EN_NOTES = ("Check the environment the job really runs in, not the one on your laptop.",
             "Pin library versions in the training image and record them in the run metadata.",
             "Add a smoke test that runs ten steps on one node before launching the full job.",
             "Search the knowledge base for the exact error line before debugging from scratch.")
_ZH_NOTES = ("确认任务实际运行的环境，而不是本地环境。", "在训练镜像里固定依赖版本，并写进运行元数据。",
             "正式提交前先在单机上跑十步做冒烟测试。", "排查前先用完整的报错行搜索知识库。")

_HEADINGS = {
    "en": {"background": ("Background", "Context", "Overview"),
           "symptoms": ("Symptom", "Symptoms", "What happened", "Error"),
           "environment": ("Environment", "Versions", "Setup"),
           "root_cause": ("Root cause", "Cause", "Why it happened", "Analysis"),
           "fix": ("Fix", "Solution", "Resolution", "Fix / workaround"),
           "notes": ("Notes", "Lessons learned", "Best practices")},
    "zh": {"background": ("问题背景", "背景", "概述"), "symptoms": ("问题现象", "报错信息", "现象", "错误日志"),
           "environment": ("环境", "运行环境", "版本信息"), "root_cause": ("根本原因", "原因分析", "问题分析", "根因"),
           "fix": ("解决方案", "解决办法", "修复方案", "解决方法"), "notes": ("最佳实践", "经验总结", "注意事项", "备注")},
}

# Page chrome as scraped blog and forum pages carry it; the same lines recur across a site's pages.
_NOISE_TOP = {
    "zh": ("首页 > 技术博客 > 人工智能 > 正文", "当前位置：首页 / 深度学习 / 大模型训练", "作者：{user}  发布于 {date}  阅读 {views}",
           "原创 {user} 最后发布于 {date}", "版权声明：本文为博主原创文章，转载请附上原文出处链接。"),
    "en": ("Home › Blog › Engineering", "Posted by {user} on {date} · {mins} min read",
           "Docs / Guides / Troubleshooting", "Sign in to follow this topic", "Written by {user} | {views} views"),
}
_NOISE_BOTTOM = {
    "zh": ("登录后才能发表评论", "分享到：微信 | 微博 | QQ空间", "点赞 {likes}  收藏 {stars}  评论 {comments}",
           "相关推荐", "KuiklyUI 基于 KMP 技术的高性能全平台开发框架 Kotlin08", "PaddleOCR-VL 新一代文档解析模型 Python00",
           "xw-cli 一键部署国产算力大模型 Go06", "© 2024 开发者社区 版权所有 京ICP备00000000号", "打开APP，阅读体验更佳"),
    "en": ("Was this page helpful? Yes / No", "Share on Twitter | LinkedIn | Facebook", "Sign in to leave a comment",
           "Related articles", "Getting started with vector databases in 10 minutes",
           "Why we moved our CI to ARM runners", "© 2024 DevNotes Inc. All rights reserved.",
           "Subscribe to our newsletter"),
}


def _params(rng: random.Random) -> dict:
    model = rng.choice(list(_MODELS))
    arch, arch_mod, hidden, vocab = _MODELS[model]
    gpu = rng.choice(list(_GPUS))
    mem = _GPUS[gpu]
    user, env = rng.choice(_USERS), rng.choice(_ENVS)
    new_gpu, sm, cu = rng.choice(_NEW_GPUS)
    mtype, newtf = rng.choice(_MTYPES)
    tp = rng.choice((2, 4, 8))
    pid = rng.randint(1000, 99999)
    alloc = round(rng.uniform(0.5, 24), 2)
    p = dict(
        model=model, arch=arch, arch_mod=arch_mod, hidden=hidden, rows=rng.choice((vocab, hidden, 4 * hidden)),
        vocab=vocab + rng.randint(1, tp - 1) if tp > 1 else vocab, tp=tp, added=rng.randint(1, 12),
        param=rng.choice(_PARAMS).format(k=rng.randint(0, 40)), bparams=round(rng.uniform(1, 70), 2),
        gpu=gpu, mem=mem, oldgpu=rng.choice(_OLD_GPUS), newgpu=new_gpu, sm=sm, cu=cu,
        torch=rng.choice(_TORCH), tf=rng.choice(_TF), oldtf=rng.choice(_TF[:3]), newtf=newtf, mtype=mtype,
        rank=rng.randint(0, 1), dev2=rng.randint(2, 7), world=rng.choice((8, 16, 32)), nodes=rng.choice((2, 4, 8, 16)),
        seq=rng.randint(10, 90000), numel=rng.randint(1, 300_000_000), ms3=f"{rng.randint(0, 999):03d}",
        hexid=f"{rng.getrandbits(40):010x}", line=rng.randint(100, 3000), pid=pid, alloc=alloc,
        free=rng.randint(20, 900), used=round(mem * rng.uniform(0.6, 0.95), 2), reserved=rng.randint(10, 2000),
        pct=rng.randint(1, 99), step=rng.randint(1, 5000), steps=rng.choice((2000, 5000, 10000, 30000)),
        mins=rng.randint(1, 59), secs=f"{rng.randint(0, 59):02d}", loss=round(rng.uniform(0.5, 3.5), 4),
        lr=f"{rng.choice((1, 2, 5))}e-{rng.randint(4, 6)}", seqlen=rng.choice((2048, 4096, 8192, 16384, 32768)),
        bs=rng.choice((2, 4, 8, 16, 32)), accum=rng.choice((4, 8, 16, 32)), maxlen=rng.choice((32768, 131072, 8192)),
        kvtok=rng.randint(4000, 30000), blocks=rng.randint(200, 4000), shm=rng.randint(1, 64) * 1048576,
        nccl=f"{rng.randint(14, 21)}.{rng.randint(1, 5)}", blk=rng.randint(0, 500), thr=rng.randint(0, 127),
        workers=rng.choice((4, 8, 16, 32)), py=rng.choice(("39", "310", "311")),
        site=rng.choice(_SITES).format(user=user, env=env), user=user, env=env,
        lib=rng.choice(("DeepSpeed", "FSDP", "Megatron-LM", "accelerate", "LLaMA-Factory")),
        team=rng.choice(("pretraining", "alignment", "serving", "multimodal", "infra")),
        date=f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", views=rng.randint(50, 90000),
        likes=rng.randint(0, 500), stars=rng.randint(0, 900), comments=rng.randint(0, 80),
        cuda=rng.choice(("11.8", "12.1", "12.2", "12.4")),
    )
    return p


def _fill(template: str, p: dict) -> str:
    return template.format(**p)


def _traceback(fam: Family, p: dict, rng: random.Random) -> list[str]:
    script = rng.choice(_SCRIPTS).format(env=p["env"])
    lines = [_fill(x, p) for x in fam.log if rng.random() < 0.8]
    if fam.key in ("nccl_timeout",) and rng.random() < 0.5:
        return lines + [_fill(x, p) for x in fam.error]   # watchdog logs often come without a Python traceback
    lines.append("Traceback (most recent call last):")
    lines.append(f'  File "/workspace/{script}", line {rng.randint(20, 900)}, in <module>')
    lines.append("    main()")
    if rng.random() < 0.6:
        lines.append(f'  File "/workspace/{script}", line {rng.randint(20, 900)}, in main')
        lines.append(rng.choice(("    trainer.train()", "    model = load_model(args)", "    engine.step()",
                                 "    outputs = model(**batch)")))
    for path, func, code in fam.frames:
        lines.append(f'  File "{p["site"]}/{_fill(path, p)}", line {rng.randint(40, 4000)}, in {func}')
        lines.append("    " + code)
    lines.extend(_fill(x, p) for x in fam.error)
    return lines


def _pick(rng: random.Random, pool: tuple[str, ...], k: int, p: dict) -> list[str]:
    return [_fill(x, p) for x in rng.sample(pool, min(k, len(pool)))]


def make_document(index: int, seed: int = 7) -> tuple[str, str]:
    """(file name, content) of document `index`; deterministic in (seed, index)."""
    rng = random.Random(f"{seed}:{index}")
    fam = FAMILIES[rng.randrange(len(FAMILIES))]
    lang = "zh" if rng.random() < 0.45 else "en"
    p = _params(rng)
    h = {k: rng.choice(v) for k, v in _HEADINGS[lang].items()}
    zh = lang == "zh"
    title = _fill(rng.choice(fam.zh_title if zh else fam.en_title), p)
    tb = _traceback(fam, p, rng)
    joiner = "" if zh else " "
    background = joiner.join(_pick(rng, _ZH_BACKGROUND if zh else _EN_BACKGROUND, rng.randint(2, 4), p))
    observe = joiner.join(_pick(rng, _ZH_OBSERVE if zh else _EN_OBSERVE, rng.randint(1, 2), p))
    intro = "训练过程中抛出如下错误：" if zh else rng.choice(("The job stopped with:", "Every rank printed:", "The log ends with:"))
    env = [f"torch {p['torch']}", f"transformers {p['tf']}", f"CUDA {p['cuda']}", f"{p['world']} x {p['gpu']}"]
    env += [f"{lib} {rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}" for lib in fam.libs
            if lib not in ("torch", "transformers")]
    cause = joiner.join(x for x in (_fill(rng.choice(_ZH_CAUSE_OPEN if zh else _EN_CAUSE_OPEN), p).strip(),
                                    _fill(rng.choice(fam.zh_cause if zh else fam.en_cause), p),
                                    _fill(rng.choice(_ZH_DETAIL if zh else _EN_DETAIL), p)) if x)
    fix = joiner.join(x for x in (_fill(rng.choice(_ZH_FIX_OPEN if zh else _EN_FIX_OPEN), p).strip(),
                                  _fill(rng.choice(fam.zh_fix if zh else fam.en_fix), p),
                                  _fill(rng.choice(_ZH_VERIFY if zh else _EN_VERIFY), p)) if x)
    sections = [
        (h["background"], background),
        (h["symptoms"], f"{intro}\n\n```\n" + "\n".join(tb) + f"\n```\n\n{observe}"),
        (h["environment"], "\n".join(f"- {e}" for e in env)),
        (h["root_cause"], cause),
        (h["fix"], fix),
    ]
    if rng.random() < 0.5:
        sections.append((h["notes"], "\n".join("- " + n for n in _pick(rng, _ZH_NOTES if zh else _EN_NOTES, 2, p))))
    reference = ""
    if rng.random() < 0.6:
        reference = f"{'参考' if zh else 'Reference'}: {rng.choice(_REPOS)}#{rng.randint(100, 40000)}"
    noisy = rng.random() < 0.35
    top = _pick(rng, _NOISE_TOP[lang], rng.randint(1, 3), p) if noisy else []
    bottom = _pick(rng, _NOISE_BOTTOM[lang], rng.randint(3, 6), p) if noisy else []
    form = rng.choices(("md", "txt", "html"), weights=(70, 20, 10))[0]
    name = f"{index:06d}_{fam.key}_{lang}.{form}"
    if form == "html":
        return name, _as_html(title, sections, reference, top, bottom)
    if form == "txt":
        # Plain text as copied from a web page: headings are bare lines, code fences are gone.
        body = "\n".join(f"{head}\n{text.replace('```', '').strip()}" for head, text in sections)
        return name, "\n".join([*top, title, body, reference, *bottom]).strip() + "\n"
    body = "\n\n".join(f"## {head}\n\n{text}" for head, text in sections)
    return name, "\n\n".join(x for x in ["\n".join(top), f"# {title}", body, reference, "\n".join(bottom)] if x) + "\n"


def _as_html(title: str, sections: list[tuple[str, str]], reference: str, top: list[str], bottom: list[str]) -> str:
    def block(text: str) -> str:
        out = []
        for i, part in enumerate(text.split("```")):   # odd pieces were inside a fence
            if not part.strip():
                continue
            if i % 2:
                out.append(f"<pre><code>{html.escape(part.strip())}</code></pre>")
            else:
                out.extend(f"<p>{html.escape(x)}</p>" for x in part.strip().split("\n\n"))
        return "\n".join(out)

    nav = "".join(f"<div class=\"breadcrumb\">{html.escape(x)}</div>" for x in top)
    foot = "".join(f"<li>{html.escape(x)}</li>" for x in bottom)
    secs = "\n".join(f"<h2>{html.escape(head)}</h2>\n{block(text)}" for head, text in sections)
    ref = f"<p>{html.escape(reference)}</p>" if reference else ""
    return (f"<!DOCTYPE html>\n<html><head><title>{html.escape(title)}</title></head><body>\n<nav>{nav}</nav>\n"
            f"<article><h1>{html.escape(title)}</h1>\n{secs}\n{ref}</article>\n<footer><ul>{foot}</ul></footer>\n"
            "</body></html>\n")


def generate(out_dir: Path, docs: int, seed: int = 7, start: int = 0) -> list[Path]:
    """Write documents start..start+docs-1 into `out_dir`; returns their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(start, start + docs):
        name, text = make_document(i, seed)
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    paths = generate(args.out_dir, args.docs, args.seed)
    print(f"wrote {len(paths)} postmortems to {args.out_dir}")


if __name__ == "__main__":
    main()
