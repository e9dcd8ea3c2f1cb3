"""Reports without an error line: the failure they describe, across languages, on a small real KB.

The KB mixes Chinese and English postmortems of two OOM causes, a bf16-on-V100 error and meta tensors; the reports
are English prose (and one cut traceback) with no exception line to anchor them.
"""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parent / "data" / "corpus_described"
# A traceback cut inside a library call: no exception line was printed.
CUT_TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/work/finetune.py", line 88, in <module>\n'
    "    trainer = transformers.Trainer(model=model, args=args)\n"
    '  File "/venv/lib/python3.10/site-packages/transformers/trainer.py", line 512, in __init__\n'
    "    self._move_model_to_device(model, args.device)\n"
)


@pytest.fixture(scope="module")
def diagnoser(corpus_diagnoser):
    return corpus_diagnoser(CORPUS)


def test_english_prose_about_backward_oom_finds_the_chinese_postmortem(diagnoser):
    text = ("Instruction fine-tuning a 7B model on 8 GPUs: after some steps, on long samples, it runs out of GPU "
            "memory in the backward pass. Gradient checkpointing is not enabled; batch size is 4.")
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "match", diag.reason
    assert diag.matches[0].source == "oom_activation_zh.md"
    assert diag.reason.startswith("no error line in your report")     # the answer says what it rests on


def test_a_report_naming_oom_is_not_explained_by_an_entry_of_another_error(diagnoser):
    # Every word but "out of memory" points at the bf16/V100 entry; an OOM is not what that entry explains.
    text = "Switching our V100 fine-tuning job from fp16 to --bf16 True, training now runs out of CUDA memory (OOM)."
    diag = diagnoser.diagnose(text)
    assert not (diag.verdict == "match" and diag.matches[0].source == "bf16_v100_zh.md"), diag.reason


def test_a_cut_traceback_points_to_the_entry_of_the_call_it_stopped_in(diagnoser):
    # A call is not an error: the learned decision does not answer on it alone, but the entry that talks about that
    # call is the nearest, and far more likely than with the call taken away.
    decision = diagnoser.matcher.match(CUT_TRACEBACK)
    assert decision.report.primary is None or decision.report.primary.type is None    # nothing printed an exception
    assert decision.ranked[0].doc_id == "meta_tensor_en"
    bare = diagnoser.matcher.match("Traceback (most recent call last):\n  File \"/work/finetune.py\", line 88, in <module>\n")
    meta = next((c for c in bare.ranked if c.doc_id == "meta_tensor_en"), None)
    assert meta is None or meta.probability < decision.ranked[0].probability


def test_a_printed_warning_beside_a_cut_traceback_does_not_stand_for_its_error(diagnoser):
    # The only printed line is a side remark (a deprecation warning); the failure is the call the traceback stops in.
    text = (
        "/venv/lib/python3.10/site-packages/accelerate/accelerator.py:432: FutureWarning: `evaluation_strategy` is "
        "deprecated and will be removed in version 4.46 of Transformers. Use `eval_strategy` instead\n" + CUT_TRACEBACK
    )
    diag = diagnoser.diagnose(text)
    assert (diag.matches or diag.related)[0].source == "meta_tensor_en.md", diag.reason


def test_a_report_that_states_no_failure_is_not_matched_on_topic_alone(diagnoser):
    # On topic (bf16, V100, fine-tuning) but it says nothing failed: nothing to diagnose.
    # Every report the decision was trained on states a failure, so it has not learned this; what it must do is
    # find the same words far less likely to be that entry's failure than a report that says the failure.
    calm = "We fine-tune on V100 cards with fp16 and DeepSpeed; the bf16 option is off. Step time is 1.2 s."
    failing = "We fine-tune on V100 cards with DeepSpeed; with --bf16 True it fails at start-up with a bf16 error."

    def bf16(text: str) -> float:
        return next(c.probability for c in diagnoser.matcher.match(text).ranked if c.doc_id == "bf16_v100_zh")

    assert bf16(calm) < bf16(failing)


def test_an_oom_in_evaluation_is_not_the_backward_oom_entry(diagnoser):
    # Same words as the backward-OOM postmortem (fine-tuning, GPUs, long samples), but it struck in evaluation.
    text = ("Instruction fine-tuning a 7B model on 8 GPUs with long samples: training is fine, but in the evaluation "
            "loop it runs out of GPU memory. Gradient checkpointing is not enabled.")
    diag = diagnoser.diagnose(text)
    assert not (diag.verdict == "match" and diag.matches[0].source == "oom_activation_zh.md"), diag.reason
    assert diag.query.facts.get("oom.phase") == "evaluation"


@pytest.mark.parametrize("text", [
    "Training on our cluster fails with an error after the upgrade; it worked last week.",
    "部署推理服务时报错，GPU 利用率很低。",
    "用 vLLM 部署服务时报错，KV cache 放不下。",
    "多机训练时第一次 allreduce 就卡住，单机没问题。",
])
def test_saying_only_that_something_failed_is_not_enough(diagnoser, text):
    # No fact of any entry's error and no library call: the nearest entry is merely the nearest topic.
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "no_match", f"{diag.matches[0].entry_id}: {diag.reason}"
