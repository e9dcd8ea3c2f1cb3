"""The bilingual glossary: which concepts a text names, and the other language's terms a query gains."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kb.index.glossary import expand_query, gloss, query_terms
from kb.index.tokenize import tokenize

ROOT = Path(__file__).resolve().parents[1]


def test_english_report_gains_the_chinese_terms_of_its_concepts():
    extra = expand_query("vocab_size is not divisible by tp_size under tensor parallel training")
    for term in ("张量并行", "整除", "词表"):
        assert term in extra, extra


def test_chinese_postmortem_words_gain_english_terms():
    extra = expand_query("反向传播阶段爆显存，开启梯度检查点后解决")
    for term in ("backward", "oom", "checkpointing"):
        assert term in extra, extra


def test_abbreviations_match_only_as_words():
    # `pp` inside a ZeRO partition file name is no pipeline-parallel degree; `tp=8` is a tensor-parallel size.
    assert "流水线并行" not in expand_query("zero_pp_rank_0_mp_rank_00_model_states.pt")
    assert "张量并行" in expand_query("launched with tp=8 and pp=2")
    assert "流水线并行" in expand_query("launched with tp=8 and pp=2")


def test_inflected_and_joined_english_forms_match():
    assert {"梯度", "检查点"} <= set(expand_query("enabled gradient_checkpointing"))
    assert {"梯度", "检查点"} <= set(expand_query("Gradient-Checkpointing was off"))
    assert "微调" in expand_query("while finetuning Llama")


def test_query_terms_keep_the_query_and_add_each_new_term_once():
    text = "OOM in the backward pass, backward again"
    own = tokenize(text)
    terms = query_terms(text)
    assert terms[: len(own)] == own
    added = terms[len(own):]
    assert {"反向", "显存"} <= set(added) and len(added) == len(set(added))
    assert not set(added) & set(own)


def test_text_naming_no_concept_is_left_alone():
    assert expand_query("hello world") == ()
    assert gloss("hello world") == ""


def test_gloss_names_each_concept_once_in_the_other_language():
    # (`梯度累积` names both gradient accumulation and, inside it, the gradient.)
    assert gloss("CUDA OOM in backward; OOM again; 梯度累积") == "显存 反向传播 gradient accumulation gradient"


def test_expanding_an_english_query_does_not_load_jieba():
    # Loading jieba's dictionary costs most of a second of a cold `diagnose`; English reports must not pay it.
    code = ("import sys; from kb.index.glossary import query_terms; "
            "terms = query_terms('CUDA OOM in the backward pass with tensor parallel'); "
            "assert '张量并行' in terms and '显存' in terms, terms; "
            "assert 'jieba' not in sys.modules, 'jieba was imported'")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=120)
