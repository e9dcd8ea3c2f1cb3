import json, random
Q=[]
def add(kind, exp, src, note, text): Q.append(dict(kind=kind, expected=(("corpus/"+exp) if exp else None), source=src, note=note, text=text.strip("\n")+"\n"))

A="h32_datasets_fsspec_cache_incompat_en.md"
B="h32_llama3_eot_id_stop_token_zh.md"
C="h32_arrow_json_mixed_type_rows_en.md"
Dd="h32_map_batched_row_count_mismatch_zh.md"
E="h32_base_model_no_chat_template_zh.md"
F="h32_iterable_dataset_needs_max_steps_en.md"
G="h32_vlm_cutoff_len_truncates_image_tokens_zh.md"
H="h32_arrow_offset_overflow_large_column_zh.md"
I="h32_sentencepiece_missing_tokenizer_en.md"
J="h32_trl_sfttrainer_args_moved_to_sftconfig_en.md"
K="h32_llamafactory_dataset_dir_cwd_zh.md"

# ---------------- positives ----------------
add("positive",A,"googlecolab/colabtools#5338","Colab runtime with old datasets + new fsspec; commenters confirm `pip install -U datasets` fixes it. Trimmed localhost links and all comments (fix).","""
NotImplementedError                       Traceback (most recent call last)
<ipython-input-15-67c9df501452> in <cell line: 0>()
      2 from datasets import load_dataset
      3 
----> 4 raw_ds = load_dataset(
      5     "json",
      6     data_files={"train": "output1145.json"},

1 frames
/usr/local/lib/python3.11/dist-packages/datasets/builder.py in as_dataset(self, split, run_post_process, verification_mode, ignore_verifications, in_memory)
   1171                 ds = post_processed
   1172                 recorded_checksums = {}
-> 1173                 record_checksums = False
   1174                 for resource_name, resource_path in resources_paths.items():
   1175                     size_checksum = get_size_checksum_dict(resource_path)

NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.
""")
add("positive",A,"modal-labs/doppel-bot#7","Project pinned datasets==2.10.1 while fsspec moved to 2023.10; fix was to unpin/upgrade datasets. Trimmed the sentence naming the pin and the SO link.","""
Running `modal run src.finetune --user="<user>"` is giving error:

Dataset json downloaded and prepared to file:///root/.cache/huggingface/datasets/json/default-18a2e225bb973cb6/0.0.0/0f7e3662623656454fcd2b650f34e886a7db4b9104504885bd462096cc7a9f51. Subsequent calls will reuse thTraceback (most recent call last):
  File "/pkg/modal/_container_entrypoint.py", line 342, in handle_input_exception
    yield
  File "/pkg/modal/_container_entrypoint.py", line 460, in run_inputs
    res = imp_fun.fun(*args, **kwargs)
  File "/root/src/finetune.py", line 249, in finetune
    data = load_dataset("json", data_files=data_path)
  File "/opt/conda/lib/python3.9/site-packages/datasets/load.py", line 1794, in load_dataset
    ds = builder_instance.as_dataset(split=split, verification_mode=verification_mode, in_memory=keep_in_memory)
  File "/opt/conda/lib/python3.9/site-packages/datasets/builder.py", line 1089, in as_dataset
    raise NotImplementedError(f"Loading a dataset cached in a {type(self._fs).__name__} is not supported.")
NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.
""")
add("positive",A,"shibing624/MedicalGPT#285","Maintainer answer: 更新datasets (old datasets vs new fsspec). One-liner; title and answer removed.","""
NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.
""")
add("positive",A,"ed-donner/llm_engineering#282","Colab load_dataset of a Hub dataset failing with the LocalFileSystem error; same old-datasets/new-fsspec mismatch (thread open; cause taken from identical Colab reports). Cut-off: final exception line and screenshot removed.","""
I am doing Week 7 Day 2 and I get this error when calling dataset = load_dataset(DATASET_NAME).
I am not sure how to proceed.

---------------------------------------------------------------------------
NotImplementedError                       Traceback (most recent call last)
<ipython-input-17-3418df6cad50> in <cell line: 0>()
----> 1 dataset = load_dataset(DATASET_NAME)
      2 train = dataset['train']
      3 test = dataset['test']

1 frames
/usr/local/lib/python3.11/dist-packages/datasets/builder.py in as_dataset(self, split, run_post_process, verification_mode, ignore_verifications, in_memory)
   1171         is_local = not is_remote_filesystem(self._fs)
   1172         if not is_local:
-> 1173             raise NotImplementedError(f"Loading a dataset cached in a {type(self._fs).__name__} is not supported.")
   1174         if not os.path.exists(self._output_dir):
   1175             raise FileNotFoundError(
""")
add("positive",B,"oobabooga/textgen#5885","Llama-3 instruct ends turns with <|eot_id|> while eos_token is <|end_of_text|>; fix was eos_token=<|eot_id|> / multiple eos ids. Prose only; removed the 'Quick fix' paragraph, screenshots and links.","""
llama3 doesn't stop correctly

and the `stop` parameter (`stoping_strings`) only works when trun `skip_special_tokens` off
so if keep `skip_special_tokens` on, `stoping_strings` can't stop outputing because it can't match the `<|eot_id|>` from output
""")
add("positive",C,"RUC-NLPIR/FlashRAG#132","Reporter's own debugging: pyarrow JSON reader needs consistent column types; several subsets mix string/number in metadata fields. Removed the diagnosis paragraph and the load_dataset call (it contains the project's own org/repo id).","""
While I was trying to load the `popqa`, `domainrag` and `quartz` dataset from huggingface,

I got the following error
```
ArrowInvalid: JSON parse error: Column(/metadata/o_wiki_title) changed from string to number in row 1232
```

```
ArrowInvalid                              Traceback (most recent call last)
Cell In[2], line 1
----> 1 paj.read_json('./popqa/test.jsonl')

File ~/Software/miniconda3/envs/flexrag/lib/python3.11/site-packages/pyarrow/_json.pyx:308, in pyarrow._json.read_json()

File ~/Software/miniconda3/envs/flexrag/lib/python3.11/site-packages/pyarrow/error.pxi:155, in pyarrow.lib.pyarrow_internal_check_status()

File ~/Software/miniconda3/envs/flexrag/lib/python3.11/site-packages/pyarrow/error.pxi:92, in pyarrow.lib.check_status()
```
""")
add("positive",C,"huggingface/datasets#7322","Maintainer: Arrow expects fixed types per column; this dataset's rows are not Arrow-compatible. Prose only (error line was in the title, removed).","""
### Describe the bug

Encountering an error while loading the ```liuhaotian/LLaVA-Instruct-150K dataset```.

### Steps to reproduce the bug

```
from datasets import load_dataset
fw =load_dataset("liuhaotian/LLaVA-Instruct-150K")
```

### Expected behavior

I have tried loading the dataset both on my own server and on Colab, and encountered errors in both instances.

### Environment info

```
- `datasets` version: 3.2.0
- Platform: Linux-6.1.85+-x86_64-with-glibc2.35
- Python version: 3.10.12
- `huggingface_hub` version: 0.26.3
- PyArrow version: 17.0.0
- Pandas version: 2.2.2
- `fsspec` version: 2024.9.0
```
""")
add("positive",Dd,"huggingface/datasets#2070","return_overflowing_tokens in a batched map produces more rows (1180) than the input batch while other columns keep 1178 rows; fix remove_columns / map via overflow_to_sample_mapping. Notebook link removed.","""
Hello, I am using the huggingface official question answering example notebook.

In the prepare_validation_features function, I made some modifications to tokenize a new set of quesions with the original contexts and save them in three different list called candidate_input_dis, candidate_attetion_mask and candidate_token_type_ids. When I try to run the next cell for dataset.map, I got the following error:

`ArrowInvalid: Column 1 named candidate_attention_mask expected length 1180 but got length 1178`

My code is as follows:

```
def generate_candidate_questions(examples):
  val_questions = examples["question"]
  candididate_questions = random.sample(datasets["train"]["question"], len(val_questions))
  candididate_questions = [x[:max_length] for x in candididate_questions]
  return candididate_questions

def prepare_validation_features(examples, use_mixing=False):
  pad_on_right = tokenizer.padding_side == "right"
  tokenized_examples = tokenizer(
      examples["question" if pad_on_right else "context"],
      examples["context" if pad_on_right else "question"],
      truncation="only_second" if pad_on_right else "only_first",
      max_length=max_length,
      stride=doc_stride,
      return_overflowing_tokens=True,
""")
add("positive",Dd,"huggingface/transformers#15398","run_seq2seq_qa.py on squad_v2: overflowing contexts multiply rows during batched map while the labels column keeps the original batch length (1007 vs 1000); fixed in the example script. Prose/steps only, error line lived in the title; notebook link removed.","""
## Environment info
- `transformers` version: 4.17.0.dev0
- Platform: Linux-5.4.144+-x86_64-with-Ubuntu-18.04-bionic
- Python version: 3.7.12
- PyTorch version (GPU?): 1.10.0+cu111 (True)
- Using GPU in script?: Yes
- Using distributed or parallel set-up in script?: No

Model I am using (Bert, XLNet ...): T5-base

The problem arises when using:
* [x] the official example scripts

The tasks I am working on is:
* [x] an official GLUE/SQUaD task: SQUaD

## To reproduce
I have been able to reproduce this issue on Google Colab as well as my local machine.

1. Clone the transformers repo and run the train_seq2seq_qa.py script with the following command:
python examples/pytorch/question-answering/run_seq2seq_qa.py \\
  --model_name_or_path t5-small \\
  --dataset_name squad_v2 \\
  --context_column context \\
""")
add("positive",Dd,"shibing624/MedicalGPT#305","group_texts in batched map (num_proc=10) returns 709 rows for a 1000-row batch while another column keeps 1000 -> ArrowInvalid; issue closed as bug (see uncertain labels). Title removed.","""
### Describe the bug
Grouping texts in chunks of 512 (num_proc=10):   0%|          | 0/361878 [00:01<?, ? examples/s]
multiprocess.pool.RemoteTraceback: 
\"\"\"
Traceback (most recent call last):
  File "/home/centos/anaconda3/envs/cpt/lib/python3.8/site-packages/multiprocess/pool.py", line 125, in worker
    result = (True, func(*args, **kwds))
  File "/home/centos/anaconda3/envs/cpt/lib/python3.8/site-packages/datasets/utils/py_utils.py", line 614, in _write_generator_to_queue
    for i, result in enumerate(func(**kwargs)):
  File "/home/centos/anaconda3/envs/cpt/lib/python3.8/site-packages/datasets/arrow_dataset.py", line 3489, in _map_single
    writer.write_batch(batch)
  File "/home/centos/anaconda3/envs/cpt/lib/python3.8/site-packages/datasets/arrow_writer.py", line 560, in write_batch
    pa_table = pa.Table.from_arrays(arrays, schema=schema)
  File "pyarrow/table.pxi", line 3986, in pyarrow.lib.Table.from_arrays
  File "pyarrow/table.pxi", line 3266, in pyarrow.lib.Table.validate
  File "pyarrow/error.pxi", line 91, in pyarrow.lib.check_status
pyarrow.lib.ArrowInvalid: Column 1 named input_ids expected length 1000 but got length 709
\"\"\"
""")
add("positive",E,"OpenBMB/MiniCPM-V#916","MiniCPM-V-2's tokenizer has no chat_template (built on MiniCPM-2B); maintainer points to the base model's template. Chinese; maintainer answer removed.","""
我使用Transformers库调用了 MiniCPM-V-2进行微调，我希望自己处理文本，发现在调用 `tokenizer.apply_chat_template` 方法的时候返回了如下报错：

```
Cannot use chat template functions because **tokenizer.chat_template is not set**
and no template argument was passed! For information about writing 
templates and setting the tokenizer.chat_template attribute, please 
see the documentation at https://huggingface.co/docs/transformers/main/en/chat_templating
```

我有以下几个问题：
1. MiniCPM-2-V 的 chat_template 是否需要自己设置？有没有哪里可以了解训练的时候使用的 template 是什么样子的
2. 是否可以直接套用 MiniCPM（纯文本模型）的 template？
""")
add("positive",E,"langchain-ai/langchain#29126","meta-llama/Llama-3.2-3B is a base model whose tokenizer_config has no chat_template, so ChatHuggingFace's apply_chat_template fails. Code only (error line was in the title); checklist removed.","""
```python

import torch
from transformers import pipeline
from transformers import AutoModelForCausalLM, AutoTokenizer
from langchain_huggingface import ChatHuggingFace, HuggingFacePipeline

model_id = "meta-llama/Llama-3.2-3B"
tokenizer = AutoTokenizer.from_pretrained(model_id)
model = AutoModelForCausalLM.from_pretrained(model_id)

pipe = pipeline("text-generation", model=model, tokenizer=tokenizer)

hf_pipe_llm = HuggingFacePipeline(
    pipeline=pipe
)
tokenizer = AutoTokenizer.from_pretrained(model_id)

print("hf_pipe_llm.pipeline.tokenizer.chat_template -----------")
print(hf_pipe_llm.pipeline.tokenizer.chat_template)
```
""")
add("positive",F,"huggingface/datasets#5773","Dataset produced as IterableDataset (no __len__) passed to Seq2SeqTrainer without max_steps. Trimmed maintainer questions.","""
when train using data  precessored by the datasets, I get follow warning and it leads to that I can not set epoch numbers:

this is a detail error info：
```
Traceback (most recent call last):
  File "finetune.py", line 177, in <module>
    whisper_finetune(traindir,devdir,outdir)
  File "finetune.py", line 161, in whisper_finetune
    trainer = Seq2SeqTrainer(
  File "/home/ybZhang/miniconda3/envs/whister/lib/python3.8/site-packages/transformers/trainer_seq2seq.py", line 56, in __init__
    super().__init__(
  File "/home/ybZhang/miniconda3/envs/whister/lib/python3.8/site-packages/transformers/trainer.py", line 567, in __init__
    raise ValueError(
ValueError: The train_dataset does not implement __len__, max_steps has to be specified. The number of steps needs to be known in advance for the learning rate scheduler.
```
""")
add("positive",G,"hiyouga/LlamaFactory#9313","Qwen2.5-VL full SFT: image tokens truncated by small cutoff_len; reporter confirms raising cutoff_len to 4096 fixed it. Cut-off traceback (never reaches the ValueError); Chinese title removed.","""
### System Info

- `llamafactory` version: 0.9.4.dev0
- Platform: Linux-5.15.0-139-generic-x86_64-with-glibc2.31
- Python version: 3.11.13
- PyTorch version: 2.9.0+cu128 (GPU)
- Transformers version: 4.57.0
- Datasets version: 4.0.0
- Accelerate version: 1.10.1
- PEFT version: 0.17.1
- GPU type: NVIDIA A800 80GB PCIe
- GPU number: 4
- TRL version: 0.9.6
- DeepSpeed version: 0.16.9

### Reproduction

[rank0]: Traceback (most recent call last):
[rank0]:   File "/data/X-D-Lab/hyz_0510/LLaMA-Factory/src/llamafactory/launcher.py", line 180, in <module>
[rank0]:     run_exp()
[rank0]:   File "/data/X-D-Lab/hyz_0510/LLaMA-Factory/src/llamafactory/train/tuner.py", line 110, in run_exp
[rank0]:     _training_function(config={"args": args, "callbacks": callbacks})
[rank0]:   File "/data/X-D-Lab/hyz_0510/LLaMA-Factory/src/llamafactory/train/tuner.py", line 72, in _training_function
[rank0]:     run_sft(model_args, data_args, training_args, finetuning_args, generating_args, callbacks)
""")
add("positive",G,"QwenLM/Qwen3-VL#556","Multi-image LoRA SFT of qwen2-vl; commenter fixed it by setting cutoff_len much larger (image tokens were being cut). Prose only; error line was in the title; link removed.","""
I met this problem when sft qwen2-vl-7b using lora, training data is multi-images QA.

What happened ? I used to be able to finetune Qwen2-VL with multiple images just fine. What is the bug now ?!?!

anyone have solution for this mismatch problem? i use llamafactory to train qwen2-vl
""")
add("positive",H,"hiyouga/LlamaFactory#7526","~20M records in one JSON file -> one Arrow chunk over 2GB when combining chunks; reporter fixed it by splitting into smaller files (fix comment removed). Chinese.","""
### System Info

[rank0]:     pa_table = pa_table.combine_chunks()
[rank0]:   File "pyarrow/table.pxi", line 4512, in pyarrow.lib.Table.combine_chunks
[rank0]:   File "pyarrow/error.pxi", line 155, in pyarrow.lib.pyarrow_internal_check_status
[rank0]:   File "pyarrow/error.pxi", line 92, in pyarrow.lib.check_status
[rank0]: pyarrow.lib.ArrowInvalid: offset overflow while concatenating arrays

### Others

数据集大概有20M条数据存在一个json文件里面，在读取的时候出现了pyarrow.lib.ArrowInvalid: offset overflow while concatenating arrays这个报错，想问问大家有什么比较好的解决办法？
""")
add("positive",H,"StarsfieldAI/R1-V#189","Own dataset with large embedded images: map writer batch exceeds Arrow 32-bit offsets (reporter points at picture size; thread open, see uncertain labels). Traceback path lines dropped (conda env named after the project).","""
When I run the run_grpo.sh on my own dataset, I get the error  pyarrow.lib.ArrowInvalid: offset overflow while concatenating arrays. It seems that the size of the picture is too large. If I compress my pictures, I may lose the features. How to fix the error?
[rank7]: Traceback (most recent call last):
[rank7]:     writer.finalize()  # close_stream=bool(buf_writer is None))  # We only close if we are writing in a file
[rank7]:     self.write_examples_on_file()
""")
add("positive",I,"ChasonShi/MELoRA#4","sentencepiece missing in the environment for LlamaTokenizer. Link in the message removed.","""
I run step by step as instructed in readme, but I get the result of:

ImportError:
LlamaTokenizer requires the SentencePiece library but it was not found in your environment. Checkout the instructions on the
installation page of its repo and follow the ones
that match your environment. Please note that you may need to restart your runtime after installation.

do you know how to solve it?
""")
add("positive",I,"mlfoundations/open_clip#246","mT5 tokenizer cannot be instantiated without sentencepiece (the test env lacked it). Cut-off traceback, final line not shown.","""
This also fails the training & inference test for 'mt5-base-ViT-B-32'

```py
open_clip.get_tokenizer('mt5-base-ViT-B-32')
```
without sentencepiece
```
  File "/REDACTED/open_clip/src/open_clip/factory.py", line 75, in get_tokenizer
    tokenizer = HFTokenizer(config['text_cfg']['hf_tokenizer_name']) if 'hf_tokenizer_name' in config['text_cfg'] else tokenize
  File "/REDACTED/open_clip/src/open_clip/tokenizer.py", line 192, in __init__
    self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_name)
  File "/REDACTED/open_clip/.venv/lib/python3.9/site-packages/transformers/models/auto/tokenization_auto.py", line 619, in from_pretrained
    return tokenizer_class.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
  File "/REDACTED/open_clip/.venv/lib/python3.9/site-packages/transformers/tokenization_utils_base.py", line 1777, in from_pretrained
    return cls._from_pretrained(
  File "/REDACTED/open_clip/.venv/lib/python3.9/site-packages/transformers/tokenization_utils_base.py", line 1932, in _from_pretrained
    tokenizer = cls(*init_inputs, **init_kwargs)
  File "/REDACTED/open_clip/.venv/lib/python3.9/site-packages/transformers/models/t5/tokenization_t5_fast.py", line 134, in __init__
    super().__init__(
  File "/REDACTED/open_clip/.venv/lib/python3.9/site-packages/transformers/tokenization_utils_fast.py", line 120,
""")
add("positive",J,"unslothai/unsloth#1264","TRL >=0.12 moved dataset_text_field etc. to SFTConfig; commenters fix by using SFTConfig / pinning trl. Greeting and answers removed.","""
when using the Google Colab. I reached this step:

```
from trl import SFTTrainer
from transformers import TrainingArguments, DataCollatorForSeq2Seq
from unsloth import is_bfloat16_supported

trainer = SFTTrainer(
    model = model,
    tokenizer = tokenizer,
    train_dataset = dataset,
    dataset_text_field = 'text',
    max_seq_length = max_seq_length,
    data_collator = DataCollatorForSeq2Seq(tokenizer = tokenizer),
    dataset_num_proc = 2,
    packing = False, # Can make training 5x faster for short sequences.
    args = TrainingArguments(
        per_device_train_batch_size = 2,
        gradient_accumulation_steps = 4,
        warmup_steps = 5,
        max_steps = 60,
        learning_rate = 2e-4,
        fp16 = not is_bfloat16_supported(),
        bf16 = is_bfloat16_supported(),
        logging_steps = 1,
        optim = "adamw_8bit",
        output_dir = "outputs",
    ),
)
```

However, I get the following error:
`TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'dataset_text_field'` . Is there any method of fixing this issue?
""")
add("positive",K,"hiyouga/LlamaFactory#7703","Ran llamafactory-cli from /kaggle/working instead of the repo root so dataset_dir 'data' did not resolve; maintainer: cd into the repo. Removed the git clone line (contains repo URL).","""
### System Info

```text
!cd LLaMA-Factory;pip install -e ".[torch,metrics]"
!llamafactory-cli train /kaggle/working/LLaMA-Factory/examples/train_lora/qwen2vl_lora_sft.yaml
```

### Reproduction

```text
  File "/kaggle/working/LLaMA-Factory/src/llamafactory/data/parser.py", line 129, in get_dataset_list
    raise ValueError(f"Undefined dataset {name} in {DATA_CONFIG}.")
ValueError: Undefined dataset mllm_demo in dataset_info.json.
```
""")

# ---------------- near misses ----------------
add("near_miss",None,"meta-llama/llama#321","Looks like the Llama-3 eot_id stop problem, but this is the original LLaMA base model: not instruction-tuned, it rarely emits eos at all (commenter/maintainer explanation). Prose only.","""
Hi, when I tried your models, I found that the model can't generate eos token, which means the model can't stop generation.

Do you think it's because eos token wasn't included in the pretraining stage, or simply because the generation procedure hasn't finished? (which means the eos token can be generated for some cases)
""")
add("near_miss",None,"openlm-research/open_llama#69","Tokenizer load failure resembling the missing-sentencepiece case, but here sentencepiece is present; the slow->fast conversion path breaks with protobuf 4.x (needs protobuf 3 or the python protobuf implementation env var). Cut-off traceback.","""
(Transformers  v4.30.2) 

And since many packages require v4 now, protobuf is prone to upgrade, then this happens:

```python
---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[3], line 1

File ~/src/sd/sd/lib/python3.11/site-packages/transformers/models/auto/tokenization_auto.py:691, in AutoTokenizer.from_pretrained(cls, pretrained_model_name_or_path, *inputs, **kwargs)
    687     if tokenizer_class is None:
    688         raise ValueError(
    689             f"Tokenizer class {tokenizer_class_candidate} does not exist or is not currently imported."
    690         )
--> 691     return tokenizer_class.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
```
""")
add("near_miss",None,"eugr/llama-benchy#8","Tokenizer/protobuf loading error; maintainer: GGUF Hub repos ship no tokenizer, so installing protobuf cannot help -> use the parent (non-GGUF) model name for the tokenizer. Prose only, screenshots removed.","""
Hello, I've been giving this project a shot but no matter which way I attempt to run the project via virtual environment or uvx I consistently get an error around tokenizers. I am still new to this space so I'm not certain what the technical impact would be, and it does run a benchmark. I did install python3-protobuf as a system package but it didn't help in either case. 
""")
add("near_miss",None,"huggingface/blog#2751","Same image-token/feature check as the truncation case, but with equal counts (256 vs 256): Gemma-3 generate() with inputs_embeds builds the image mask by float comparison of embeddings (reporter diagnosis; thread open). Diagnosis paragraph and the title (which held the error line) trimmed.","""
gemma has problem when passing input embedding to model.generate() function forced to pass **input_ids otherwise it causes this error

if using input embedding special_image_mask.sum() =tensor(655363, device='cuda:0'),
""")
add("near_miss",None,"huggingface/transformers#36501","Streaming dataset error that resembles the max_steps requirement, but it comes from the run_clm example computing len(train_dataset) for max_train_samples; maintainer: example is not meant for streaming without max_train_samples. Maintainer replies removed.","""
### System Info

When I tried a LLM using run_clm.py in example, I met the following error:
```
File "/workspace/train.py", line 611, in main
    data_args.max_train_samples if data_args.max_train_samples is not None else len(train_dataset)
TypeError: object of type 'IterableDataset' has no len()
```
`len(train_dataset)` is not compatible with `IterableDataset`.

### Reproduction

Using the command in the README.
""")
add("near_miss",None,"huggingface/datasets#615","ArrowInvalid offset overflow lookalike, but caused by pyarrow>=1.0 Table.take() on a big table when indexing with a list of indices (library bug), not by oversized write batches. Cut-off traceback, never shows the final exception.","""
How to reproduce:

```python
from datasets import load_dataset

wiki = load_dataset("wikipedia", "20200501.en", split="train")
wiki[[0]]

---------------------------------------------------------------------------
ArrowInvalid                              Traceback (most recent call last)
<ipython-input-13-381aedc9811b> in <module>
----> 1 wikipedia[[0]]

~/Desktop/hf/nlp/src/datasets/arrow_dataset.py in __getitem__(self, key)
   1069             format_columns=self._format_columns,
   1070             output_all_columns=self._output_all_columns,
-> 1071             format_kwargs=self._format_kwargs,
   1072         )
   1073 

~/Desktop/hf/nlp/src/datasets/arrow_dataset.py in _getitem(self, key, format_type, format_columns, output_all_columns, format_kwargs)
   1037                 )
   1038             else:
-> 1039                 data_subset = self._data.take(indices_array)
   1040 
   1041             if format_type is not None:

~/.virtualenvs/hf-datasets/lib/python3.7/site-packages/pyarrow/table.pxi in pyarrow.lib.Table.take()

~/.virtualenvs/hf-datasets/lib/python3.7/site-packages/pyarrow/compute.py in take(data, indices, boundscheck)
    266     \"\"\"
    267     options = TakeOptions(boundscheck)
--> 268     return call_function('take', [data, indices], options)
""")
add("near_miss",None,"unslothai/unsloth-zoo#8","IterableDataset 'has no len()' crash, but from fix_untrained_tokens calling len(train_dataset) inside the library; fixed by the linked PR (not a max_steps issue). Diagnosis and fix text removed.","""
When using a dataset that inherits from IterableDataset, it causes training runs to crash with the following error:
```
│ /opt/conda/lib/python3.10/site-packages/unsloth_zoo/tokenizer_utils.py:238 in                    │
│ fix_untrained_tokens                                                                             │
│                                                                                                  │
│   235 │   pass                                                                                   │
│   236 │                                                                                          │
│   237 │   # Check the first 250, last 250 input_ids                                              │
│ ❱ 238 │   size_dataset = len(train_dataset)                                                      │
│   239 │   size = min(size_dataset, 250)                                                          │
│   240 │   for j in range(size):                                                                  │
│   241 │   │   input_ids = train_dataset[j]
TypeError: object of type 'IterableDataset' has no len()
```
""")
add("near_miss",None,"FLock-io/testnet-training-node-quickstart#14","SFTTrainer/dataset_text_field lookalike, but opposite direction: newer trl (>0.9.6) requires dataset_text_field or formatting_func when packing=False; fix was to pin trl<=0.9.6. One-liner.","""
ValueError: You passed packing=False to the SFTTrainer/SFTConfig, but you didn't pass a dataset_text_field or formatting_func argument.
""")
add("near_miss",None,"hiyouga/LlamaFactory#5341","'Undefined dataset ... in dataset_info.json' lookalike, but the user passed a file path as the dataset name instead of registering a name in dataset_info.json (labelled solved). Cut-off traceback; the final line carrying the path is not shown.","""
### System Info

Traceback (most recent call last):
  File "/root/miniconda3/envs/pytorch/bin/llamafactory-cli", line 8, in <module>
    sys.exit(main())
  File "/root/miniconda3/envs/pytorch/lib/python3.9/site-packages/llamafactory/cli.py", line 111, in main
    run_exp()
  File "/root/miniconda3/envs/pytorch/lib/python3.9/site-packages/llamafactory/train/tuner.py", line 50, in run_exp
    run_sft(model_args, data_args, training_args, finetuning_args, generating_args, callbacks)
  File "/root/miniconda3/envs/pytorch/lib/python3.9/site-packages/llamafactory/train/sft/workflow.py", line 46, in run_sft
    dataset_module = get_dataset(model_args, data_args, training_args, stage="sft", **tokenizer_module)
  File "/root/miniconda3/envs/pytorch/lib/python3.9/site-packages/llamafactory/data/loader.py", line 233, in get_dataset
    dataset = _get_merged_dataset(data_args.dataset, model_args, data_args, training_args, stage)
  File "/root/miniconda3/envs/pytorch/lib/python3.9/site-packages/llamafactory/data/loader.py", line 149, in _get_merged_dataset
    for dataset_attr in get_dataset_list(dataset_names, data_args.dataset_dir):
""")
add("near_miss",None,"iKernels/transformers-lightning#87","'has no len()' on an iterable dataset, but from the library's own compute_max_steps helper (bug fixed in the library), not from the HF Trainer max_steps rule. Description sentence removed, traceback kept.","""
> TypeError: object of type 'TransformersIterableDataset' has no len()
>     self.setup_optimizers(trainer)
>   File "/home/ubuntu/anaconda3/envs/nlp/lib/python3.8/site-packages/pytorch_lightning/accelerators/accelerator.py", line 374, in setup_optimizers
>     optimizers, lr_schedulers, optimizer_frequencies = self.training_type_plugin.init_optimizers(
>   File "/home/ubuntu/anaconda3/envs/nlp/lib/python3.8/site-packages/pytorch_lightning/plugins/training_type/training_type_plugin.py", line 190, in init_optimizers
>     return trainer.init_optimizers(model)
>   File "/home/ubuntu/anaconda3/envs/nlp/lib/python3.8/site-packages/pytorch_lightning/trainer/optimizers.py", line 34, in init_optimizers
>     optim_conf = model.configure_optimizers()
>   File "/home/ubuntu/anaconda3/envs/nlp/lib/python3.8/site-packages/transformers_lightning/models/transformers_model.py", line 38, in configure_optimizers
>     max_steps = utils.compute_max_steps(self.hparams, self.trainer)
>   File "/home/ubuntu/anaconda3/envs/nlp/lib/python3.8/site-packages/transformers_lightning/utils/distributed.py", line 25, in compute_max_steps
>     dataset_len = len(trainer.datamodule.train_dataset)
> TypeError: object of type 'TransformersIterableDataset' has no len()
""")
add("near_miss",None,"huggingface/transformers#8087","IterableDataset + Trainer lookalike, but a regression from a Trainer refactor: an IterableDataset that defines __len__ was given a RandomSampler; fixed by a follow-up PR. Links and the proposed code change removed.","""
I am using IterableDataset with __len__ in Trainer. This change makes it return a sampler and results in an error later. `ValueError: DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=<torch.utils.data.sampler.RandomSampler object at 0x7fa32c57b340>`

In my case, I wrap a `Dataset` using a class that inherits `IterableDataset`, and defines a `__len__()`.
The purpose is to implement smart batching. I use `IterableDataset` so I can control how to iterate the data.
""")
add("negative",None,"hiyouga/LlamaFactory#735","'Undefined dataset ... in dataset_info.json' lookalike (zh), but raised by the export/merge script whose dataset argument defaulted to alpaca_en after the user removed that entry; maintainer acknowledged. Error text was only in the title and a screenshot (both removed); the reporter's root-cause lines removed, so the report is prose + command.","""
qwen合并lora模型报错：
参数：
python src/export_model.py \\
    --model_name_or_path /model_weight/Qwen-7B-Chat \\
    --template chatml \\
    --finetuning_type lora \\
    --checkpoint_dir pt_checkpoint \\
    --output_dir /model_weight/merge
""")

# ---------------- negatives ----------------
add("negative",None,"LiveCodeBench/LiveCodeBench#107","datasets 4.0.0 removed support for dataset loading scripts; fix pin datasets==3.6.0 (sentence with the fix removed).","""
By default the installation instructions installs datasets==4.0.0 (released 10 hrs ago today).

    raise RuntimeError(f"Dataset scripts are no longer supported, but found {filename}")
RuntimeError: Dataset scripts are no longer supported, but found code_generation_lite.py
""")
add("negative",None,"cckuailong/SuperAdapters#2","Keys of the JSON records were capitalized (Instruction/Input/Output) so the expected lower-case fields were missing; maintainer: use lower-case keys; reporter confirmed. Reply removed.","""
I used this repo to finetune QWen base model. But it reports error : ValueError : Unable to create tensor , you should probably activate truncation and/or padding with 'padding=True' 'trunction=True' to have batched tensors with the same length.Perhaps you features("Instruction" in this case) have excessive nesting(inputs type 'list' where type 'int' is expected).

32G V100
transformers 4.30.2
finetuned data format
{
"Instruction":"XXX"
"Input":"XXX"
"Output":"XXX"
}
Data is loaded as a json file with each line representing a complete data record.
""")
add("negative",None,"patil-suraj/question_generation#6","Conflicting dependencies in the user's environment; worked in a fresh virtualenv with transformers 3.0 (reporter). Replies removed.","""
Getting this error:
    "Unable to create tensor, you should probably activate truncation and/or padding "
ValueError: Unable to create tensor, you should probably activate truncation and/or padding with 'padding=True' 'truncation=True' to have batched tensors with the same length.

Evan setting 'padding=True' 'truncation=True' is not helping

My whole code is as follows:
`
from pipelines import pipeline

text = "Python is an interpreted, high-level, general-purpose programming language. Created by Guido van Rossum and first released in 1991, Python's design philosophy emphasizes code readability with its notable use of significant whitespace."
nlp = pipeline("e2e-qg")
ques = nlp(text)
`
""")
add("negative",None,"modelscope/ms-swift#1513","KTO dataset used string labels; maintainer: label must be boolean true/false (plus a preprocessing fix PR). Chinese; screenshots and replies removed.","""
我的kto格式的数据集是这样的（截图）

这是我的执行命令：
#!/bin/bash
source activate swift

CUDA_VISIBLE_DEVICES=0 \\
swift rlhf \\
    --rlhf_type kto \\
    --model_id_or_path  /root/autodl-tmp/Qwen2-7B-Chat \\
    --model_type qwen2-7b-instruct \\
    --beta 0.1 \\
    --desirable_weight 1.0 \\
    --undesirable_weight 1.0 \\
    --sft_type  lora \\
    --dataset /root/swift/examples/pytorch/llm/kto.json \\
    --num_train_epochs  2  \\
    --lora_target_modules  ALL  \\
    --batch_size  1  \\
    --learning_rate  5e-5

但是最后还是一直报错KeyError: 'label'

明明数据集内已经有label键 但是我明明就有啊？一直解决不了，搞了一整天了
""")
add("negative",None,"modelscope/ms-swift#2095","Multi-turn 'messages' dataset preprocessed twice (bug label); the second preprocessor looks up the original key that the first one already renamed. Chinese; code link removed.","""
[rank0]:   File "/root/LLM/ms-swift/swift/llm/utils/preprocess.py", line 45, in new_preprocess
[rank0]:     row = preprocess(self, row)
[rank0]:   File "/root/LLM/ms-swift/swift/llm/utils/preprocess.py", line 232, in preprocess
[rank0]:     conversations = d[self.conversations_key]
[rank0]:   File "/root/miniconda3/envs/swift/lib/python3.9/site-packages/datasets/formatting/formatting.py", line 271, in __getitem__
[rank0]:     value = self.data[key]
[rank0]: KeyError: 'messages' 

数据集格式为
{"messages": [{"role": "user", "content": "aaaaa"}, {"role": "assistant", "content": "bbbbb"}, {"role": "user", "content": "ccccc"}, {"role": "assistant", "content": "ddddd"}]}

应该是这个语句报错了 上面一个preprocess 解析出来的dataset没有这个key 请问这里为什么还要preprocess一次
""")
add("negative",None,"huggingface/transformers#29752","Incorrect version comparison in transformers' jinja2 check (<= 3.0.0 instead of <) rejects jinja2==3.0.0; fixed upstream. Cut-off: the error text itself is not shown.","""
### System Info

- `transformers` version: 4.37.0
- Platform: Linux-4.14.105-1-tlinux3-0013-x86_64-with-glibc2.10
- Python version: 3.8.8
- Huggingface_hub version: 0.20.3
- Safetensors version: 0.4.2
- Accelerate version: 0.23.0
- PyTorch version (GPU?): 2.0.1+cu117 (True)

### Reproduction

1. installing package `jinja2==3.0.0`
2.
```python
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen1.5-72B-Chat")

prompt = "Give me a short introduction to large language model."
messages = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": prompt}
]
text = tokenizer.apply_chat_template(
    messages,
    tokenize=False,
    add_generation_prompt=True
)
```

will raise an error:
```
.../transformers/tokenization_utils_base.py in _compile_jinja_template(self, ch
""")
add("negative",None,"hiyouga/LlamaFactory#328","Qwen-7B's tiktoken tokenizer (CoreBPE) cannot be pickled for multi-process dataset.map; maintainer: preprocessing_num_workers=1. Prose/log only: the TypeError lived in the title and was removed; fix replies removed.","""
During `preprocess_dataset` mapping the dataset, it crashed. Could you please give some advice?
```
Spawning 32 processes
Running tokenizer on dataset (num_proc=32):   0%|          | 0/11694 [00:00<?, ? examples/s]
```
""")
add("negative",None,"huggingface/datasets#7693","datasets>=4.0 dropped Python loading scripts, so a tutorial's script-based dataset (superb.py) no longer loads; works on older datasets versions. Notebook links trimmed.","""
### Describe the bug

Hello,

I'm trying to follow the tutorial at Pipelines
but the tutorial seems to work only on old datasets versions.

I then get the error :

```
--------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
Cell In[65], line 1
----> 1 dataset = datasets.load_dataset("superb", name="asr", split="test")
      3 # KeyDataset (only *pt*) will simply return the item in the dict returned by the dataset item
      4 # as we're not interested in the *target* part of the dataset. For sentence pair use KeyPairDataset
      5 for out in tqdm(pipe(KeyDataset(dataset, "file"))):

File ~/Desktop/debug/llm_course/.venv/lib/python3.11/site-packages/datasets/load.py:1392, in load_dataset(path, name, data_dir, data_files, split, cache_dir, features, download_config, download_mode, verification_mode, keep_in_memory, save_infos, revision, token, streaming, num_proc, storage_options, **config_kwargs)
```
""")
add("negative",None,"DL3DV-10K/Dataset#28","Gated Hub dataset: the download script did not pick up the CLI login; fixed by calling huggingface_hub.login(token=...) in the script (reporter). Screenshot, the download command (contains the owner name) and fix removed.","""
I have been granted access to the dataset on the Hub. 
And I have logged my account through ```huggingface-cli login``` with my newly generated tokens. But the download command [...] is still failed with:

Cannot access gated repo for url https://huggingface.co/datasets/DL3DV/DL3DV-ALL-960P/resolve/main/8K/d7bc6edfea46c719d093a05f70e25988d7ecf55517001560a006ec76e04c1119.zip.
Access to dataset DL3DV/DL3DV-ALL-960P is restricted. You must be authenticated to access it.
""")


add("positive",F,"hiyouga/LlamaFactory#868","Chinese, prose only: asks why --streaming forces --max_steps; maintainer confirms max_steps must be computed by hand because a streamed dataset has no length. Maintainer replies removed.","""
我有个比较基础的问题想要请教，为什么使用了--streaming之后必须要指定--max_steps，指定了max_steps之后，是不是只会跑max_steps * batch_size条数据。
如果我想把所有数据都跑完，是不是max_steps的值就要设定为(最大数据量 / batch_size)向上取整？
""")
add("near_miss",None,"OpenGVLab/Ask-Anything#12","Chinese. Looks like a sentencepiece install problem, but sentencepiece is installed: the LLaMA path points at a checkpoint whose tokenizer is GPT2Tokenizer / a single file, so SentencePiece cannot parse it (maintainer: the vicuna/LLaMA weights were not prepared per the official README). Carries an unrelated FutureWarning. Source-file path lines containing the project name dropped; maintainer reply removed.","""
主要报错是Internal: src/sentencepiece_processor.cc(1101) [model_proto->ParseFromArray(serialized.data(), serialized.size())] 

报错行：
    model = model_cls.from_config(model_config).to('cuda:1')
    model = cls(
    self.llama_tokenizer = LlamaTokenizer.from_pretrained(llama_model, use_fast=False)  
请问是我安装的sentencepiece库出错了吗，

我的报错是 
/root/anaconda3/envs/LH/lib/python3.9/site-packages/transformers/tokenization_utils_base.py:1713: FutureWarning: Calling LlamaTokenizer.from_pretrained() with the path to a single file or url is deprecated and won't be possible anymore in v5. Use a model identifier or the path to a directory instead.
  warnings.warn(
The tokenizer class you load from this checkpoint is not the same type as the class this function is called from. It may result in unexpected tokenization. 
The tokenizer class you load from this checkpoint is 'GPT2Tokenizer'. 
The class this function is called from is 'LlamaTokenizer'.
Traceback (
""")

random.seed(32)
random.shuffle(Q)
import os
base="/work/staging/eval_holdout32/"
with open(base+"labels.jsonl","w") as f:
    for i,q in enumerate(Q,1):
        name=f"queries/h32_q{i:02d}.txt"
        open(base+name,"w").write(q["text"])
        f.write(json.dumps({"query":name,"expected":q["expected"],"kind":q["kind"],"source":q["source"],"note":q["note"]},ensure_ascii=False)+"\n")
print(len(Q))
