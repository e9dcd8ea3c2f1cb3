"""Errors whose words are the same but whose names differ (another tokenizer class, another keyword argument).

An entry whose cause is a name explains a report with that name; a report with another name in the same words is
the same kind of error and needs the rest of the report to point to the entry. Own postmortems in
`tests/data/corpus_names/`, ingested into a real KB.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.traceback.signature import divergence, signature_of_line

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parent / "data" / "corpus_names"
LLAMA = "ValueError: Tokenizer class LLaMATokenizer does not exist or is not currently imported."


@pytest.fixture(scope="module")
def diagnoser(corpus_diagnoser):
    return corpus_diagnoser(CORPUS)


def test_divergence():
    qwen = signature_of_line(LLAMA.replace("LLaMATokenizer", "QWenTokenizer"))
    assert divergence(qwen, signature_of_line(LLAMA)) == (["QWenTokenizer"], ["LLaMATokenizer"])
    assert divergence(signature_of_line(LLAMA), signature_of_line(LLAMA)) == ([], [])
    # A message that only says more is not a rename.
    short = signature_of_line("TypeError: LoraConfig.__init__() got an unexpected keyword argument")
    full = signature_of_line("TypeError: LoraConfig.__init__() got an unexpected keyword argument 'layer_replication'")
    assert divergence(short, full) == ([], [])



def test_the_owner_of_a_called_method_is_no_other_name_but_a_constructors_is():
    """A user's Trainer subclass names its own class in the error; the method and the keyword are the API."""
    kwarg = "TypeError: {}() got an unexpected keyword argument 'num_items_in_batch'"
    mine = signature_of_line(kwarg.format("CustomTrainerForgetting.compute_loss"))
    theirs = signature_of_line(kwarg.format("CustomTrainer.compute_loss"))
    assert divergence(mine, theirs) == ([], [])
    # another method, or another keyword, of the same owner still parts ways
    other_method = signature_of_line(kwarg.format("CustomTrainer.training_step"))
    assert divergence(theirs, other_method) == (["compute_loss"], ["training_step"])
    other_kwarg = signature_of_line(kwarg.format("CustomTrainer.compute_loss").replace("num_items_in_batch", "return_outputs"))
    assert divergence(theirs, other_kwarg) == (["num_items_in_batch"], ["return_outputs"])
    # a plain method name is a name too: a model's forward() is another API than a trainer's compute_loss()
    forward = signature_of_line(kwarg.format("Qwen2VLForConditionalGeneration.forward"))
    assert divergence(forward, theirs) == (["forward"], ["compute_loss"])
    assert divergence(forward, signature_of_line(kwarg.format("LlamaForCausalLM.forward"))) == ([], [])
    # a constructor's class is the API itself
    init = "TypeError: {}.__init__() got an unexpected keyword argument 'use_dora'"
    assert divergence(signature_of_line(init.format("LoraConfig")), signature_of_line(init.format("BoftConfig"))) \
        == (["LoraConfig"], ["BoftConfig"])


def test_messages_that_part_ways_diverge_but_a_longer_form_or_a_typo_does_not():
    base = "ValueError: You can't train a model that has been loaded in 8-bit precision on "
    multiple = signature_of_line(base + "multiple devices.")
    other = signature_of_line(base + "a different device than the one you're training on.")
    assert divergence(multiple, other) == (["multiple", "devices"], ["different", "device", "than", "one", "re", "training"])
    longer = signature_of_line(base + "multiple devices. Make sure you loaded the model on the right device.")
    assert divergence(multiple, longer) == ([], [])
    typo = signature_of_line(base.replace("train", "trian") + "multiple devices.")
    assert divergence(multiple, typo) == ([], [])
    # Another model named in the same long message is the same message.
    hub = ("OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find it in the cached "
           "files and it looks like {} is not the path to a directory containing a file named config.json.")
    assert divergence(signature_of_line(hub.format("acme/tablerec_v2")),
                      signature_of_line(hub.format("bert-base-uncased"))) == ([], [])


def test_the_entrys_own_name_matches(diagnoser):
    diag = diagnoser.diagnose(LLAMA)
    assert diag.verdict == "match" and diag.matches[0].source == "tokenizer_class_casing_zh.md", diag.reason


def test_another_name_in_the_same_words_alone_is_not_matched(diagnoser):
    text = ("  File \"/venv/lib/python3.9/site-packages/peft/auto.py\", line 124, in from_pretrained\n"
            "    tokenizer = AutoTokenizer.from_pretrained(pretrained_model_name_or_path)\n"
            "  File \"/venv/lib/python3.9/site-packages/transformers/models/auto/tokenization_auto.py\", line 724, "
            "in from_pretrained\n    raise ValueError(\n" + LLAMA.replace("LLaMATokenizer", "QWenTokenizer"))
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "no_match"
    related = diag.related[0]
    assert related.source == "tokenizer_class_casing_zh.md"
    assert "QWenTokenizer" in related.reason and "LLaMATokenizer" in related.reason


def test_another_name_with_a_report_that_points_to_the_entry_is_matched(diagnoser):
    text = (
        "Loading the LoRA adapter we trained last week fails on the inference box (it has an older peft):\n\n"
        "```\n"
        "Traceback (most recent call last):\n"
        "  File \"/srv/infer.py\", line 21, in <module>\n"
        "    model = PeftModel.from_pretrained(base, \"./adapter\")\n"
        "  File \"/venv/lib/python3.10/site-packages/peft/peft_model.py\", line 325, in from_pretrained\n"
        "    config = PEFT_TYPE_TO_CONFIG_MAPPING[PeftConfig._get_peft_type(model_id)].from_pretrained(model_id)\n"
        "  File \"/venv/lib/python3.10/site-packages/peft/config.py\", line 152, in from_pretrained\n"
        "    return cls.from_peft_type(**kwargs)\n"
        "  File \"/venv/lib/python3.10/site-packages/peft/config.py\", line 119, in from_peft_type\n"
        "    return config_cls(**kwargs)\n"
        "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'\n"
        "```\n"
    )
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "match", diag.reason
    assert diag.matches[0].source == "peft_config_newer_version_en.md"
    # The error alone did not decide it (another keyword than the entry's): the same line without the rest of the
    # report is no answer. The entry's own line is one by itself.
    assert diagnoser.diagnose(text.splitlines()[-2]).verdict == "no_match"
    own = diagnoser.diagnose("TypeError: LoraConfig.__init__() got an unexpected keyword argument 'layer_replication'")
    assert own.verdict == "match"


def test_a_bare_line_with_another_keyword_is_not_matched(diagnoser):
    # A keyword the user made up in their own LoraConfig(...) call: nothing says "adapter saved by a newer PEFT".
    diag = diagnoser.diagnose("TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_original_init'")
    assert diag.verdict == "no_match"
    assert "use_original_init" in diag.related[0].reason


def test_prose_that_points_to_another_entry_more_does_not_corroborate(diagnoser):
    # The sentence shares words with the PEFT entry (LoRA, adapter config), but it points to the shared-memory entry
    # first; a report whose error is only "another keyword in the same words" is not confirmed by it.
    text = ("Our LoRA adapter config from peft is loaded in a Docker container with a 64 MB /dev/shm where NCCL also "
            "fails with an unhandled system error.\n"
            "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_original_init'")
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "no_match", diag.reason
    peft = next(m for m in diag.related if m.source == "peft_config_newer_version_en.md")
    assert "use_original_init" in peft.reason


@pytest.mark.parametrize("courtesy", [
    "大家好，我在用八卡训练的时候遇到了下面这个报错，网上搜了很久没找到答案，请问怎么解决？谢谢！\n\n{}",
    "Hi everyone!\n\n{}\n\nI have searched the issues and could not find anything similar. Any help is appreciated, thanks!",
])
def test_courtesy_around_the_error_does_not_corroborate(diagnoser, courtesy):
    # Retrieval over a greeting still ranks some entry first; that must not count as the report pointing to it.
    decision = diagnoser.matcher.match(courtesy.format(
        "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_original_init'"))
    assert decision.verdict == "no_match", decision.reason
    peft = next(c for c in decision.ranked if c.doc_id.startswith("peft_config"))
    assert peft.corroboration == 0.0


def test_a_name_broken_by_a_wrap_is_the_same_name():
    wrapped = signature_of_line("RuntimeError: pass find_unused_parameters=True to torch.nn.parallel.DistributedD "
                                "ataParallel, and make sure all forward outputs participate in the loss.")
    whole = signature_of_line("RuntimeError: pass find_unused_parameters=True to torch.nn.parallel."
                              "DistributedDataParallel, and make sure all forward outputs participate in the loss.")
    assert divergence(wrapped, whole) == ([], [])
    # a shorter name that is not followed by the rest of the other is another name
    other = signature_of_line("RuntimeError: pass find_unused_parameters=True to torch.nn.parallel.DistributedD "
                              "instead, and make sure all forward outputs participate in the loss.")
    assert divergence(other, whole) == (["DistributedD"], ["DistributedDataParallel"])


def test_another_release_of_the_same_model_is_the_same_name_but_a_model_without_a_release_number_is_not():
    t = ("ValueError: You are attempting to perform batched generation with padding_side='right' this may lead to "
         "unexpected behaviour for Flash Attention version of {}. Make sure to call tokenizer.padding_side = 'left'.")
    assert divergence(signature_of_line(t.format("Qwen2_5_VL")), signature_of_line(t.format("Qwen2VL"))) == ([], [])
    # the first Qwen's remote-code tokenizer is another thing than a release of the library's own
    c = "ValueError: Tokenizer class {} does not exist or is not currently imported."
    assert divergence(signature_of_line(c.format("Qwen2Tokenizer")), signature_of_line(c.format("QWenTokenizer"))) \
        == (["Qwen2Tokenizer"], ["QWenTokenizer"])
    # other letters are another model
    assert divergence(signature_of_line(t.format("Qwen2VL")), signature_of_line(t.format("Llama3VL")))[0] == ["Qwen2VL"]
