"""A causal-LM tokenizer without a pad token, asked to pad a batch.

The tokenizer is built here (a word-level vocabulary with `<s>`, `</s>`, `<unk>` and no `<pad>`, as GPT-2 / Llama
tokenizers ship) and wrapped in transformers' PreTrainedTokenizerFast; batching two texts of different lengths with
`padding=True` raises transformers' "Asking to pad but the tokenizer does not have a padding token".

--fix sets `tokenizer.pad_token = tokenizer.eos_token`: the batch pads, the padded positions carry the EOS id and an
attention mask of 0, and the real tokens are unchanged.
"""
import argparse

from tokenizers import Tokenizer
from tokenizers.models import WordLevel
from tokenizers.pre_tokenizers import Whitespace
from transformers import PreTrainedTokenizerFast

WORDS = ["<s>", "</s>", "<unk>", "the", "loss", "is", "nan", "again", "after", "resume"]


def make_tokenizer() -> PreTrainedTokenizerFast:
    core = Tokenizer(WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<unk>"))
    core.pre_tokenizer = Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="<unk>")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fix", action="store_true", help="pad with the EOS token")
    fix = parser.parse_args().fix

    tokenizer = make_tokenizer()
    print(f"pad_token: {tokenizer.pad_token!r}, eos_token: {tokenizer.eos_token!r}", flush=True)
    if fix:
        tokenizer.pad_token = tokenizer.eos_token
    texts = ["the loss is nan again", "after resume"]
    batch = tokenizer(texts, padding=True)          # raises without a pad token
    alone = [tokenizer(t)["input_ids"] for t in texts]
    eos = tokenizer.eos_token_id
    short = batch["input_ids"][1]
    if (short[:len(alone[1])] != alone[1] or set(short[len(alone[1]):]) != {eos}
            or batch["attention_mask"][1] != [1] * len(alone[1]) + [0] * (len(short) - len(alone[1]))):
        raise SystemExit(f"unexpected padding: {batch}")
    print(f"repro-check: passed: with pad_token = eos_token the batch pads to {len(short)} tokens, pad positions "
          f"hold id {eos} with attention mask 0", flush=True)


if __name__ == "__main__":
    main()
