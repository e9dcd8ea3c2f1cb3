"""Errors that do not pick an entry by themselves; the rest of the report has to.

- Symptoms with many known causes (an in-place modification, a device mismatch): own postmortems in
  `tests/data/corpus_symptoms/`, two causes of the same in-place error and one device mismatch.
- Another message of the same kind: the report's error agrees with an entry on a hard fact (the same missing
  package, a CPU-only torch) in other words. Own postmortems in `tests/data/corpus_kin/`.

Both are ingested into real KBs.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.traceback.signature import divergence, signature_of_line

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parent / "data"
SYMPTOMS, KIN = DATA / "corpus_symptoms", DATA / "corpus_kin"

INPLACE = ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [torch.cuda.FloatTensor [8, 728, 19, 19]], which is output 0 of ReluBackward0, is at version 3; "
           "expected version 1 instead. Hint: enable anomaly detection to find the operation that failed to compute "
           "its gradient, with torch.autograd.set_detect_anomaly(True).")
SENTENCEPIECE = ("ValueError: Couldn't instantiate the backend tokenizer from one of:\n"
                 "(1) a `tokenizers` library serialization file,\n"
                 "(2) a slow tokenizer instance to convert or\n"
                 "(3) an equivalent slow tokenizer class to instantiate and convert.\n"
                 "You need to have sentencepiece installed to convert a slow tokenizer to a fast one.\n")
XFORMERS_CPU = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
                "    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.3.0+cpu)\n"
                "    Python  3.11.9 (you have 3.11.9)\n"
                "  Please reinstall xformers\n")


@pytest.mark.parametrize("line,name", [
    (INPLACE, "inplace"),
    ("RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they "
     "have already been freed).", "backward_twice"),
    ("ValueError: Expected input batch_size (48) to match target batch_size (24).", "batch_size"),
    ("RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.",
     "no_process_group"),
    ("RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory", "zip_archive"),
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x512 and 768x10)", "matmul_shapes"),
])
def test_symptom_fact(line, name):
    assert signature_of_line(line).facts["symptom"] == name


def test_another_hint_after_the_first_sentence_is_not_another_message():
    older = INPLACE.split(" Hint:")[0] + (" Hint: the backtrace further above shows the operation that failed to "
                                          "compute its gradient. The variable in question was changed in there or "
                                          "anywhere later. Good luck!")
    assert divergence(signature_of_line(INPLACE), signature_of_line(older)) == ([], [])


def test_the_bare_error_is_not_enough(corpus_diagnoser):
    diagnoser = corpus_diagnoser(SYMPTOMS)     # built once per session
    # The line is word for word the in-place ReLU entry's, but the same message has other causes (another entry
    # of this KB is one): nothing in the report says which.
    diag = diagnoser.diagnose(INPLACE)
    assert diag.verdict == "no_match", diag.reason
    assert "several known causes" in diag.related[0].reason


def test_a_bare_device_mismatch_is_not_enough(corpus_diagnoser):
    diagnoser = corpus_diagnoser(SYMPTOMS)
    # Naming the devices in the same order as the entry says nothing about why a tensor was left behind.
    diag = diagnoser.diagnose("RuntimeError: Expected all tensors to be on the same device, but found at least two "
                              "devices, cuda:0 and cpu!")
    assert diag.verdict == "no_match", diag.reason


def test_the_same_missing_package_alone_is_not_enough(corpus_diagnoser):
    diagnoser = corpus_diagnoser(KIN)
    decision = diagnoser.matcher.match(SENTENCEPIECE)
    assert decision.verdict == "no_match", decision.reason
    spm = next(c for c in decision.ranked if c.doc_id.startswith("sentencepiece_not_installed"))
    assert "import.module=sentencepiece" in spm.reason
    # The other missing package is no answer either way.
    proto = next(c for c in decision.ranked if c.doc_id.startswith("protobuf_missing"))
    assert proto.probability < spm.probability


def test_an_entry_that_agrees_on_the_fact_the_top_one_conflicts_on_is_the_likely_one(corpus_diagnoser):
    diagnoser = corpus_diagnoser(KIN)
    # The xFormers entry has the report's very warning, but for a CUDA torch of another release; the report's torch
    # is a CPU build, which is what the CPU-wheel entry is about.
    text = XFORMERS_CPU + ("\n`pip install -r requirements.txt` pulled torch from PyPI, so torch.__version__ shows the "
                           "+cpu build and torch.cuda.is_available() is False although the GPU and the driver work.")
    decision = diagnoser.matcher.match(text)
    xformers = next(c for c in decision.ranked if c.doc_id.startswith("xformers_for_another_torch"))
    assert xformers.probability == 0.0 and "torch.build" in xformers.reason      # ruled out by the fact
    likely = max(decision.ranked, key=lambda c: c.probability)
    assert likely.doc_id.startswith("cpu_wheel_installed")
    others = [c.probability for c in decision.ranked if c is not likely]
    assert likely.probability > 10 * max(others)     # 13x with the weights of cause_lead (8x with those before)


@pytest.mark.parametrize("words,leader", [
    ("The discriminator's optimizer_d.step() runs before the generator loss calls backward().",
     "optimizer_step_before_second_backward"),
    ("Every residual block clones nothing: its input goes through the activation, then into the skip branch.",
     "relu_inplace_overwrites_saved_input"),
], ids=["step-before-backward", "residual-block"])
def test_the_words_of_an_entrys_cause_lead_for_that_entry(corpus_diagnoser, words, leader):
    # Both entries print the same in-place error; what the report says beyond it is in one entry's cause and fix.
    decision = corpus_diagnoser(SYMPTOMS).matcher.match(INPLACE + "\n\n" + words)
    leads = {c.doc_id.rsplit("_", 1)[0]: c.cause_lead for c in decision.ranked if c.features}
    assert leads[leader] > 0, leads
    assert all(lead < 0 for doc, lead in leads.items() if doc != leader), leads


@pytest.mark.parametrize("corpus,text,source", [
    (SYMPTOMS, "Our residual backbone uses nn.ReLU(inplace=True) at the start of each block, and the skip branch reuses "
               "the same input tensor. The first backward pass fails:\n\n" + INPLACE,
     "relu_inplace_overwrites_saved_input_en.md"),
    (KIN, "A brand-new virtualenv built from requirements.txt; loading the LLaMA tokenizer (tokenizer.model is in the "
          "checkpoint folder) fails:\n\n" + SENTENCEPIECE,
     "sentencepiece_not_installed_en.md"),
], ids=["symptom", "same-package"])
def test_the_rest_of_the_report_picks_the_entry(corpus_diagnoser, corpus, text, source):
    diag = corpus_diagnoser(corpus).diagnose(text)
    assert diag.verdict == "match", diag.reason
    assert diag.matches[0].source == source
    # The error alone did not decide it, so the answer is less sure than a specific error would make it.
    assert diag.confidence <= 0.9


def test_a_quoted_value_both_messages_name_makes_a_generic_error_specific():
    from kb.match import _is_generic

    report = signature_of_line("nvcc fatal   : Unsupported gpu architecture 'compute_86' error: command "
                               "'/usr/local/cuda-11.0/bin/nvcc' failed with exit code 1")
    assert "exitcode" in report.facts                 # a fact that many failures share
    assert not _is_generic(report, signature_of_line("nvcc fatal   : Unsupported gpu architecture 'compute_86'"))
    assert _is_generic(report, signature_of_line("error: command 'gcc' failed with exit code 1"))


def test_nccls_catch_all_errors_are_symptoms_with_many_causes():
    from kb.match import _is_generic

    report = signature_of_line("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/"
                               "c10d/NCCLUtils.hpp:268, unhandled system error (run with NCCL_DEBUG=INFO for details), "
                               "NCCL version 2.21.5")
    entry = signature_of_line("RuntimeError: NCCL error in: ../torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled "
                              "system error, NCCL version 2.7.8")
    assert report.facts.get("nccl.error") == "ncclSystemError" and _is_generic(report, entry)
    invalid = signature_of_line("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, invalid usage, NCCL version "
                                "2.14.3 ncclInvalidUsage: This usually reflects invalid usage of NCCL library.")
    assert not _is_generic(invalid, invalid)


def test_one_rare_function_of_the_traceback_that_the_entry_names_counts(corpus_diagnoser):
    matcher = corpus_diagnoser(DATA / "corpus_frames").matcher
    kwargs = next(d for d in matcher.docs if d.startswith("generate_unused_model_kwargs"))
    oom = next(d for d in matcher.docs if d.startswith("eval_oom_long_outputs"))
    frames = ["main", "step", "_validate_model_kwargs"]
    # the kwargs entry names one function of the three, but only it in the KB does: that says where the failure is
    assert matcher.coverage(frames, kwargs) > 0.3
    # one common name (`step`, `from_pretrained`: many entries name them) says nothing
    assert matcher.coverage(frames, oom) == 0.0
    assert matcher.coverage(["from_pretrained", "_load_state_dict_into_meta_model"], kwargs) == 0.0
