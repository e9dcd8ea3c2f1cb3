"""Answers in the reader's language: the report's own words decide (kb.lang.report_lang), TRIAGE_LANG / --lang /
the service's `lang` override it, a bilingual entry is shown in that language, and the labels of every surface come
from the message table (kb/data/messages.json)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.render.markdown import render_match, render_no_match
from bot.render.slack import diagnosis_blocks, fallback_text
from kb.config import load_settings
from kb.errors import ConfigError
from kb.lang import answer_lang, report_lang
from kb.messages import table
from kb.models import Diagnosis, Evidence, FixOut, MatchOut, QueryOut
from kb.starter import ENTRIES_DIR

ROOT = Path(__file__).resolve().parents[1]
TRACE = ("Traceback (most recent call last):\n  File \"/home/me/train.py\", line 3, in <module>\n"
         "    args = TrainingArguments(bf16=True)\n"
         "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0\n")
EN_REPORT = "Training on our V100 box stops right away when I pass --bf16, before the first step:\n\n" + TRACE
ZH_REPORT = "我们在 V100 上训练，加上 --bf16 之后还没开始第一步就报错了，这是什么原因？\n\n" + TRACE


# --- which language: the reporter's own words -------------------------------------------------------------------

@pytest.mark.parametrize("text,lang", [
    (EN_REPORT, "en"),
    (ZH_REPORT, "zh"),
    (TRACE, "en"),                                              # nothing but a traceback
    ("```\n显存不足 训练 报错 模型 加载 失败\n```\nIt crashes when the model is loaded, see the log above.", "en"),
    ("RuntimeError: 张量并行的词表大小不能被整除\nThe run stops at start up, and it is the same on every node.", "en"),
    ("加载模型时报错，路径是 /data/模型/权重/model.bin，请问怎么办？", "zh"),
    ("The checkpoint is at /data/模型/权重/最终版本/model.bin and loading it fails with the error below.", "en"),
    ("训练中断了\n" + TRACE, "zh"),
])
def test_the_reports_language_is_the_reporters_words_not_its_errors_code_or_paths(text, lang):
    assert report_lang(text) == lang


def test_a_choice_overrides_the_reports_language():
    assert answer_lang("en", ZH_REPORT) == "en" and answer_lang("zh", EN_REPORT) == "zh"
    assert answer_lang("auto", ZH_REPORT) == "zh" and answer_lang(None, EN_REPORT) == "en"


def test_triage_lang_is_a_setting_and_a_bad_value_is_one_line(monkeypatch):
    monkeypatch.setenv("TRIAGE_LANG", "zh")
    assert load_settings().lang == "zh"
    monkeypatch.setenv("TRIAGE_LANG", "fr")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "TRIAGE_LANG=fr" in err.value.user_message and "\n" not in err.value.user_message


def test_every_label_is_in_both_languages():
    for key, texts in table().items():
        assert set(texts) == {"en", "zh"} and all(texts.values()), key


# --- the surfaces, from a diagnosis ----------------------------------------------------------------------------

def _diagnosis(lang: str, verdict: str = "match") -> Diagnosis:
    m = MatchOut(entry_id="bf16-unsupported-pre-ampere", title="标题", source="bf16.md", score=0.9, root_cause="根因文字",
                 fixes=[FixOut(text="改用 fp16", verified=True, verified_by="maintainer"),
                        FixOut(text="显式指定 --dtype half", verified=False)],
                 evidence_items=[Evidence(kind="line", report_line="ValueError ...", entry_line="ValueError")])
    q = QueryOut(exception_type="ValueError", message="Your setup doesn't support bf16/gpu.", signature="ValueError: x")
    if verdict == "match":
        return Diagnosis(input="r.txt", verdict="match", confidence=0.9, matches=[m], query=q, lang=lang)
    return Diagnosis(input="r.txt", verdict="no_match", confidence=0.8, matches=[], related=[m], query=q,
                     reason="没有足够的依据", lang=lang)


def test_slack_and_github_labels_follow_the_answers_language():
    zh = json.dumps(diagnosis_blocks(_diagnosis("zh")), ensure_ascii=False)
    for label in ("已知问题：标题", "*根因*", "*修复方法*", "*依据*", "已验证", "维护者", "已解决", "不是这个", "置信度"):
        assert label in zh, label
    assert "Root cause" not in zh and "Known issue" not in zh
    assert fallback_text(_diagnosis("zh")).startswith("已知问题：")
    en = json.dumps(diagnosis_blocks(_diagnosis("en")))
    assert "*Root cause*" in en and "Known issue: " in en and "Fixed it" in en
    body = render_match(_diagnosis("zh"))
    for label in ("triage-kb：这看起来是一个已知问题", "**根因**", "**修复方法**", "✅ 已由维护者验证：", "/triage wrong"):
        assert label in body, label
    assert "Root cause" not in body
    assert "没有与此报告相符的已知故障复盘" in render_no_match(_diagnosis("zh", "no_match"))


# --- real components: the bundled entries, the CLI --------------------------------------------------------------

@pytest.mark.slow
def test_a_formerly_chinese_entry_answers_an_english_report_in_english_and_a_chinese_one_in_chinese(
        starter_diagnoser):
    en = starter_diagnoser.diagnose(EN_REPORT, name="en.txt")
    assert en.verdict == "match" and en.matches[0].entry_id == "bf16-unsupported-pre-ampere" and en.lang == "en"
    assert en.matches[0].title.startswith("GPUs before Ampere")
    assert "compute capability 8.0" in en.matches[0].root_cause
    assert en.matches[0].fixes[0].text.startswith("On these GPUs use fp16")
    zh = starter_diagnoser.diagnose(ZH_REPORT, name="zh.txt")
    assert zh.verdict == "match" and zh.matches[0].entry_id == "bf16-unsupported-pre-ampere" and zh.lang == "zh"
    assert zh.matches[0].title.startswith("V100 / T4 / 20 系") and "计算能力 8.0" in zh.matches[0].root_cause
    assert zh.matches[0].fixes[0].text.startswith("在这些 GPU 上改用 fp16")
    # the verdict does not depend on the language it is said in
    forced = starter_diagnoser.diagnose(EN_REPORT, name="en.txt", lang="zh")
    assert forced.lang == "zh" and forced.confidence == en.confidence
    assert forced.matches[0].title == zh.matches[0].title


@pytest.mark.slow
def test_a_formerly_english_entry_answers_a_chinese_report_in_chinese(starter_diagnoser):
    report = ("用 git clone 下载的模型，加载权重时报下面的错误，文件只有一百多个字节：\n"
              "_pickle.UnpicklingError: invalid load key, 'v'.\n")
    diag = starter_diagnoser.diagnose(report, name="lfs.txt")
    assert diag.lang == "zh" and diag.matches and diag.matches[0].entry_id == "git-lfs-pointer-load"
    assert diag.matches[0].title.startswith("权重文件是 Git LFS 指针")


def _cli(cache_dir: Path, kb: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "TRIAGE_LANG"}
    full.update({"TRIAGE_CACHE_DIR": str(cache_dir), **(env or {})})
    return subprocess.run([sys.executable, "-m", "bot.cli", *args, "--kb", str(kb)], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_diagnose_lang_and_triage_lang_override_the_reports_language(starter_diagnoser, cache_dir, tmp_path):
    kb = starter_diagnoser.kb.path
    (tmp_path / "zh.txt").write_text(ZH_REPORT, encoding="utf-8")
    auto = _cli(cache_dir, kb, "diagnose", "--json", str(tmp_path / "zh.txt"))
    assert auto.returncode == 0, auto.stderr
    got = json.loads(auto.stdout)
    # every key that was there before, and the language answered in
    assert {"input", "verdict", "confidence", "matches", "related", "query", "reason", "kb", "lang"} <= set(got)
    assert got["lang"] == "zh" and got["matches"][0]["title"].startswith("V100 / T4")
    flag = json.loads(_cli(cache_dir, kb, "diagnose", "--json", "--lang", "en", str(tmp_path / "zh.txt")).stdout)
    assert flag["lang"] == "en" and flag["matches"][0]["title"].startswith("GPUs before Ampere")
    env = json.loads(_cli(cache_dir, kb, "diagnose", "--json", str(tmp_path / "zh.txt"),
                          env={"TRIAGE_LANG": "en"}).stdout)
    assert env["lang"] == "en"
    # --lang wins over TRIAGE_LANG; the text answer's labels are in that language
    text = _cli(cache_dir, kb, "diagnose", "--lang", "zh", str(tmp_path / "zh.txt"), env={"TRIAGE_LANG": "en"})
    assert text.returncode == 0 and "根因" in text.stdout and "修复方法" in text.stdout and "匹配" in text.stdout
    assert "Root cause" not in text.stdout
    bad = _cli(cache_dir, kb, "diagnose", str(tmp_path / "zh.txt"), env={"TRIAGE_LANG": "fr"})
    assert bad.returncode == 2 and "TRIAGE_LANG=fr" in bad.stderr


@pytest.mark.slow
def test_stats_counts_the_bilingual_entries(starter_diagnoser, cache_dir):
    kb = starter_diagnoser.kb.path
    got = _cli(cache_dir, kb, "stats", "--json")
    info = json.loads(got.stdout)
    bundled = len(list(ENTRIES_DIR.glob("*.md")))
    assert bundled >= 200 and info["documents"] == bundled and info["bilingual"] == bundled
    text = _cli(cache_dir, kb, "stats")
    assert "bilingual" in text.stdout and f"{bundled} entries" in text.stdout


def test_the_terminal_answer_in_chinese_with_verified_and_unverified_fixes(capsys):
    from bot.render import terminal as render

    render.print_diagnosis(_diagnosis("zh"))
    out = capsys.readouterr().out
    for label in ("匹配", "置信度", "根因", "修复方法", "✔ 已由维护者验证：", "- 显式指定 --dtype half", "依据", "你的报告"):
        assert label in out, label
    assert "Root cause" not in out
