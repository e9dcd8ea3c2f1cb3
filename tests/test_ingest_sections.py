"""ingest.sections: heading vocabulary (zh/en, combined headings) and splitting Markdown and plain text."""
from __future__ import annotations

import pytest

from ingest.sections import fence_mask, heading_kinds, is_heading_word, split_sections


@pytest.mark.parametrize("heading,kinds", [
    ("问题背景", ["background"]),
    ("背景介绍", ["background"]),
    ("问题现象", ["symptoms"]),
    ("错误信息", ["symptoms"]),
    ("报错", ["symptoms"]),
    ("环境", ["environment"]),
    ("根本原因", ["root_cause"]),
    ("问题根源", ["root_cause"]),
    ("原因分析", ["root_cause"]),
    ("根因", ["root_cause"]),
    ("解决方案", ["fix"]),
    ("修复", ["fix"]),
    ("临时解决方案", ["workaround"]),
    ("长期解决方案", ["fix"]),
    ("最佳实践", ["notes"]),
    ("经验总结", ["notes"]),
    ("后续建议", ["notes"]),
    ("技术启示", ["notes"]),
    ("问题现象与解决方案", ["symptoms", "fix"]),
    ("根本原因与修复", ["root_cause", "fix"]),
    ("二、原因分析：", ["root_cause"]),
    ("Background", ["background"]),
    ("Context", ["background"]),
    ("Symptoms", ["symptoms"]),
    ("Error", ["symptoms"]),
    ("Environment", ["environment"]),
    ("Root cause", ["root_cause"]),
    ("## Root Cause Analysis", ["root_cause"]),
    ("Cause", ["root_cause"]),
    ("Analysis", ["root_cause"]),
    ("Fix", ["fix"]),
    ("Solution", ["fix"]),
    ("Resolution", ["fix"]),
    ("Workaround", ["workaround"]),
    ("Temporary fix", ["workaround"]),
    ("Fix / workaround", ["fix", "workaround"]),
    ("Root cause and fix", ["root_cause", "fix"]),
    ("Notes", ["notes"]),
    ("Lessons learned", ["notes"]),
    ("References", ["notes"]),
    ("问题现象 / Symptoms", ["symptoms"]),
    ("嵌入层为何能正常工作", []),
    ("Comment by @bob", []),
])
def test_heading_kinds(heading, kinds):
    assert heading_kinds(heading) == kinds


def test_is_heading_word_is_exact():
    assert is_heading_word("根本原因与修复")
    assert is_heading_word("问题现象 / Symptoms")
    assert is_heading_word("Root cause:")
    assert not is_heading_word("Liger-Kernel项目在Lightning训练中遇到的模型加载问题分析")
    assert not is_heading_word("Root cause of the crash in our cluster")


def test_markdown_sections_and_unknown_subheadings_inherit():
    text = (
        "Intro paragraph.\n\n"
        "## Symptom\nIt crashed:\n\n```\n# not a heading inside code\nRuntimeError: x\n```\n\n"
        "## Root cause\nThe reason.\n\n### Why the embedding works\nInherits root cause.\n\n"
        "## Fix / workaround\n- do this\n\n## Unrelated part\nStuff.\n"
    )
    secs = split_sections(text)
    assert [(s.heading, s.kind) for s in secs] == [
        ("", "body"), ("Symptom", "symptoms"), ("Root cause", "root_cause"),
        ("Why the embedding works", "root_cause"), ("Fix / workaround", "fix"), ("Unrelated part", "body"),
    ]
    assert "# not a heading inside code" in secs[1].text


def test_plain_text_headings_in_a_chinese_article():
    text = (
        "问题背景\n在使用某框架训练时遇到问题。\n"
        "技术细节分析\n"
        "分片的局限性\n这个问题本质上源于架构的设计限制。\n"
        "具体问题表现\n矩阵乘法失败：\nRuntimeError: size mismatch, got input (2)\n"
        "临时解决方案\n- 禁用融合算子，改用普通实现。\n"
        "总结\n这个问题揭示了框架之间的交互。\n"
    )
    kinds = [(s.heading, s.kind) for s in split_sections(text)]
    assert kinds == [
        ("问题背景", "background"), ("分片的局限性", "root_cause"), ("具体问题表现", "symptoms"),
        ("临时解决方案", "workaround"), ("总结", "notes"),
    ]


def test_list_intro_with_colon_is_not_a_heading():
    secs = split_sections("技术启示\n这一案例揭示了几个重要的技术要点:\n- 一\n- 二\n")
    assert [s.heading for s in secs] == ["技术启示"]


def test_label_lines_start_sections_but_error_labels_do_not():
    secs = split_sections("## 问题背景\n用户遇到问题。\n环境：torch 2.1、CUDA 12.1\n\n报错：RuntimeError: boom\n")
    assert [(s.heading, s.kind) for s in secs] == [("问题背景", "background"), ("环境", "environment")]
    assert secs[1].text.startswith("torch 2.1")
    assert "报错：RuntimeError: boom" in secs[1].text


def test_english_plain_headings_need_to_be_short():
    secs = split_sections("Root cause:\nThe allocator fragments.\n\nFix\nSet the flag.\n\n"
                          "Fix the cluster before you try again tomorrow morning please\n")
    assert [(s.heading, s.kind) for s in secs] == [("Root cause", "root_cause"), ("Fix", "fix")]


def test_fence_mask():
    lines = ["a", "```py", "# c", "```", "b", "~~~", "x", "~~~"]
    assert fence_mask(lines) == [False, True, True, True, False, True, True, True]


def test_labels_after_a_bullet_and_run_in_bold_labels_open_sections():
    text = ("- A100, installed from source\n"
            "- 原因：预编译的扩展是针对另一个 torch 版本编译的。\n"
            "- 解决：换回要求的 torch 版本后重新安装。\n\n"
            "**Cause.** Each task held a whole shard in memory.\n\n"
            "**Resolution.** Request more CPUs per task.\n")
    kinds = [(s.kind, s.text.split("\n")[0][:12]) for s in split_sections(text)]
    assert ("root_cause", "预编译的扩展是针对另一个") in kinds
    assert ("fix", "换回要求的 torch ") in kinds
    assert ("root_cause", "Each task he") in kinds and ("fix", "Request more") in kinds


@pytest.mark.parametrize("heading,kinds", [
    ("Workaround that worked for us", ["workaround"]),
    ("What we changed", ["fix"]),
    ("维护者回复", ["root_cause", "fix"]),
    ("Answer", ["root_cause", "fix"]),
    ("Fix the tokenizer config now please", []),      # a sentence that starts with a heading word
])
def test_thread_and_story_headings(heading, kinds):
    assert heading_kinds(heading) == kinds


def test_a_qualifier_after_the_heading_words_does_not_hide_them():
    assert heading_kinds("Explanation (digest author):") == ["root_cause"]
    assert heading_kinds("解决方案（楼主确认）") == ["fix"]
    text = ("Symptom: the first CUDA op fails.\n\nExplanation (digest author):\n  The card is sm_86 and the wheel "
            "has no kernels for it.\n\n**Resolution (by the reporter, same day).** Installed a cu118 wheel.\n")
    kinds = {s.kind: s.text for s in split_sections(text)}
    assert "no kernels" in kinds["root_cause"] and "cu118" in kinds["fix"]


def test_torchruns_failure_summary_is_a_log_block_not_a_cause_heading():
    text = ("train.py FAILED\n------------------------------------------------------------\n"
            "Root Cause (first observed failure):\n[0]:\n  time      : 2025-05-21_15:43:03\n"
            "  exitcode  : -9 (pid: 14750)\n============================================================\n\n"
            "Root cause:\nthe container ran out of host memory.\n")
    causes = [s.text for s in split_sections(text) if s.kind == "root_cause"]
    assert causes == ["the container ran out of host memory."]


def test_without_a_cause_heading_or_cue_the_conclusion_states_the_cause(tmp_path):
    from ingest.extract.document import extract_document
    from ingest.read import read_path

    doc = tmp_path / "notes.md"
    doc.write_text("# vLLM 启动失败\n\n```\nValueError: The model's max seq len (32768) is larger than the maximum "
                   "number of tokens that can be stored in KV cache (7344).\n```\n\n## 结论\n\n这张卡扣掉权重以后只放得下 "
                   "7344 个 token。默认上下文 32768 装不下。\n\n## 团队约定\n\n启动前先算好显存。\n", encoding="utf-8")
    got = extract_document(read_path(doc, 1_000_000), "notes.md", set())
    assert got.root_cause.startswith("这张卡扣掉权重以后只放得下 7344 个 token")
    faq = tmp_path / "faq.md"
    faq.write_text("# GLIBCXX\n\n**Q：import 报错怎么办？**\n\n**A：** 运行时加载的是 conda 自带的旧版 libstdc++.so.6。"
                   "\n\n处理步骤：先备份。\n", encoding="utf-8")
    got = extract_document(read_path(faq, 1_000_000), "faq.md", set())
    assert "旧版 libstdc++.so.6" in got.root_cause
