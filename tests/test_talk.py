"""What of the reporter's words retrieval reads: courtesy and pointers at the paste are dropped, content is kept."""
import pytest

from kb.index.talk import substance

TALK = [
    "大家好，我在用八卡训练的时候遇到了下面这个报错，网上搜了很久没找到答案，请问怎么解决？谢谢！",
    "I have searched the issues and could not find anything similar. Any help is appreciated, thanks!",
    "The previous code couldn't run directly. The following error would occur:",
    "Hi everyone, hope someone can help.",
]
CONTENT = [
    ("Hi, I am training llama with deepspeed zero3 and got this error", "deepspeed zero3"),
    ("fp16 works fine, only bf16 fails.", "bf16"),
    ("It runs out of memory in evaluation but training is fine.", "evaluation"),
    ("谢谢！用 Qwen2-7B 做 LoRA 微调时显存溢出", "显存溢出"),
    ("它一直卡住，没有任何输出", "卡住"),
    ("it hangs", "hangs"),
]


@pytest.mark.parametrize("text", TALK)
def test_courtesy_names_nothing(text):
    assert substance(text) == ""


@pytest.mark.parametrize("text,kept", CONTENT)
def test_words_that_name_something_stay(text, kept):
    assert kept in substance(text)


def test_only_the_courtesy_clauses_go():
    out = substance("Thanks in advance! The loss turns NaN after the warmup, and only with gradient accumulation.")
    assert "Thanks" not in out and "NaN after the warmup" in out and "gradient accumulation" in out
