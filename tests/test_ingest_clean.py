"""ingest.clean: corpus boilerplate and single-document noise shapes; error lines and code always survive."""
from __future__ import annotations

from ingest.clean import REASONS, Removed, boilerplate_key, clean_text, find_boilerplate, noise_reason

ARTICLE = (
    "训练时加载权重报错\n"
    "问题现象\n"
    "加载权重时报错：\n"
    "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n"
    "解决方案\n"
    "- 在加载前调整词表大小。\n"
)


def test_boilerplate_repeated_across_documents_with_digits_normalised():
    blurb = "SomeToolSomeTool 是一款好用的工具，支持多种格式。Python0{}"
    texts = [ARTICLE + blurb.format(1), ARTICLE.replace("Llama", "Qwen") + blurb.format(7), "Other doc.\n"]
    bp = find_boilerplate(texts)
    assert boilerplate_key(blurb.format(3)) in bp
    # headings, error lines and short lines repeat too, but are not boilerplate
    assert boilerplate_key("问题现象") not in bp
    assert boilerplate_key("RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:") not in bp
    assert all("RuntimeError" not in k for k in bp)
    cleaned = clean_text(texts[0], bp).text
    assert "SomeTool" not in cleaned
    assert "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:" in cleaned


def test_boilerplate_needs_a_share_of_a_large_corpus():
    line = "Shared sentence that two documents happen to have in common."
    texts = [f"document number {chr(0x4e00 + i)}\n" for i in range(200)] + [line, line]
    assert find_boilerplate(texts) == set()
    assert boilerplate_key(line) in find_boilerplate(texts[-10:])


def test_code_lines_are_never_boilerplate():
    code = "```\ntokenizer.pad_token = tokenizer.eos_token\n```\n"
    assert find_boilerplate([code, code, code]) == set()


def test_single_line_noise_shapes():
    assert noise_reason("首页 / 大模型 / 部署踩坑 / 正文", near_top=True) == "crumb"
    assert noise_reason("Home › Blog › NLP › Fine-tuning") == "crumb"
    assert noise_reason("当前位置：技术博客 > AI 工程 > 微调框架", near_top=True) == "crumb"
    assert noise_reason("登录后查看全文") == "prompt"
    assert noise_reason("Sign in to save this article · 4 min read · Updated Nov 2022") == "prompt"
    assert noise_reason("👍 点赞 12　⭐ 收藏 30　💬 评论 4") == "counter"
    assert noise_reason("2025-05-02 17:55:02作者:龚格成") == "meta"
    assert noise_reason("发布于 2024-01-06 · 阅读 2.1k · 来自专栏《炼丹排障手记》") in ("meta", "counter")
    assert noise_reason("楼主 · 2021-08-13 · 浏览 864 · 回复 3") in ("meta", "counter")
    assert noise_reason("Posted by jdoe on March 2, 2024 · 3 min read") is not None
    assert noise_reason("© 2024 某技术社区 · 京ICP备xxxxxxxx号") == "footer"
    assert noise_reason("【广告】GPU 云主机限时 5 折，新用户注册即送 100 元代金券 >>") is not None
    assert noise_reason("本站内容仅供学习交流 | 关于我们 | 联系方式 | 隐私政策") == "links"
    assert noise_reason("Related posts: Label smoothing · Choosing a learning rate · ONNX export") == "links"


def test_prose_code_and_errors_are_not_noise():
    for line in (
        "训练在 2024-01-06 的版本上复现了这个问题，作者确认了修复。在那之后我们又跑了三天，没有再出现问题，"
        "说明修复是有效的，但是仍然需要进一步观察长时间训练下的表现。",
        "RuntimeError: Expected all tensors to be on the same device > cuda:0 / cpu / meta",
        "torch/nn/modules/module.py > load_state_dict > _load_from_state_dict",
        "`huggingface-cli login` before downloading gated weights",
        "| Setting | Value | Note |",
        "2024-05-01 12:03:04 ERROR Watchdog caught collective operation timeout",
    ):
        assert noise_reason(line) is None, line


def test_trailing_project_cards_are_removed_by_shape():
    text = ARTICLE + (
        "这个案例提醒我们保持谨慎。\n"
        "FooBarFooBar 是一款开源的多模态模型，支持多种任务。Python00\n"
        "baz-clibaz-cli 一键部署大模型的命令行工具。Go06\n"
        "QuxUIQuxUI 全平台开发框架。 A full-platform framework.Kotlin07\n"
    )
    cleaned = clean_text(text).text
    assert "这个案例提醒我们保持谨慎。" in cleaned
    for gone in ("FooBar", "baz-cli", "QuxUI"):
        assert gone not in cleaned


def test_trailing_card_grid_after_a_marker_is_removed():
    text = ARTICLE + (
        "通过这一问题的分析我们解决了保存问题。\n\n登录后查看全文\n热门项目推荐\n\n收起\n"
        "proj-aproj-a\n一个前后端分离的管理系统\nVue\n864\n512\n"
        "kernelkernel\ndeepin linux kernel\nC\n22\n5\n"
        "toolbox\n欢迎大家投稿的示例代码仓库\nMarkdown\n1.07 K\n0\n"
    )
    cleaned = clean_text(text).text
    assert cleaned.rstrip().endswith("通过这一问题的分析我们解决了保存问题。")


def test_trailing_link_list_after_related_marker():
    text = ARTICLE + ("\n---\n相关推荐\n· 一文读懂某框架（阅读 5.3k）\n· 编译全记录（阅读 3.8k）\n"
                      "上一篇：A　　下一篇：B\n")
    assert clean_text(text).text.rstrip().endswith("- 在加载前调整词表大小。")


def test_error_line_in_the_tail_is_kept():
    text = ARTICLE + ("FooBarFooBar 一款模型。Python00\nValueError: this one is real\n"
                      "BazBaz 一款部署大模型的命令行工具。Go01\n"
                      "QuxQux 一款插件，支持多种编辑器。TypeScript12\n")
    cleaned = clean_text(text).text
    assert "ValueError: this one is real" in cleaned
    assert "BazBaz" not in cleaned


def test_code_blocks_are_verbatim_and_lone_bullets_are_joined():
    text = ("# T\n\n## Fix\n-\n设置参数:\n```\n首页 / a / b / c\n   indented   \n登录后查看全文\n```\n"
            "\n\n\nend\n")
    cleaned = clean_text(text).text
    assert "- 设置参数:" in cleaned
    assert "```\n首页 / a / b / c\n   indented   \n登录后查看全文\n```" in cleaned
    assert "\n\n\n" not in cleaned


def test_header_noise_of_a_scraped_page():
    text = ("首页\n/ 某项目中模型保存问题的分析\n\n某项目中模型保存问题的分析\n\n2025-05-02 17:55:02作者:某人\n\n"
            "正文第一段。\n")
    cleaned = clean_text(text).text
    assert cleaned.splitlines()[0] == "某项目中模型保存问题的分析"
    assert "首页" not in cleaned and "作者" not in cleaned


def test_blurbs_without_language_suffix_go_when_they_share_no_vocabulary():
    article = ("XTuner 训练 DeepSeek 模型时加载权重出现警告\n问题现象\n加载 safetensors 分片时输出警告。\n"
               "根本原因\nXTuner 在 shard 模式下合并专家权重，键名变化。\n总结\n"
               "XTuner框架中对DeepSeek模型的分片处理采用了合并策略。\n")
    tail = ("FooModelFooModel 是一款开源的原生多模态智能体模型，支持视觉与语言理解。\n"
            "bar-gateway统一管理所有大模型的中转分发系统，支持多种格式调用。\n"
            "BazUI基于跨平台技术的高性能开发框架，具备统一代码库。\n")
    cleaned = clean_text(article + tail).text
    assert cleaned.rstrip().endswith("XTuner框架中对DeepSeek模型的分片处理采用了合并策略。")
    # without the unrelated tail, the article's own glued lines stay
    assert clean_text(article).text == article


def test_related_links_with_urls_are_cut_but_citations_stay():
    text = ARTICLE + ("\n参考：example-org/lib#12\n\nRelated posts\n- [Faster loading](https://blog.example.com/a)\n"
                      "- [Attention explained](https://blog.example.com/b)\n- [LoRA guide](https://blog.example.com/c)\n")
    cleaned = clean_text(text).text
    assert cleaned.rstrip().endswith("参考：example-org/lib#12")


# ---------------------------------------------------------------- what was removed, and why


def test_removed_lines_name_their_line_and_reason():
    text = ("首页\n/ 某项目中模型保存问题的分析\n\n某项目中模型保存问题的分析\n\n2025-05-02 17:55:02作者:某人\n\n"
            "登录后查看全文\n正文第一段。\n© 2024 某技术社区 · 京ICP备xxxxxxxx号\n正文第二段。\n")
    cleaned = clean_text(text)
    assert cleaned.removed == [
        Removed(1, "首页", "crumb"),
        Removed(2, "/ 某项目中模型保存问题的分析", "crumb"),     # a breadcrumb's tail wrapped onto its own line
        Removed(6, "2025-05-02 17:55:02作者:某人", "meta"),
        Removed(8, "登录后查看全文", "prompt"),
        Removed(10, "© 2024 某技术社区 · 京ICP备xxxxxxxx号", "footer"),
    ]
    assert "正文第一段。" in cleaned.text and "正文第二段。" in cleaned.text


def test_removed_boilerplate_trailing_blocks_and_rules():
    blurb = "SomeToolSomeTool 是一款好用的工具，支持多种格式。Python01"
    bp = find_boilerplate(["第一篇文章的正文内容。\n" + blurb, "第二篇文章讲的是另一件事。\n" + blurb, "Other doc.\n"])
    assert clean_text("Intro line.\n" + blurb + "\n" + ARTICLE, bp).removed == [Removed(2, blurb, "boilerplate")]

    related = ARTICLE + "\n---\n相关推荐\n· 一文读懂某框架（阅读 5.3k）\n· 编译全记录（阅读 3.8k）\n"
    first = len(ARTICLE.split("\n")) + 1                       # the `---` line
    got = clean_text(related).removed
    assert [r.line for r in got] == [first, first + 1, first + 2, first + 3]
    assert {r.reason for r in got} <= {"tail", "related"} and got[0].text == "---"

    cards = ARTICLE + "FooBarFooBar 是一款开源的多模态模型，支持多种任务。Python00\nbaz-clibaz-cli 一键部署大模型的命令行工具。Go06\n"
    assert [r.reason for r in clean_text(cards).removed] == ["tail", "tail"]
    assert clean_text(ARTICLE + "\n---\n").removed == [Removed(len(ARTICLE.split("\n")) + 1, "---", "rule")]


def test_an_article_without_noise_removes_nothing_and_every_reason_is_described():
    assert clean_text(ARTICLE).removed == []
    text = ("首页 / 大模型 / 部署踩坑 / 正文\n" + ARTICLE + "👍 点赞 12　⭐ 收藏 30　💬 评论 4\n"
            "本站内容仅供学习交流 | 关于我们 | 联系方式 | 隐私政策\n")
    got = clean_text(text)
    lines = text.split("\n")
    assert got.removed and all(lines[r.line - 1] == r.text and r.reason in REASONS for r in got.removed)
    # what is kept and what is removed account for every non-blank line
    assert len([ln for ln in lines if ln.strip()]) == len([ln for ln in got.text.split("\n") if ln.strip()]) \
        + len(got.removed)
