"""ingest.extract on the seed postmortems, the dev corpus and the test data; field extractors in isolation.

Tests that read the shared seeds and dev corpus skip when the `shared` folder beside the repository is absent.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.lang import detect_langs
from kb.traceback.lines import classify_line
from ingest.chunk import chunk_document
from ingest.clean import find_boilerplate
from ingest.extract.document import extract_document
from ingest.extract.fixes import split_fixes, verified_by
from ingest.extract.libraries import find_libraries
from ingest.extract.references import find_references
from ingest.extract.title import doc_id_from_source, split_title
from ingest.extract.tracebacks import find_tracebacks
from ingest.extract.versions import find_versions
from ingest.read import RawDocument, read_path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DATA = Path(__file__).parent / "data" / "postmortems"


def _need_shared() -> Path:
    if not (SHARED / "seeds").is_dir():
        pytest.skip(f"{SHARED} is absent: the seed postmortems and the dev corpus live there")
    return SHARED


def _strings(obj) -> list[str]:
    """Every string inside a dumped model."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def _corpus(paths: list[Path]):
    raws = [read_path(p, 5_000_000) for p in paths]
    assert all(isinstance(r, RawDocument) for r in raws)
    bp = find_boilerplate([r.text for r in raws])
    return [(p, r, extract_document(r, p.name, bp)) for p, r in zip(paths, raws)]


# --- the four seeds ------------------------------------------------------------------------------------------------

SEEDS = {
    "000_afec80fa3734705a.txt": (
        "Liger-Kernel项目在Lightning训练中遇到的模型加载问题分析",
        ["size mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([151936, 896]) from "
         "checkpoint, the shape in current model is torch.Size([0]).",
         "RuntimeError: Error(s) in loading state_dict for Qwen2ForCausalLM:",
         "AttributeError: module 'deepspeed.utils' has no attribute 'logging'"],
        30,                                 # first line index of the trailing recommended-project blurbs
    ),
    "001_f2579852986acbda.txt": (
        "Liger-Kernel项目中FSDP与LLaMA模型lm_head层的兼容性问题分析",
        ["RuntimeError: size mismatch, got input (2), mat (2x4096), vec (65667072)"],
        29,
    ),
    "002_b6cfe7d2a887145c.txt": (
        "XTuner训练中DeepSeek-V2模型权重加载问题解析",
        ["model.layers.7.mlp.experts.3.w1w3 not in state_dict, loading "
         "deepseek-ai/DeepSeek-V2-Lite/model-00002-of-000004.safetensors"],
        34,
    ),
    "003_9d59d650bdc4b9d6.txt": (
        "ColossalAI项目中Llama3.1模型保存问题的技术分析与解决方案",
        ["The parameter isn't evenly distributed among tensor parallel group: shape before sharding "
         "torch.Size([128256, 4096]), shape after sharding torch.Size([16064, 4096])"],
        78,
    ),
}


@pytest.fixture(scope="module")
def seeds():
    shared = _need_shared()
    return {p.name: (r, d) for p, r, d in _corpus(sorted((shared / "seeds").glob("*.txt")))}


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_fields(seeds, name):
    title, errors, _ = SEEDS[name]
    _raw, doc = seeds[name]
    assert doc.title == title
    for line in errors:
        assert line in doc.error_lines
    assert doc.root_cause.strip()
    assert doc.fixes and all(f.text.strip() for f in doc.fixes)
    assert doc.langs == ["zh"]
    assert doc.doc_id == name.removesuffix(".txt")


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_page_noise_is_gone_from_every_field_and_chunk(seeds, name):
    raw, doc = seeds[name]
    lines = raw.text.splitlines()
    noise = [ln.strip() for ln in lines[SEEDS[name][2]:] if ln.strip()]
    if name.startswith("003"):
        noise += [lines[0].strip(), lines[1].strip(), lines[5].strip()]   # crumb, crumb tail, date/author line
    texts = _strings(doc.model_dump()) + [c.text for c in chunk_document(doc)]
    text_lines = {ln.strip() for t in texts for ln in t.splitlines()}
    for line in noise:
        if len(line) >= 8:
            assert not any(line in t for t in texts), line
        else:
            assert line not in text_lines, line
    assert not any("登录后查看全文" in t or "Python00" in t or "Kotlin07" in t for t in texts)


def test_seed_fixes_and_their_verification(seeds):
    fixes = {name: [(f.verified_by, f.text) for f in seeds[name][1].fixes] for name in SEEDS}
    assert fixes["000_afec80fa3734705a.txt"][0][0] == "maintainer"          # 维护者分析 … 已在最新提交中修复
    assert "liger-kernel-lightly" in fixes["000_afec80fa3734705a.txt"][0][1]
    assert [v for v, _ in fixes["001_f2579852986acbda.txt"]] == ["none", "none", "none"]
    code_fix = fixes["003_9d59d650bdc4b9d6.txt"][0][1]
    assert "make_vocal_size_divisible_by=32,  # 关键解决方案\n    custom_policy" in code_fix   # code kept verbatim


def test_seed_code_block_is_one_chunk(seeds):
    _raw, doc = seeds["003_9d59d650bdc4b9d6.txt"]
    chunks = chunk_document(doc, max_chars=300)
    holding = [c for c in chunks if "plugin = HybridParallelPlugin(" in c.text]
    assert len(holding) == 1 and "custom_policy=get_autopolicy(model.model),\n)" in holding[0].text


# --- the dev corpus ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dev_corpus():
    shared = _need_shared()
    paths = sorted((shared / "eval" / "dev" / "corpus").glob("*.md"))
    assert paths
    return _corpus(paths)


def test_dev_corpus_table(dev_corpus, capsys):
    rows = []
    for _p, _r, d in dev_corpus:
        rows.append(f"{d.doc_id[:44]:44} | {d.title[:40]:40} | err {len(d.error_lines)} | rc {len(d.root_cause):4} | "
                    f"fixes {[f.verified_by for f in d.fixes]}")
        assert d.title.strip(), d.source
        assert d.root_cause.strip(), d.source
        assert d.fixes, d.source
        assert d.langs in (["zh"], ["en"]), (d.source, d.langs)
        assert d.references, d.source
    with capsys.disabled():
        print("\n" + "\n".join(rows))


def test_dev_corpus_error_lines_are_found_and_never_cleaned_away(dev_corpus):
    for _p, raw, doc in dev_corpus:
        title_line = raw.text.lstrip().splitlines()[0]
        quoted = [ln for ln in raw.text.splitlines()
                  if ln != title_line and classify_line(ln) not in (None, "frame")]
        if quoted:
            assert doc.error_lines, doc.source
        for ln in raw.text.splitlines():
            if classify_line(ln) is not None:
                assert ln in doc.body, (doc.source, ln)


NOISE = [
    "Home › Blog › NLP › Fine-tuning", "Sign in to save this article", "Related posts:", "Newsletter:",
    "当前位置：技术博客", "作者：小林的炼丹炉", "未登录用户仅可阅读部分内容", "点赞 12", "猜你喜欢",
    "技术社区 › 问答精选", "楼主 · 2021-08-13", "【广告】", "热门标签", "本站内容仅供学习交流",
    "首页 / 大模型", "登录 | 注册", "发布于 2024-01-06", "相关推荐", "一文读懂 vLLM", "上一篇", "京ICP备",
]


def test_dev_corpus_page_noise_is_gone(dev_corpus):
    for _p, _r, doc in dev_corpus:
        texts = _strings(doc.model_dump()) + [c.text for c in chunk_document(doc)]
        for noise in NOISE:
            assert not any(noise in t for t in texts), (doc.source, noise)


def test_dev_corpus_verification(dev_corpus):
    by_id = {d.doc_id: [f.verified_by for f in d.fixes] for _p, _r, d in dev_corpus}
    assert set(by_id["mp_dependent_vocab_padding_zh"]) == {"none"}           # 帖子中未见维护者确认
    assert set(by_id["nccl_timeout_long_preprocessing_zh"]) == {"none"}      # 没有给出维护者的逐条确认
    assert set(by_id["safetensors_headertoolarge_git_lfs_zh"]) == {"none"}   # 没有再收到反馈
    assert set(by_id["gpt2_tokenizer_no_pad_token_zh"]) == {"reporter"}      # 提问者确认“加上就好了”
    assert set(by_id["meta_tensor_low_cpu_mem_usage_zh"]) == {"reporter"}
    assert set(by_id["v100_bf16_not_supported_zh"]) == {"maintainer"}        # 维护者确认后关闭
    assert set(by_id["fsdp_autowrap_splits_tied_embeddings_en"]) == {"maintainer"}   # merged
    assert set(by_id["peft_adapter_added_tokens_embedding_size_mismatch_en"]) == {"reporter"}  # Verified:


# --- the test data -------------------------------------------------------------------------------------------------

def _doc(name: str):
    raw = read_path(DATA / name, 5_000_000)
    assert isinstance(raw, RawDocument)
    return extract_document(raw, name, set())


def test_gbk_article():
    doc = _doc("gbk_nccl_ifname_zh.txt")
    assert doc.title == "多机训练启动后卡住，最终 NCCL 超时退出"
    assert doc.error_lines == [
        "[E ProcessGroupNCCL.cpp:828] [Rank 9] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
        "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 milliseconds before timing out.",
        "RuntimeError: NCCL communicator was aborted on rank 9.",
    ]
    assert "docker0" in doc.root_cause
    assert [f.verified_by for f in doc.fixes] == ["reporter", "reporter"]
    assert doc.versions == ["torch 2.1.0", "deepspeed 0.12.6", "cuda 12.1", "nccl 2.18.1"]
    assert {"torch", "deepspeed", "nccl"} <= set(doc.libraries)
    assert "首页" not in doc.body and "猜你喜欢" not in doc.body and "发布于" not in doc.body
    assert [s.kind for s in doc.sections] == ["background", "symptoms", "environment", "root_cause", "fix"]


def test_html_page():
    doc = _doc("page_with_chrome.html")
    assert doc.title == "evaluation runs out of GPU memory after training finishes"
    assert doc.error_lines[0].startswith("torch.OutOfMemoryError: CUDA out of memory.")
    assert len(doc.tracebacks) == 1 and doc.tracebacks[0].startswith("Traceback (most recent call last):")
    assert "eval_accumulation_steps" in doc.root_cause
    assert len(doc.fixes) == 2 and doc.fixes[0].verified_by == "reporter"
    assert "transformers==4.40.1" in doc.versions
    assert "huggingface/transformers#23456" in doc.references
    assert "Posted by" not in doc.body


def test_github_issue():
    doc = _doc("issue_export.json")
    assert doc.doc_id == "issue_export"
    assert doc.error_lines == ["KeyError: 'qwen2'"]
    assert "too old" in doc.root_cause
    assert any("pip install -U transformers" in f.text for f in doc.fixes)
    assert doc.references[0] == "example-org/trainer-lib#4321"
    assert "transformers 4.31.0" in doc.versions


def test_a_symptom_block_said_without_an_error_word_is_the_error_line():
    """When no rule finds an error line, the symptom section's printed output is what failed: the last message of
    each code block (not the command, not the counters above it), in either language's section names."""
    en = _doc("symptom_output_without_error_word_en.md")
    assert en.error_lines == ["The model's max seq len (32768) is larger than the maximum number of tokens that can be "
                              "stored in KV cache (23648)."]
    zh = _doc("symptom_hang_lock_file_zh.md")
    assert zh.error_lines[-1] == "Lock file exists in build directory: '/home/u/.cache/torch_extensions/py38_cu118/fused/lock'"


def test_document_without_headings_uses_sentence_cues():
    doc = _doc("no_headings_en.txt")
    assert doc.title == "Loss becomes NaN after a few hundred steps in fp16"
    assert doc.root_cause.startswith("The root cause is that activations")
    assert doc.fixes[0].text.startswith("We solved it by switching to bf16")
    assert doc.fixes[0].verified_by == "reporter"


# --- field extractors ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,who", [
    ("维护者确认这样做没有问题。", "maintainer"),
    ("该问题已在最新提交中修复。", "maintainer"),
    ("The fix was merged and closed the report.", "maintainer"),
    ("A maintainer accepted the PR.", "maintainer"),
    ("维护者给出该建议后，提问者确认“加上就好了”，问题关闭。", "reporter"),
    ("提问者确认按此修改后问题解决。", "reporter"),
    ("已验证：开启后 50 步全部跑完。", "reporter"),
    ("Verified: the unit tests passed after the change.", "reporter"),
    ("Upgrading fixed it, thanks!", "reporter"),
    ("该方案由提问者提出，帖子中未见维护者确认。", "none"),
    ("以上为根据日志得出的处理方式，原帖中没有给出维护者的逐条确认。", "none"),
    ("维护者给出排查建议后没有再收到反馈，按已解决关闭。", "none"),
    ("This workaround is untested and unconfirmed by the maintainers.", "none"),
    ("可以考虑降级使用已验证可用的版本", "none"),
    ("Set the flag before CUDA initialises.", "none"),
])
def test_verified_by(text, who):
    assert verified_by(text)[0] == who


def test_split_fixes_items_code_and_status_notes():
    items, notes = split_fixes(
        "经过研究，确定了以下方案：\n\n- 第一步：设置参数。\n- 第二步：重启\n  并重新运行。\n"
        "以上为推测，未经维护者确认。\n\n"
        "在创建前补一行：\n\n```python\nx = 1\n```\n"
    )
    assert items == ["第一步：设置参数。", "第二步：重启\n  并重新运行。", "在创建前补一行：\n```python\nx = 1\n```"]
    assert notes == ["以上为推测，未经维护者确认。"]


def test_versions_libraries_references():
    text = ("环境：transformers==4.37.2、torch 2.1.0+cu121、DeepSpeed 0.14，CUDA 12.1；ColossalAI v0.3.1。"
            "Mistral-7B-Instruct-v0.2 is a model, not a version. See huggingface/peft#2415 and "
            "https://github.com/hpcaitech/ColossalAI/issues/6167 (report: #6100). `owner/inline#1`")
    assert find_versions(text) == ["transformers==4.37.2", "torch 2.1.0+cu121", "deepspeed 0.14", "cuda 12.1",
                                   "colossalai 0.3.1"]
    assert find_references(text) == ["huggingface/peft#2415", "hpcaitech/ColossalAI#6167",
                                     "https://github.com/hpcaitech/ColossalAI/issues/6167", "huggingface/peft#6100"]
    libs = find_libraries("在LLaMA Factory中用FSDP训练，XTuner、flash_attn 与 sentence-transformers；"
                          "we accelerate training a lot")
    assert libs == ["torch", "flash-attn", "sentence-transformers", "llama-factory", "xtuner"]
    assert "accelerate" in find_libraries("from accelerate import Accelerator")


def test_langs():
    assert detect_langs("这是一个中文段落，讨论训练时的显存问题。\nRuntimeError: CUDA out of memory.") == ["zh"]
    assert detect_langs("The model was loaded in fp16 and the scaler refused to unscale the gradients.") == ["en"]
    both = ("这是一个中文段落，讨论训练时的显存问题，以及相关的解决办法。\n"
            "The original report was written in English and it describes how the allocator behaves when "
            "the batch size changes between steps, which is why we quote it here in full.")
    assert detect_langs(both) == ["zh", "en"]


def test_titles_and_doc_ids():
    assert split_title("# Postmortem: NCCL hangs\n\n## Symptom\nx\n")[0] == "NCCL hangs"
    assert split_title("【已解决】故障复盘：显存不足\n正文\n")[0] == "显存不足"
    assert split_title("## Symptom\nRuntimeError: x\n")[0] == ""
    assert doc_id_from_source("zh/2024/NCCL timeout (v2).md") == "zh__2024__NCCL-timeout-v2"
    assert doc_id_from_source("seeds/000_afec.txt") == "seeds__000_afec"


def test_tracebacks_from_code_blocks_and_plain_runs():
    text = ("text\n```\nTraceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    f()\n"
            "ValueError: bad\n```\n\n```python\nx = 1\n```\n"
            "prose\nRuntimeError: Error(s) in loading state_dict for M:\nsize mismatch for w: copying a param\n")
    tbs = find_tracebacks(text)
    assert len(tbs) == 2
    assert tbs[0].endswith("ValueError: bad") and "    f()" in tbs[0]
    assert tbs[1].startswith("RuntimeError: Error(s)")
