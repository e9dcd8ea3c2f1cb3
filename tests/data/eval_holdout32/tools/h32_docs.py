import os
D="/work/staging/eval_holdout32/corpus/"
docs={}
NAV_EN_TOP="""Home › Knowledge Base › ML Infra › Data pipelines
[Sign in] [Register]  |  Search the knowledge base...
------------------------------------------------------------
"""
NAV_EN_BOTTOM="""
------------------------------------------------------------
Was this article helpful?  [Yes] [No]
Recommended for you:
 - Configuring a reverse proxy for Grafana dashboards
 - Kubernetes CronJob timezones explained
 - How to rotate SSH host keys safely
© 2025 DevNotes Wiki · Privacy · Terms · Cookie settings
"""
NAV_ZH_TOP="""首页 > 技术专栏 > 大模型 > 数据处理
登录 | 注册 | 写文章        搜索：[           ]
------------------------------------------------------------
"""
NAV_ZH_BOTTOM="""
------------------------------------------------------------
本文由作者原创，转载请注明出处。  点赞(12)  收藏  评论(3)
相关推荐：
 · Vue3 组合式 API 入门笔记
 · MySQL 慢查询日志分析实战
 · Nginx 配置 HTTPS 证书的三种方式
关于我们 | 联系方式 | 用户协议 | 隐私政策    © 2025 某某技术社区
"""

docs["h32_datasets_fsspec_cache_incompat_en.md"]="""# Postmortem: `load_dataset` fails on cached/Hub datasets after an fsspec upgrade (old `datasets` + new `fsspec`)

## Symptom
Calls to `datasets.load_dataset(...)` that used to work suddenly fail, either right after the builder
has prepared the data ("Found cached dataset ..." / "Dataset json downloaded and prepared ...") or while
resolving data files from a Hub repository. Two characteristic errors:

```
  File ".../site-packages/datasets/builder.py", line 1108, in as_dataset
    raise NotImplementedError(f"Loading a dataset cached in a {type(self._fs).__name__} is not supported.")
NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.
```

```
  File ".../site-packages/fsspec/utils.py", line 734, in glob_translate
    raise ValueError(
ValueError: Invalid pattern: '**' can only be an entire path component
```

The dataset itself is fine; the same script works on another machine or in a fresh environment.
It typically shows up in notebooks/hosted runtimes (Colab, Modal, SageMaker images) where `fsspec`
was upgraded by some other package while `datasets` stayed pinned to an older 2.x release.

## Environment
- `fsspec` >= 2023.10.0 (the release that changed how local filesystems are detected and how `**` globs are parsed)
- `datasets` older than ~2.14.6 (e.g. 2.10.x, 2.13.x pinned by a tutorial or requirements file)
- Any loader: `json`, `csv`, `text`, `parquet`, Hub repos without a loading script

## Root cause
`fsspec` 2023.10.0 changed the protocol string of the local filesystem and the glob translation rules.
Older `datasets` releases decide "is this cache on a remote filesystem?" by comparing the protocol and
build data-file patterns with `**` fragments. With the new `fsspec`, the local cache is classified as
non-local, so `as_dataset()` raises the `NotImplementedError`, and the Hub pattern resolution produces a
pattern that the new glob translator rejects. It is a version incompatibility between two libraries,
not a problem with the data or the cache contents.

## Fix
- Upgrade `datasets` (`pip install -U datasets`; 2.14.6+ includes the compatibility fix), then restart the runtime/kernel.
- If `datasets` must stay pinned, pin `fsspec` back instead: `pip install "fsspec<=2023.9.2"`.
- Clearing the cache does not help on its own; the error returns on the next load.

## How to confirm
`python -c "import datasets, fsspec; print(datasets.__version__, fsspec.__version__)"` — an old `datasets`
together with `fsspec` 2023.10+ confirms the diagnosis.

## References
- huggingface/datasets issue 6352 (wikitext load raising the LocalFileSystem NotImplementedError)
- huggingface/datasets issue 6330 (fsspec 2023.10.0 breaking dataset loading)
- CarperAI/trlx issue 607 (Invalid pattern '**' on load_dataset)
"""

docs["h32_llama3_eot_id_stop_token_zh.md"]="""# Llama 3 Instruct 推理停不下来：eos 配置只认 <|end_of_text|>，忽略了 <|eot_id|>

## 问题背景
在 vLLM / 自建推理服务 / WebUI 中部署 Meta-Llama-3-8B-Instruct（以及基于它的微调模型）后，对话模式下模型回答完一轮后并不停止，
会继续输出 `assistant`、再自问自答下一轮，直到 `max_tokens` 用完。

## 问题现象
- 输出里能看到 `<|eot_id|><|start_header_id|>assistant<|end_header_id|>` 之后又接着生成；
  如果开启了 `skip_special_tokens`，用户看到的是一串 `...assistant\\n\\nI'm happy to...assistant...` 式的重复。
- 设置 `max_tokens=None` 时请求迟迟不返回。
- 用字符串 stop（`stop=["<|eot_id|>"]`）在 `skip_special_tokens=True` 时也不生效，因为特殊 token 已被跳过，文本里匹配不到。

## 根本原因
Llama 3 Instruct 的对话模板用 `<|eot_id|>`（id 128009）结束每一轮，但早期发布的 `tokenizer_config.json` 中
`eos_token` 是 `<|end_of_text|>`（id 128001），`generation_config.json` 也只有单个 eos。推理框架只在遇到 128001 时停止，
而 Instruct 模型在轮次结束时产生的是 128009，于是生成不会终止。vLLM 当时也没有读取 `generation_config.json` 里的
`eos_token_id` 列表（后来通过 "Support eos_token_id from generation_config.json" 修复，把其中的 id 注入 stop_token_ids）。

## 解决方案
1. 更新模型仓库中的 `generation_config.json`，使 `eos_token_id` 为 `[128001, 128009]`；或在 `generate()` 中显式传
   `eos_token_id=[tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|eot_id|>")]`。
2. OpenAI 兼容接口：请求里加 `extra_body={"stop_token_ids": [128009]}`，或升级到会读取 generation_config 的 vLLM 版本。
3. 也可以把 `tokenizer_config.json` 的 `eos_token` 改为 `<|eot_id|>`（仅用于推理部署）。
4. 自己做 SFT 时，确认模板在每个 assistant 轮末尾写入了 `<|eot_id|>` 并计入 loss。

## 参考
- vllm-project/vllm PR 4182（从 generation_config.json 读取 eos_token_id）
- Hugging Face 上 Meta-Llama-3-8B-Instruct 关于 generation_config 的讨论
"""

docs["h32_arrow_json_mixed_type_rows_en.md"]=NAV_EN_TOP+"""# Why `load_dataset("json")` dies with "JSON parse error: Column(...) changed from X to Y"

Posted by infra-notes · 6 min read

## Symptom
Loading a JSON/JSONL file (local or from the Hub) with the `json` builder fails during "Generating train split":

```
  File "pyarrow/_json.pyx", line 258, in pyarrow._json.read_json
  File "pyarrow/error.pxi", line 100, in pyarrow.lib.check_status
ArrowInvalid: JSON parse error: Column(/ner/[]/[]/[]) changed from number to string in row 0
```

Variants: `changed from object to array in row 0`, `changed from string to number in row 1232`.
`pandas.read_json` on the same file works, which makes it look like a `datasets` bug.

## Environment
`datasets` (any 2.x/3.x), `pyarrow` JSON reader; instruction-tuning files assembled from several sources,
multimodal conversation dumps, benchmark files with free-form `metadata`/`result` fields.

## Root cause
`datasets` parses JSON with `pyarrow.json.read_json`, which infers ONE type per column (and per nested
list element) from the rows it reads first and then requires every later row to match. A field that is
sometimes a string and sometimes a number, a list mixing ints and strings (e.g. `[0, 4, "Protein"]`),
an object in one row and an array or `null`/`[]` in another, violates Arrow's fixed-schema requirement.
The column path in the message (`/metadata/o_wiki_title`, `/ner/[]/[]/[]`) points at the offending field.

## Fix
- Normalize the data: cast the field to a single type (e.g. `str(...)` everything), replace heterogeneous
  lists with lists of one type, make empty values consistent.
- Or read with pandas/`json` yourself and build the dataset with `Dataset.from_list` plus explicit `Features`.
- For Hub datasets you do not own, open a discussion/PR on the dataset repo; there is no loader flag that
  relaxes Arrow's type rule.

## References
- huggingface/datasets issue 6460 (maintainer explanation: Arrow needs one type per column/array)
"""+NAV_EN_BOTTOM

docs["h32_map_batched_row_count_mismatch_zh.md"]="""# datasets.map(batched=True) 报 ArrowInvalid: Column N named xxx expected length A but got length B

## 问题背景
预训练拼接分块（group_texts）、QA 任务的滑窗切分（return_overflowing_tokens）、一条样本扩成多条等场景下，
在 `Dataset.map(..., batched=True)` 里返回的行数与输入的行数不同。

## 问题现象
```
pyarrow.lib.Table.from_arrays / Table.validate
ArrowInvalid: Column 1 named condition expected length 1463 but got length 1000
```
数字通常是：一个等于 batch_size（默认 1000，或最后一个 batch 的实际大小），另一个是函数产出的行数。
多进程（num_proc>1）时外面还会包一层 RemoteTraceback。

## 根本原因
batched map 允许函数改变行数（1000 条进，1463 条出），但前提是输出里所有列长度一致。
如果没有删除原始列，`datasets` 会把原数据集的列（长度仍是 1000）和新产生的列（长度 1463）拼在同一张 Arrow 表里，
`Table.validate` 发现列长度不一致就抛出上述错误。典型触发：
- tokenizer 开了 `return_overflowing_tokens=True`，长上下文被切成多个 feature；
- group_texts 把 1000 条文本拼接后按 block_size 重新切块，行数变少或变多；
- 只对部分列做了拼接/扩展，其余列原样保留。

## 解决方案
1. `dataset.map(fn, batched=True, remove_columns=dataset.column_names)`，让输出只包含新列；
2. 若需要保留原列，在函数内部用 `overflow_to_sample_mapping` 等映射把原列按新行数复制；
3. 拼接类处理要对所有保留的 key 一起拼接、一起切块。

## 参考
- huggingface/course PR 476（第 5 章：1000 条样本产生 1463 个 feature 的解释）
- datasets 文档：Dataset.map 的 batched 与 remove_columns 说明
"""

docs["h32_base_model_no_chat_template_zh.md"]=NAV_ZH_TOP+"""# apply_chat_template 报 "tokenizer.chat_template is not set"：用的是没有对话模板的基座模型

作者：炼丹小记　　阅读 2.3k

## 问题背景
用 transformers / sglang / TRL / OpenRLHF 等对模型调用 `tokenizer.apply_chat_template(...)`，
或在服务端启动 OpenAI 兼容的 chat 接口，模型选的是 `Llama-3.2-1B`、`Meta-Llama-3.1-8B` 这类基座（base）版本。

## 问题现象
```
ValueError: Cannot use chat template functions because tokenizer.chat_template is not set and no template argument was passed! For information about writing templates and setting the tokenizer.chat_template attribute, please see the documentation at https://huggingface.co/docs/transformers/main/en/chat_templating
```
同样的代码换成 `-Instruct` / `-Chat` 版本就正常。

## 根本原因
对话模板保存在 `tokenizer_config.json` 的 `chat_template` 字段里。基座模型没有经过对话微调，官方仓库里通常没有这个字段；
而 transformers 4.43 之后去掉了按 tokenizer 类提供的"默认模板"兜底，于是没有 `chat_template` 时直接抛错。
多模态模型（如某些 V 系列）只在其语言基座或 processor 上带模板，tokenizer 本身也可能没有。

## 解决方案
1. 推理/对话场景：换成 Instruct/Chat 版本模型；
2. 确实要在基座上做对话 SFT：自己指定模板，例如 `tokenizer.chat_template = "..."`，
   或 `apply_chat_template(messages, chat_template=...)`，框架侧用 `--chat_template` / `template` 参数；
3. 多模态模型按官方说明使用 processor 的 `apply_chat_template`，或复用其语言基座的模板。

## 参考
- sgl-project/sglang issue 3385（Llama-3.2-1B 的 tokenizer_config 没有 chat_template，维护者：Base model 没有 chat template）
"""+NAV_ZH_BOTTOM

docs["h32_iterable_dataset_needs_max_steps_en.md"]="""# Postmortem: Trainer refuses a streaming / IterableDataset unless `max_steps` is set

## Symptom
Constructing `Trainer` / `Seq2SeqTrainer` / TRL trainers (SFT, DPO, KTO, Reward) with a dataset loaded via
`load_dataset(..., streaming=True)` or any torch `IterableDataset` fails in `__init__`:

```
  File ".../transformers/trainer.py", line 567, in __init__
    raise ValueError(
ValueError: The train_dataset does not implement __len__, max_steps has to be specified. The number of steps needs to be known in advance for the learning rate scheduler.
```

Frameworks built on `Trainer` (ms-swift `--streaming true`, LLaMA-Factory `streaming: true`) surface the same
message when only `num_train_epochs` is given.

## Root cause
A streaming dataset has no length, so the Trainer cannot derive the number of optimizer steps from
`num_train_epochs × len(dataloader)`. The total step count is needed both for the LR scheduler horizon and
as the only stopping condition of the training loop for length-less data (`num_train_epochs` is
effectively ignored). With the default `max_steps=-1` the Trainer therefore raises at init.

## Fix
- Set `max_steps` (e.g. `TrainingArguments(max_steps=N)` / `--max_steps N`), computing N from the expected
  number of samples, batch size, gradient accumulation and world size.
- If you need real epochs, materialize the dataset (non-streaming) or wrap it in a map-style dataset with `__len__`.

## References
- huggingface/transformers PR 47155 (clarifies that max_steps is required for datasets without `__len__`)
- huggingface/trl PR 6323 (documents the same requirement for SFT/DPO/KTO/Reward trainers)
"""

docs["h32_vlm_cutoff_len_truncates_image_tokens_zh.md"]="""# 多模态 SFT 报 "Image features and image tokens do not match"：cutoff_len 把图像占位 token 截断了

## 问题背景
使用 LLaMA-Factory（或自写脚本）微调 Qwen2-VL / Qwen2.5-VL / LLaVA 类模型，数据里有多图、大分辨率图或很长的文本 query，
`cutoff_len`（或 `max_length` / `max_len`）设置为 1024~2048 这类较小的值。

## 问题现象
训练跑了一段时间（遇到某条长样本时）崩溃：
```
  File ".../transformers/models/qwen2_vl/modeling_qwen2_vl.py", in forward
    raise ValueError(
ValueError: Image features and image tokens do not match: tokens: <n>, features <m>
```
或在 LLaVA/Gemma 类模型上：
```
ValueError: Number of images does not match number of special image tokens in the input text. Got 0 image tokens in the text but 256 tokens from image embeddings.
```
特点：tokens 数小于 features 数（或为 0）；换更短的样本、调大长度后问题消失；与图片路径、图片是否存在无关。

## 根本原因
预处理阶段先把 `<image>` 展开成若干个 `<|image_pad|>` 占位 token，再把整条序列按 `cutoff_len` 截断；
但视觉编码器仍然按完整图片（分辨率 × 帧数）产生全部特征，视觉位置编码也是按图片尺寸算的，从未被截断。
序列里的图像占位 token 被截掉一部分（甚至全部，例如图片放在很长的 query 之后），
前向时 token 数与特征数对不上，于是报错。

## 解决方案
1. 调大 `cutoff_len`（如 4096、8192，多图数据需要更大），或过滤掉估算长度超过 cutoff_len 的样本；
2. 降低 `image_max_pixels` / `max_pixels`，减少每张图的视觉 token；
3. 数据组织上把图片放在文本前面，即便截断也只截到文本；
4. 估算视觉 token 数：约为 H×W/(28×28)（视频再除以时间 patch 2）加上少量特殊 token。

## 参考
- hiyouga/LlamaFactory issue 6844（cutoff_len 与 image_resolution 的关系说明）
- hiyouga/LlamaFactory issue 8226（query 过长导致图像占位被截断，维护者建议增大 cutoff len）
"""

docs["h32_arrow_offset_overflow_large_column_zh.md"]=NAV_ZH_TOP+"""# pyarrow.lib.ArrowInvalid: offset overflow while concatenating arrays —— 单个 Arrow 块超过 2GB

作者：数据工程笔记

## 问题背景
用 `datasets` 处理大体量数据：单个 JSON 里放了上千万条样本、样本中直接内嵌图片字节或 base64、
或者 `map` 之后生成了很长的文本（例如 best-of-n 采样生成的多条回答）。

## 问题现象
```
  File ".../datasets/arrow_writer.py", in write_examples_on_file / write_table
    pa_table = pa_table.combine_chunks()
  File "pyarrow/table.pxi", in pyarrow.lib.Table.combine_chunks
  File "pyarrow/error.pxi", line 92, in pyarrow.lib.check_status
pyarrow.lib.ArrowInvalid: offset overflow while concatenating arrays
```
通常出现在 `Dataset.map(...)` 写缓存、`load_dataset("json")` 生成 split 或 `concatenate_datasets` 时，小数据集上一切正常。

## 根本原因
Arrow 的 `string` / `binary` / `list` 类型使用 32 位偏移量，单个数组（chunk）里该列的总字节数不能超过 2^31-1（约 2GB）。
`datasets` 默认每 1000 行（`writer_batch_size`）合并成一个块写盘；当一批里的图片字节或长文本加起来超过 2GB 时，
`combine_chunks` 合并数组就会发生偏移量溢出。

## 解决方案
1. `map` 时调小 `writer_batch_size`（以及 `batch_size`），例如 `writer_batch_size=8` / `100`；
2. 把超大的单个 JSON 拆成多个小文件放在同一目录下加载；
3. 图片不要内嵌字节，改为存路径，在训练时再读取；
4. 必要时把列类型改为 `large_string` / `large_binary`（64 位偏移）。

## 参考
- tlc4418/llm_optimization issue 15（BoN 流程中 map 写盘报 offset overflow，writer_batch_size=8 解决）
- huggingface/datasets issue 6206（writer_batch_size 规避方法）
"""+NAV_ZH_BOTTOM

docs["h32_sentencepiece_missing_tokenizer_en.md"]="""# Postmortem: tokenizer fails to load because `sentencepiece` is not installed

## Symptom
Loading a SentencePiece-based tokenizer (LLaMA/LLaMA-2, T5/mT5, Mistral v0.x, many Chinese LLMs) fails in
`from_pretrained`:

```
ImportError:
LlamaTokenizer requires the SentencePiece library but it was not found in your environment. Checkout the instructions on the
installation page of its repo: https://github.com/google/sentencepiece#installation and follow the ones
that match your environment. Please note that you may need to restart your runtime after installation.
```

or, when transformers tries to build the fast tokenizer from the slow one:

```
  File ".../transformers/tokenization_utils_fast.py", line 107, in __init__
    raise ValueError(
ValueError: Cannot instantiate this tokenizer from a slow version. If it's based on sentencepiece, make sure you have sentencepiece installed.
```

## Environment
Fresh virtualenvs/containers built from a minimal `requirements.txt`; `transformers` does not install
`sentencepiece` as a hard dependency.

## Root cause
The repository ships only `tokenizer.model` (a SentencePiece model) or the tokenizer class is a slow
SentencePiece tokenizer. Instantiating it — or converting it to a fast tokenizer when no `tokenizer.json`
is present — needs the `sentencepiece` package, which is optional in transformers and missing from the env.

## Fix
- `pip install sentencepiece` (and restart the notebook runtime / Python process).
- Add `sentencepiece` to the project's requirements so CI and new environments get it.

## References
- ECNU-ICALK/EduChat PR 10 (install step missing SentencePiece)
- hiyouga/LlamaFactory PR 84 (adds sentencepiece to requirements.txt)
"""

docs["h32_trl_sfttrainer_args_moved_to_sftconfig_en.md"]="""# Postmortem: `SFTTrainer.__init__() got an unexpected keyword argument ...` after upgrading TRL

## Symptom
Notebooks and tutorials written for TRL <= 0.11 that pass data options straight to the trainer fail on newer TRL:

```
TypeError: SFTTrainer.__init__() got an unexpected keyword argument 'dataset_text_field'
```
The same happens for `max_seq_length`, `packing`, `dataset_num_proc`, `dataset_kwargs` passed to `SFTTrainer(...)`;
later releases also reject `tokenizer=` (renamed `processing_class`).

## Root cause
TRL moved all SFT-specific data arguments from the `SFTTrainer` constructor into `SFTConfig` (a
`TrainingArguments` subclass). After a deprecation period (warnings such as "Deprecated positional argument(s)
used in SFTTrainer, please use the SFTConfig to set these arguments instead") the old keyword arguments were
removed in 0.12/0.13, so old call sites raise `TypeError`. Unpinned installs (Colab, `pip install trl`) pick up
the new version silently.

## Fix
- Put the options into `SFTConfig(..., dataset_text_field="text", max_seq_length=..., packing=False)` and pass it as `args=`.
- Replace `tokenizer=tokenizer` with `processing_class=tokenizer`.
- Or pin the TRL version the tutorial was written for.

## References
- bitsandbytes-foundation/bitsandbytes PR 1471 (doc update: max_seq_length/dataset_text_field moved to SFTConfig in TRL v0.13)
- TRL documentation, `SFTConfig`
"""

docs["h32_llamafactory_dataset_dir_cwd_zh.md"]="""# LLaMA-Factory 报 Undefined dataset xxx in dataset_info.json：启动目录不对，dataset_dir 找不到

## 问题背景
在 Kaggle / Colab / 容器里克隆 LLaMA-Factory 后，直接在上一级目录执行
`llamafactory-cli train LLaMA-Factory/examples/...yaml`，或在其他目录启动 Web UI。

## 问题现象
旧版本：
```
ValueError: Cannot open data\\dataset_info.json due to [Errno 2] No such file or directory: 'data\\\\dataset_info.json'.
```
新版本：
```
  File ".../llamafactory/data/parser.py", in get_dataset_list
    raise ValueError(f"Undefined dataset {name} in {DATA_CONFIG}.")
ValueError: Undefined dataset alpaca_en_demo in dataset_info.json.
```
示例数据集（alpaca_en_demo、mllm_demo 等）明明在仓库 data 目录里、dataset_info.json 里也有定义，仍然报错。

## 根本原因
`dataset_dir` 默认是相对路径 `data`，按当前工作目录解析。示例 yaml 也只写了数据集名称。
如果不在仓库根目录下启动，程序去 `./data/dataset_info.json` 找配置：找不到文件时旧版本直接报 Cannot open，
新版本把配置当作空，于是任何数据集名都变成 "Undefined dataset"。

## 解决方案
1. 先 `cd` 到 LLaMA-Factory 仓库根目录再执行 `llamafactory-cli train ...`；
2. 或在 yaml / 命令行中把 `dataset_dir` 设为绝对路径；
3. Windows 下注意路径分隔符，Web UI 的"数据路径"填写完整路径。

## 参考
- hiyouga/LlamaFactory issue 2222（Cannot open data\\dataset_info.json，切换到 LLaMA-Factory 目录启动即可）
- hiyouga/LlamaFactory issue 2118（数据路径改为完整路径）
"""

# ---- distractors ----
docs["h32_decoder_padding_side_generation_en.md"]="""# Postmortem: garbled batched generation with a decoder-only model (right padding)

## Symptom
Batched `model.generate()` on a causal LM returns sensible text for the longest prompt but nonsense or
empty continuations for shorter prompts in the same batch. transformers logs:

```
A decoder-only architecture is being used, but right-padding was detected! For correct generation results, please set `padding_side='left'` when initializing the tokenizer.
```

## Root cause
Many LLM tokenizers default to `padding_side="right"` (the setting used for training). For generation the
new tokens are appended after the last position of each row, so in right-padded rows the model continues
from pad tokens instead of from the prompt. Attention masks do not fix this because position/continuation
still starts after the padding.

## Fix
- `tokenizer.padding_side = "left"` (and make sure `pad_token` is set) before tokenizing prompts for generation.
- Keep right padding for training collators; switch only for inference/evaluation.
- Evaluation loops inside trainers: set `padding_side="left"` on the tokenizer passed to the generation step.

## References
- transformers generation docs ("Wrong padding side")
"""

docs["h32_tokenizers_parallelism_fork_zh.md"]="""# DataLoader 多 worker 卡住 + "The current process just got forked" 警告：tokenizers 并行与 fork 冲突

## 问题背景
在主进程里先用 fast tokenizer 做过一次批量编码（例如统计长度、预览样本），然后创建 `num_workers>0` 的 DataLoader，
或调用 `dataset.map(num_proc=N)`。

## 问题现象
日志反复出现：
```
huggingface/tokenizers: The current process just got forked, after parallelism has already been used. Disabling parallelism to avoid deadlocks...
To disable this warning, you can either:
	- Avoid using `tokenizers` before the fork if possible
	- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)
```
部分环境下训练在第一个 step 前卡住不动，CPU 占用很低。

## 根本原因
Rust 实现的 tokenizers 在批量编码时会启动线程池。进程 fork 之后子进程继承了线程池的锁状态却没有线程本身，
继续使用并行编码可能死锁；库检测到后会关闭并行并打印警告。

## 解决方案
1. 在程序最开始设置 `os.environ["TOKENIZERS_PARALLELISM"] = "false"`（或 true，明确即可消除警告）；
2. 尽量把分词放到 `dataset.map` 里提前完成，DataLoader worker 中不再调用 tokenizer；
3. 多进程使用 spawn 启动方式。

## 参考
- huggingface/tokenizers 关于 fork 与并行的说明
"""

docs["h32_nonmatching_splits_stale_cache_en.md"]="""# Postmortem: `NonMatchingSplitsSizesError` after the Hub dataset was updated

## Symptom
`load_dataset("org/name")` that worked last week now fails after download:

```
datasets.utils.info_utils.NonMatchingSplitsSizesError: [{'expected': SplitInfo(name='train', num_bytes=..., num_examples=52002, ...), 'recorded': SplitInfo(name='train', num_bytes=..., num_examples=51760, ...)}]
```

## Root cause
The split sizes recorded in the dataset card / `dataset_infos.json` (or in the locally cached builder info)
no longer match the data actually downloaded — typically because the dataset owner replaced data files without
updating the metadata, or because an old cached `dataset_info` is reused with new files.

## Fix
- `load_dataset(..., download_mode="force_redownload")` to refresh cache and metadata.
- If the metadata on the Hub is wrong, `verification_mode="no_checks"` (older versions: `ignore_verifications=True`)
  and report it to the dataset owner.

## References
- datasets documentation: download_mode and verification_mode
"""

docs["h32_llamafactory_image_placeholder_count_zh.md"]="""# LLaMA-Factory 多模态数据：images 数量与 <image> 占位符数量不一致

## 问题背景
按 sharegpt 格式自建图文数据集，`messages` 里写 `<image>`，`images` 字段给出图片路径列表。

## 问题现象
数据预处理阶段（Running tokenizer on dataset）报错：
```
ValueError: The number of images does not match the number of <image> tokens in messages.
```
或者部分样本被静默丢弃，日志提示样本无效。

## 根本原因
mm_plugin 在展开图像占位符前会校验：所有轮次中 `<image>` 出现的次数必须等于该样本 `images` 列表长度。
常见错误：多轮对话里只在第一轮写了 `<image>` 却给了多张图；图片路径列表里有重复/空字符串；
把 `<image>` 写成了 `<img>`、`<|image|>` 等其它形式；纯文本样本带了空的 images 字段以外的默认值。

## 解决方案
1. 预处理前用脚本逐条检查 `sum(m["content"].count("<image>")) == len(images)`；
2. 统一占位符写法为 `<image>`，与 dataset_info.json 的 tags 配置一致；
3. 纯文本样本去掉 images 字段或给空列表。

## 参考
- LLaMA-Factory data/README_zh.md 多模态数据格式说明
"""

docs["h32_completion_only_collator_template_tokens_en.md"]="""# Postmortem: completion-only training masks everything ("Could not find response key")

## Symptom
With TRL's `DataCollatorForCompletionOnlyLM(response_template="### Answer:", tokenizer=tok)` every batch warns:

```
UserWarning: Could not find response key [22559, 25, 220] in the following instance: ... This instance will be ignored in loss calculation.
```
Loss is 0 / NaN or training does not improve, because all labels are -100.

## Root cause
The response template is tokenized on its own, but inside the full prompt the same characters are tokenized
differently (BPE/SentencePiece merges depend on the preceding character, e.g. `\\n### Answer:` vs `### Answer:`
at the start of a string, leading-space tokens). The collator searches for the exact id sequence, does not find
it, and masks the whole example.

## Fix
- Tokenize the template with its left context and drop the context tokens:
  `ids = tok.encode("\\n### Answer:", add_special_tokens=False)[2:]`, then pass the id list as `response_template`.
- Check by decoding the ids and searching them in one tokenized sample before training.
- Newer TRL: prefer `completion_only_loss` with prompt/completion datasets instead of string matching.

## References
- TRL docs: "Train on completions only"
"""

docs["h32_pad_equals_eos_labels_masked_zh.md"]=NAV_ZH_TOP+"""# 微调后模型不会停止生成：pad_token 设成 eos_token，导致 eos 在 labels 里被一起屏蔽

作者：调参侠　　收藏 56

## 问题背景
对没有 pad_token 的模型（Llama/Mistral/GPT 类）做 SFT 时，常见写法 `tokenizer.pad_token = tokenizer.eos_token`，
再配合 `DataCollatorForLanguageModeling(mlm=False)` 或自写的 "labels[input_ids == pad_token_id] = -100"。

## 问题现象
训练 loss 正常下降，但推理时模型回答完不输出 eos，一直续写到 max_new_tokens，
在部署端看起来就是"停不下来""自问自答"。

## 根本原因
pad 与 eos 是同一个 id。collator 把所有等于 pad_token_id 的位置标成 -100，样本末尾真正的 eos 也被屏蔽，
模型在训练中从未被监督去预测 eos，自然学不会结束。

## 解决方案
1. 使用独立的 pad token（如 `<|finetune_right_pad_id|>`、unk，或新增 `<pad>` 并 resize embedding）；
2. 按 attention_mask 而不是按 token id 屏蔽 padding；
3. 使用 `DataCollatorForSeq2Seq`，由数据处理阶段显式生成 labels（pad 处 -100，eos 保留）。

## 参考
- transformers 文档：DataCollatorForLanguageModeling 说明
"""+NAV_ZH_BOTTOM

docs["h32_vl_max_pixels_visual_tokens_oom_en.md"]="""# Postmortem: VL fine-tuning OOM because image resolution was not capped

## Symptom
Qwen2-VL / Qwen2.5-VL SFT runs fine on the demo data but on real data (phone photos, scanned pages, 4K screenshots)
fails with `torch.OutOfMemoryError: CUDA out of memory` in the vision tower, or sequences become tens of thousands
of tokens long and step time explodes.

## Root cause
The Qwen2-VL image processor uses dynamic resolution: the number of visual tokens grows with H×W
(roughly H×W/28² per image). Without `max_pixels` / `image_max_pixels`, a single large image yields
thousands of visual tokens, so activations of the ViT and the LLM blow up.

## Fix
- Set `image_max_pixels` (LLaMA-Factory) or `max_pixels` on the processor (e.g. 768*28*28) and optionally `min_pixels`.
- Resize images offline to a sane maximum side.
- Use gradient checkpointing and freeze the vision tower if memory is still tight.

## References
- Qwen2-VL model card: min_pixels / max_pixels
"""

for k,v in docs.items():
    open(D+k,"w").write(v)
print(len(docs))
