s=open("queries.py").read()
def rep(a,b):
    global s
    assert s.count(a)==1, a[:80]
    s=s.replace(a,b)
rep('''llama3 doesn't stop correctly.

it seems that llama3 instruct models don't stop properly, the output just keeps going after the answer.

and the''','''llama3 doesn't stop correctly

and the''')
rep('''wrapping it with ChatHuggingFace and invoking it fails as soon as the messages are formatted.
''','')
rep('''I did install python3-protobuf as a system package but it didn't help in either case. 

The error says it failed loading the tokenizer and mentions the protobuf library.
''','''I did install python3-protobuf as a system package but it didn't help in either case. 
''')
rep('''add("negative",None,"unslothai/unsloth#1899","labels were None because a DataCollatorForSeq2Seq was passed for an unlabeled text dataset; commenter fixed it with train_on_responses_only / removing the collator. Comment text used; fix sentences removed.","""
ValueError: The model did not return a loss from the inputs, only the following keys: logits. For reference, the inputs it received are input_ids,attention_mask,labels.

I ran into this error earlier today while fine-tuning with SFTTrainer and `data_collator=DataCollatorForSeq2Seq(tokenizer=tokenizer)`.
""")''','''add("negative",None,"huggingface/datasets#7693","datasets>=4.0 dropped Python loading scripts, so a tutorial's script-based dataset (superb.py) no longer loads; works on older datasets versions. Notebook links trimmed.","""
### Describe the bug

Hello,

I'm trying to follow the tutorial about pipelines
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
""")''')
rep('''  0%|          | 0/11694 [00:00<?, ? examples/s]
```
TypeError: cannot pickle 'builtins.CoreBPE' object
''','''  0%|          | 0/11694 [00:00<?, ? examples/s]
```
''')
rep('''Error from title restated by the reporter in body only partially; fix replies removed.''','''Prose/log only: the TypeError lived in the title and was removed; fix replies removed.''')
rep('''qwen合并lora模型报错：raise ValueError("Undefined dataset {} in dataset_info.json.".format(name))
参数：''','''qwen合并lora模型报错：
参数：''')
rep('''Screenshots removed; root-cause lines of the reporter removed.''','''Error text was only in the title and a screenshot (both removed); the reporter's root-cause lines removed, so the report is prose + command.''')
rep('''otherwise it causes this error

ValueError: Number of images does not match number of special image tokens in the input text. Got 256 image tokens in the text but 256 tokens from image embeddings.

if using''','''otherwise it causes this error

if using''')
rep('''Diagnosis paragraph trimmed.''','''Diagnosis paragraph and the title (which held the error line) trimmed.''')
rep('''Using the command in the README of the language-modeling examples.''','''Using the command in the README.''')
rep('''Tokenizer can't be used out of the box unless protobuf=3 is installed or env variables are changed. And since''','''And since''')
rep('''In [3]: AutoTokenizer.from_pretrained("openlm-research/open_llama_3b")
''','')
rep('''----> 1 AutoTokenizer.from_pretrained("openlm-research/open_llama_3b")
''','')
rep('''from huggingface with the following code,

```python
from datasets import load_dataset

dataset = load_dataset('RUC-NLPIR/FlashRAG_datasets', name="popqa")
```

I got''','''from huggingface,

I got''')
rep('''Removed the diagnosis paragraph.",''','''Removed the diagnosis paragraph and the load_dataset call (it contains the project's own org/repo id).",''')
rep('''To repro, try the following:

```
from datasets import load_dataset

dataset = load_dataset("gorilla-llm/Berkeley-Function-Calling-Leaderboard")
```
You will get''','''You will get''')
rep('''(thread closed after the data files were fixed; cause inferred from the message, see uncertain labels).''','''(thread closed; cause inferred from the message, see uncertain labels). Removed the load_dataset line (contains the project's dataset id).''')
rep('''But the download command ```python download.py --odir DL3DV-10K --subset 8K --resolution 960P --file_type images+poses --clean_cache``` is still failed with:''','''But the download command [...] is still failed with:''')
rep('''Screenshot and fix removed.",''','''Screenshot, the download command (contains the owner name) and fix removed.",''')
rep('''How to fix the error?
```
[rank7]: Traceback (most recent call last):
[rank7]:   File "/data/lilumin/anaconda3/envs/r1-v/lib/python3.11/site-packages/datasets/arrow_dataset.py", line 3547, in _map_single
[rank7]:     writer.finalize()  # close_stream=bool(buf_writer is None))  # We only close if we are writing in a file
[rank7]:     ^^^^^^^^^^^^^^^^^
[rank7]:   File "/data/lilumin/anaconda3/envs/r1-v/lib/python3.11/site-packages/datasets/arrow_writer.py", line 657, in finalize
[rank7]:     self.write_examples_on_file()
''','''How to fix the error?
[rank7]: Traceback (most recent call last):
[rank7]:     writer.finalize()  # close_stream=bool(buf_writer is None))  # We only close if we are writing in a file
[rank7]:     self.write_examples_on_file()
''')
rep('''(reporter points at picture size; thread open, see uncertain labels).''','''(reporter points at picture size; thread open, see uncertain labels). Traceback path lines dropped (conda env named after the project).''')
open("queries.py","w").write(s)
print("ok")
