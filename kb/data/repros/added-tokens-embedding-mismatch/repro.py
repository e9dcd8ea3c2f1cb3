"""Special tokens added to the tokenizer, the model's embedding left at the old vocabulary size.

A tiny Llama (transformers' LlamaForCausalLM from a config, random weights, vocabulary 16) and a word-level tokenizer
with the same 16 entries; adding chat markers `<|im_start|>` / `<|im_end|>` gives them ids 16 and 17. A batch with
them indexes past the embedding's last row: on CPU torch raises "IndexError: index out of range in self" (on a GPU
the same lookup is the device-side assert `srcIndex < srcSelectDimSize`).

--fix calls `model.resize_token_embeddings(len(tokenizer))` first: the forward pass works, the logits cover all 18
ids, and the 16 original embedding rows are unchanged.
"""
import argparse

import torch
from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

WORDS = ["<s>", "</s>", "<unk>", "user", "assistant", "hello", "how", "are", "you", "fine", "thanks", "the", "model",
         "says", "hi", "ok"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="resize the embeddings to len(tokenizer)")
    fix = parser.parse_args().fix

    core = Tokenizer(WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    core.pre_tokenizer = Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(WORDS), hidden_size=32, intermediate_size=64,
                                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2))
    old_rows = model.get_input_embeddings().weight.detach().clone()
    tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    print(f"len(tokenizer) = {len(tokenizer)}, embedding rows = {model.get_input_embeddings().num_embeddings}",
          flush=True)
    if fix:
        model.resize_token_embeddings(len(tokenizer))
    ids = tokenizer("<|im_start|> user hello how are you <|im_end|>", return_tensors="pt")["input_ids"]
    print(f"input_ids max {ids.max().item()}", flush=True)
    logits = model(input_ids=ids).logits               # raises while the embedding is too small
    rows = model.get_input_embeddings().weight
    if logits.shape[-1] != len(tokenizer) or not torch.equal(rows[:len(WORDS)], old_rows):
        raise SystemExit(f"logits over {logits.shape[-1]} ids; original rows changed: "
                         f"{not torch.equal(rows[:len(WORDS)], old_rows)}")
    print(f"repro-check: passed: after resize_token_embeddings({len(tokenizer)}) the forward pass covers all ids and "
          f"the {len(WORDS)} original rows are unchanged", flush=True)


if __name__ == "__main__":
    main()
