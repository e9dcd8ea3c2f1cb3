from h21_queries_part2 import Q, add, C

# ---------------- near misses ----------------
add("nm1","near_miss",None,"hiyouga/LlamaFactory#2239",
 "Looks like the ZeRO-3 partitioned-weights doc, but the cause is checkpoint export: with ZeRO-3 the HF weights are not consolidated on save unless stage3_gather_16bit_weights_on_model_save is true, so the exported model is broken. Not covered by any document. Prose-only; questions kept, answer removed.",
"""- 实验setting: 全参微调+ChatGLM3-6B-Base
- 现象: 
    - 将ZeRO2修改为ZeRO3以后，模型训练结束后并没有.safetensors文件, 只有zero3的checkpoints（global_step4567）
    - 我使用src/export_model.py 指定这个checkpoint_dir进行导出，然后出来的模型Chat是有问题的(ZeRO2的没问题)
- 问题：
   - 只有checkpoint_dir的现象正常吗？
   - 正确的导出+推理流程是什么样的？""")

add("nm2","near_miss",None,"deepspeedai/DeepSpeed#3223",
 "Thread is about the DeepSpeed CUDA-mismatch message, but for this reporter the mismatch was only a warning; the real failure is missing Python development headers (Python.h) when building the op. Resembles the DeepSpeed CUDA-major-mismatch doc. Error line as quoted back by the maintainer; replies removed.",
"""/home/ubuntuai/axolotl/.venv/lib/python3.10/site-packages/torch/include/torch/csrc/python_headers.h:12:10: fatal error: Python.h: No such file or directory 12 | #include <Python.h> |          ^~~~~~~~~~ compilation terminated.""")

add("nm3","near_miss",None,"Dao-AILab/flash-attention#1421",
 "flash-attn install failure, but the cause is pip build isolation: setup.py imports torch inside the isolated build env (fix: --no-build-isolation). Resembles the flash-attn wheel/ABI doc. Cut-off pip log.",
"""My environment:

* OS: Ubuntu 24.04.1 LTS
* Python version: 3.10.15
* PIP version: 24.3.1
* Torch version: 2.5.1

It came to my attention that `pip install flash_attn` **does not work**. When I try it, the error I got is: **`No module named 'torch'`**.

**This issue happens even if I install `torch` first, then install `flash-attn` afterwards.**

````
$ pip install flash-attn
Collecting flash-attn
  Using cached flash_attn-2.7.2.post1.tar.gz (3.1 MB)
  Installing build dependencies ... done
  Getting requirements to build wheel ... error
  error: subprocess-exited-with-error
  
  × Getting requirements to build wheel did not run successfully.
  │ exit code: 1
  ╰─> [17 lines of output]
      Traceback (most recent call last):
        File "/home/tianxing/1/.venv/lib/python3.10/site-packages/pip/_vendor/pyproject_hooks/_in_process/_in_process.py", line 353, in <module>
          main()""")

add("nm4","near_miss",None,"ggml-org/llama.cpp#24001",
 "Same 'unknown model architecture' message, but 'mio-embedding' is not an upstream llama.cpp architecture at all: the GGUF files belong to a third-party fork, so updating llama.cpp does not help. Closed as stale; see uncertain labels. Removed links and the file table.",
"""### Name and Version

version: 9464 (5dcb71166)
built with GNU 11.4.0 for Linux x86_64

### Operating systems

Linux

### GGML backends

CPU

### Problem description & steps to reproduce

> 2. Run: `./llama-tts -m models/gguf/jp_female.emb.gguf -p "Hello!"` or  `./llama-tts -m models/gguf/MioTTS-0.1B-Q8_0.gguf -p "Hello!"`

### Relevant log output

```console
Eval bug: E llama_model_load: error loading model: unknown model architecture: 'mio-embedding'
```""")

add("nm5","near_miss",None,"huggingface/peft#758",
 "Same 'Target modules not found' error, but at load time of a saved adapter: the adapter (c_attn, trained on GPT-2) is applied to the base model named in its config (BioGPT), i.e. adapter/base-model mismatch, not a wrong target_modules choice for training. Removed links.",
"""I have fine-tuned a BioGPT model using Lora, the config can be found in the hub (Lukee4/biogpt-2019) 

The issue is that when I try to load the model:
```
peft_model_id = "Lukee4/biogpt-2019"
config = PeftConfig.from_pretrained(peft_model_id)
inference_model = AutoModel.from_pretrained(config.base_model_name_or_path)
tokenizer = AutoTokenizer.from_pretrained(config.base_model_name_or_path)
inference_model = PeftModel.from_pretrained(inference_model, peft_model_id)
```
I get an error: ValueError: Target modules [‘c_attn’] not found in the base model. Please check the target modules and try again.

I investigated this a little and the only place that I could find c_attn is in the Source code for transformers.models.gpt2.modeling_gpt2

In the Source code for biogpt/modeling_biogpt there is no c_attn.""")

add("nm6","near_miss",None,"state-spaces/mamba#387",
 "Triton shared-memory OutOfResources, but not a consumer-GPU limit: the kernel with headdim 512 needs more shared memory than any GPU offers (fails on A100 too). Resembles the triton/consumer-GPU distractor. Prose-only: the error line and the reporter's TL;DR diagnosis were removed.",
"""I'm trying to rerun the MQAR experiments in Figure 8 of the paper. For model dimensions <= 256 this works fine. However, when I increase model size to 512, I always run into the following error:
The error persists even when reducing the `chunk_size`, increasing GPU memory, or using a different GPU (RTX 3090, RTX 4090, A100; the Hardware limit in above error obviously changes between these, but it's never enough).
It's weird that it complains about shared memory, which is not a lack of VRAM (GPU memory) but essentially conventional RAM. I'm no expert in trition so I don't really know why the autotuner evne tries to allocate shared memory or why it needs so much.
Did anybody also encounter this problem and was able to fix it?""")

add("nm7","near_miss",None,"QwenLM/Qwen3#12",
 "vLLM start-up memory error on a 32GB V100 with a 14B fp16 model: the weights leave no memory at all for KV cache blocks ('No available memory for the cache blocks'), i.e. the model does not fit the card at this utilization; not the max_model_len-vs-KV-capacity case. Prose + command only (error in title/screenshot).",
"""python -m vllm.entrypoints.openai.api_server --model data/Qwen1.5-14B-Chat --host 0.0.0.0 --port 30005 --dtype half --gpu-memory-utilization 0.95

报这个错是什么原因，用的是32GB显存V100""")

add("nm8","near_miss",None,"huggingface/tokenizers#1297",
 "Same ModelWrapper deserialisation error, but the tokenizer.json was produced by the same tokenizers version: a BPE trained with a Split pre-tokenizer yields merges containing spaces, which the legacy 'a b' merges format cannot round-trip. Not a too-old-library case. Cut-off traceback; link removed.",
"""Here is the reproducible script:

```py
from tokenizers.trainers import BpeTrainer
from tokenizers import Tokenizer
from tokenizers.models import BPE
from tokenizers.pre_tokenizers import Split

tokenizer = Tokenizer(BPE(unk_token="[UNK]"))
trainer = BpeTrainer(special_tokens=["[UNK]"], vocab_size=1000, min_frequency=2)
tokenizer.pre_tokenizer = Split("\\w+|[^\\w\\s]+", behavior="isolated")

tokenizer.train_from_iterator(
    iterator=[t],
    trainer=trainer,
)

tokenizer.save("tokenizer.json")
```

Works fine if I use trained tokenizer directly (not loading from the file)

### But loading the tokenizer from the file fails.

```py
tokenizer = Tokenizer.from_file("tokenizer.json")
```

```sh
---------------------------------------------------------------------------
Exception                                 Traceback (most recent call last)
Cell In[88], line 1
```""")

add("nm9","near_miss",None,"NVIDIA/nvidia-docker#533",
 "GPU unusable in a container while nvidia-smi works: the container lacks the compute driver capability (NVIDIA_DRIVER_CAPABILITIES=compute,utility), not a driver older than torch's CUDA. Resembles the driver-too-old doc.",
"""I've installed the latest version of nvidia-docker (v2) in order to run PyTorch on the GPU from this container.

I've followed your instructions and am able to open nvidia-smi inside the container, which displays the driver version 387.12, same as my local machine.

Still, whenever I try to use the GPU on PyTorch inside the container, I get the error 'Found no NVIDIA driver on your system', which is odd given that nvidia-smi seems to show everything fine. It could be an issue with PyTorch, but probably not since it runs just fine on the local machine.""")

add("nm10","near_miss",None,"zhysora/UCGAN#2",
 "CUDA unusable because a CPU-only PyTorch build is installed (maintainer: install the GPU build), not a driver/CUDA version gap. Resembles the driver-too-old doc. One-liner zh.",
"""“AssertionError: Torch not compiled with CUDA enabled”，请问这个错误怎么解决啊""")

# ---------------- negatives ----------------
add("n1","negative",None,"xorbitsai/inference#1734",
 "Gated Hugging Face repo (Meta-Llama-3-8B-Instruct) without an accepted licence / token: 401 GatedRepoError. No document covers hub authentication. Cut after the chained traceback start.",
"""```
huggingface_hub.utils._errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-667ea709-40b704097bad97526456dd7c;c8a0107e-2241-49ff-9f19-817625902912)

Cannot access gated repo for url https://huggingface.co/api/models/meta-llama/Meta-Llama-3-8B-Instruct/revision/main.
Access to model meta-llama/Meta-Llama-3-8B-Instruct is restricted. You must be authenticated to access it.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/xinference/api/restful_api.py", line 771, in launch_model
    model_uid = await (await self._get_supervisor_ref()).launch_builtin_model(
```""")

add("n2","negative",None,"databrickslabs/dolly#139",
 "Disk full while torch.save writes a checkpoint (maintainer: ran out of disk space). Ordinary failure; no document. Removed the maintainer reply.",
"""Unfortunately, I ran out of space training the 3B model. I'm using a `p3.16xlarge` instance and it ran out of space on epoch 0.3. Any advice on how to resolve? 

Full error:

```
2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160] 2023-04-29 06:01:12 ERROR [__main__] main failed
2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160] Traceback (most recent call last):
2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160]   File "/opt/conda/lib/python3.7/site-packages/torch/serialization.py", line 379, in save
2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160]     _save(obj, opened_zipfile, pickle_module, pickle_protocol)
2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160]   File "/opt/conda/lib/python3.7/site-packages/torch/serialization.py", line 604, in _save
2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160]     zip_file.write_record(name, storage.data_ptr(), num_bytes)
2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160] OSError: [Errno 28] No space left on device
```""")

add("n3","negative",None,"xdit-project/mochi-xdit#22",
 "torch.distributed rendezvous port conflict (EADDRINUSE on 29500); reporter found the project hard-codes the default port, so changing MASTER_PORT had no effect. Prose-only: the error line and the found cause were removed.",
"""I was trying to run with 3 gpus in an ssh server, but I keep on getting this error when I try to use multiple gpus. The single gpu case works perfectly.

My command looks something like this:
```
CUDA_VISIBLE_DEVICES=3,4,5 python3 ./demos/cli.py --model_dir <model_dir> --t5_model_path <t5_model_path> --num_frames 61 --use_xdit --ulysses_degree 3 --ring_degree 1
```

I have tried changing the MASTER_PORT to other numbers like 29501, but the same error message pops up about 29500. I have also used lsof and grep on the port 29500, but found no other processes. Does anyone know how to fix this?""")

add("n4","negative",None,"hiyouga/LlamaFactory#7458",
 "Installed sglang is older than the API the trainer imports (launch_server_cmd missing from sglang.utils); the thread asks which sglang version is required. Version mismatch of an optional dependency; no document.",
"""运行
CUDA_VISIBLE_DEVICES=0,1,2,3 VIDEO_PLACEHOLDER="<reserved>" llamafactory-cli train examples/train_lora/qwen25vl_lora_sft_cus.yaml

error：

  from sglang.utils import launch_server_cmd, terminate_process, wait_for_server
ImportError: cannot import name 'launch_server_cmd' from 'sglang.utils' (lama_factory/lib/python3.10/site-packages/sglang/utils.py)""")

add("n5","negative",None,"hiyouga/LlamaFactory#3018",
 "Custom dataset registered with file_name 'zhilv_zh.txt' although the content is JSON; labelled solved (dataset definition problem). No document covers dataset registration. Cut-off: the log stops before the failure. See uncertain labels.",
"""数据集：
```
[
  {
    "instruction": "杭州在诗词中被如何描绘，有哪些诗人曾在杭州留下足迹？",
    "input": "",
    "output": "杭州被诗词描绘为烟雨江南，白居易、陆游、苏轼、戴望舒等诗人都曾在杭州留下足迹。"
  }
]
```

配置
```
"zhilv_zh": {
    "file_name": "zhilv_zh.txt",
    "file_sha1": "b52868dca53d8f855c0035d8001057d5bb72cd9c",
    "columns": {
      "prompt": "instruction",
      "query": "input",
      "response": "output"
    }
  },
```

报错
```
[INFO|training_args.py:1934] 2024-03-28 15:13:02,577 >> PyTorch: setting up devices
03/28/2024 15:13:02 - INFO - llmtuner.hparams.parser - Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: False, compute dtype: torch.float16
```""")

add("n6","negative",None,"huggingface/trl#6168",
 "TRL removed SFTTrainer's tokenizer= argument (renamed processing_class); passing it falls through to Trainer.__init__. API change after upgrading trl; second error mentioned when trying the rename. No document.",
"""```python
from trl import SFTTrainer, SFTConfig

sfttrainer = SFTTrainer(
    model=model,
    train_dataset=dataset,
    tokenizer=tokenizer,   # tokenizer argument is deprecated
    args=SFT_config,
)
```

outputs:

```
Traceback (most recent call last):
  File ".../Comm_Pretrain.py", line 596, in <module>
    sfttrainer = SFTTrainer(
  File ".../miniconda3/envs/agentic-frozenlake/lib/python3.10/site-packages/huggingface_hub/utils/_deprecation.py", line 101, in inner_f
    return f(*args, **kwargs)
  File ".../miniconda3/envs/agentic-frozenlake/lib/python3.10/site-packages/trl/trainer/sft_trainer.py", line 401, in __init__
    super().__init__(
TypeError: Trainer.__init__() got an unexpected keyword argument 'tokenizer'
```

If I replace "tokenizer" with "processing_class", I got a new error:
TypeError: SFTTrainer.__init__() got an unexpected keyword argument""")

add("n7","negative",None,"OptimalScale/LMFlow#65",
 "Trainer's default report_to includes wandb, which is installed but not logged in, in a non-interactive shell. Ordinary configuration issue; no document. Traceback cut right after its first line (frames named the project).",
"""When I run the fine-tuning script
`./scripts/run_finetune.sh`

Some errors occur:
```
wandb: ERROR api_key not configured (no-tty). call wandb.login(key=[your_api_key])
Traceback (most recent call last):
```""")

add("n8","negative",None,"NVIDIA/Megatron-LM#82",
 "Start-up hangs while JIT-compiling Megatron's fused kernels; a stale/locked megatron/fused_kernels/build directory from an interrupted build (deleting it fixes it). Prose-only: the fix sentence was removed.",
"""I've noticed that the program could get stuck at "using torch.float16 for parameters ...". I found that the problem was stuck at compilating fused_kernels. I'm not sure what causes this.""")

add("n9","negative",None,"thu-coai/CDial-GPT#103",
 "Distributed launch fails because the default master port 29500 is already taken by another job on the same machine; reporter fixed it with --master_port. One-liner zh; cause/fix paragraphs removed.",
"""执行中报错：RuntimeError: Address already in use""")

add("n10","negative",None,"gaohongkui/GlobalPointer_pytorch#12",
 "wandb enabled in a non-interactive run without a configured API key (wandb login / WANDB_API_KEY / WANDB_MODE=disabled). No document.",
"""`   raise UsageError("api_key not configured (no-tty). call " + directive)
wandb.errors.UsageError: api_key not configured (no-tty). call wandb.login(key=[your_api_key])`
请问这个问题怎么解决？试了各种办法无果，api_key我已经注册拿到了""")
