# builds queries/ and labels.jsonl for eval_holdout27
import json, os
BASE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C = "corpus/"
D = {
 'nccl': C+'h27_nccl_docker_shm_too_small_zh.md',
 'fa': C+'h27_flash_attn_wheel_torch_abi_mismatch_en.md',
 'fork': C+'h27_vllm_tp_workers_forked_after_cuda_init_en.md',
 'kv': C+'h27_vllm_weights_leave_no_kv_cache_zh.md',
 'bf16': C+'h27_vllm_bf16_on_pre_ampere_en.md',
 'cudahome': C+'h27_deepspeed_cuda_home_missing_toolkit_zh.md',
 'tok': C+'h27_tokenizers_too_old_for_tokenizer_json_en.md',
 'trl': C+'h27_trl_tokenizer_kwarg_renamed_processing_class_en.md',
 'arch': C+'h27_torch_wheel_missing_gpu_arch_zh.md',
 'peft': C+'h27_peft_target_modules_wrong_names_zh.md',
 'mtype': C+'h27_transformers_too_old_unknown_model_type_zh.md',
 'cpu': C+'h27_cpu_only_torch_wheel_en.md',
}
Q = []
def q(kind, exp, source, note, text):
    Q.append((kind, D[exp] if exp else None, source, note, text.strip('\n') + '\n'))

q('positive','arch','pytorch/pytorch#149845',
  'RTX 5090D (sm_120) with a wheel lacking sm_120 kernels; reporter fixed it by installing newer driver + cu128 pre-release PyTorch. Trimmed: title, versions line (pip nightly cu128 command), reporter\'s fix comment.',
r'''I encountered problems when running PyTorch on an RTX 5090D in Ubuntu. I installed PyTorch (torch) and CUDA in a Conda environment, and the following issues occurred:

>>> import torch
>>> x = torch.tensor([0, 1, 1]).to(0)
>>> print(x.device)
cuda:0
>>> x != 0
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
''')

q('negative',None,'NVIDIA/Megatron-LM#343',
  'MASTER_PORT already taken by another process; maintainer: use a different MASTER_PORT. Trimmed: title, maintainer replies.',
r'''I am running distributed pertaining script. And got problem as shown. Any suggestions? thanks.

My config:
MASTER_ADDR=localhost
MASTER_PORT=8514
NNODES=1
NODE_RANK=0
WORLD_SIZE=$(($GPUS_PER_NODE*$NNODES))

DISTRIBUTED_ARGS="--nproc_per_node $GPUS_PER_NODE --nnodes $NNODES --node_rank $NODE_RANK --master_addr $MASTER_ADDR --master_port $MASTER_PORT"

python -m torch.distributed.launch $DISTRIBUTED_ARGS ......

File "/megatron/initialize.py", line 181, in _initialize_distributed
torch.distributed.init_process_group(
File "/root/miniconda3/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 520, in init_process_group
store, rank, world_size = next(rendezvous_iterator)
File "/root/miniconda3/lib/python3.8/site-packages/torch/distributed/rendezvous.py", line 142, in _tcp_rendezvous_handler
store = TCPStore(result.hostname, result.port, world_size, start_daemon, timeout)
RuntimeError: Address already in use
''')

q('positive','kv','QwenLM/Qwen3#12',
  'Qwen1.5-14B-Chat fp16 (~28GB weights) on a 32GB V100: weights leave no room for KV cache ("No available memory for the cache blocks", error only in title/screenshot). Prose only: title and screenshot removed.',
r'''python -m vllm.entrypoints.openai.api_server --model data/Qwen1.5-14B-Chat --host 0.0.0.0 --port 30005 --dtype half --gpu-memory-utilization 0.95

报这个错是什么原因，用的是32GB显存V100
''')

q('near_miss',None,'huggingface/trl#2226',
  'Opposite direction of the TRL doc: processing_class only exists from TRL 0.12; reporter had 0.11.3 and followed docs of main (closed as duplicate). No document covers "library too old for processing_class". Trimmed: title, link to tutorial, run command.',
r'''I am using trl version 0.11.3 by pip installation. I want to reproduce the example code on the huggingface tutorial, but I encounter the error that: TypeError: DPOTrainer.__init__() got an unexpected keyword argument 'processing_class'

This is my code:
```
import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer

from trl import (
    DPOConfig,
    DPOScriptArguments,
    DPOTrainer,
    ModelConfig,
    TrlParser,
    get_kbit_device_map,
    get_peft_config,
    get_quantization_config,
)

def dpo_training():
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2-0.5B-Instruct", cache_dir='/vault/ultraz/llm_models')
    tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2-0.5B-Instruct", cache_dir='/vault/ultraz/llm_models')
    preference_example = {"prompt": "The sky is", "chosen": " blue.", "rejected": " green."}
    training_args = DPOConfig(output_dir="Qwen2-0.5B-DPO", logging_steps=10)
    trainer = DPOTrainer(model=model, args=training_args, processing_class=tokenizer, train_dataset=preference_example)
    trainer.train()

if __name__ == "__main__":
    dpo_training()
```
''')

q('positive','nccl','NVIDIA/nccl#473',
  'NCCL 2.8 SHM transport inside a docker container with the default small /dev/shm; reporter fixed it by running the container with --ipc=host. Report never mentions docker. Trimmed: title, link, reporter\'s fix comment.',
r'''I have installed NCCL by apt:
```
libnccl-dev/unknown,now 2.8.4-1+cuda11.2 amd64 [installed]
libnccl2/unknown,now 2.8.4-1+cuda11.2 amd64 [installed]
```

However, when I ran NCCL tests, I got an error:
```
# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 
#
# Using devices
#   Rank  0 Pid   1688 on    fastmoe device  0 [0x18] GeForce RTX 2080 Ti
#   Rank  1 Pid   1688 on    fastmoe device  1 [0x3b] GeForce RTX 2080 Ti
#   Rank  2 Pid   1688 on    fastmoe device  2 [0x86] GeForce RTX 2080 Ti
#   Rank  3 Pid   1688 on    fastmoe device  3 [0xaf] GeForce RTX 2080 Ti
fastmoe: Test NCCL failure common.cu:777 'unhandled system error'
```
(fasemoe is the name of my conda env.)

Similar problem happened when I run a model which uses NCCL. I got this:
```
RuntimeError: NCCL Error 2: unhandled system error
```

It seems that though NCCL is installed, it can't work.
''')

q('positive','tok','allenai/open-instruct#738',
  'Tulu 3.1 tokenizer.json saved with tokenizers>=0.20 merges format; reporter on tokenizers 0.19.1 (maintainer confirms the version explanation). Trimmed: title, greeting, maintainer reply. Uncertain: maintainer reply is terse.',
r'''I am setting up few things and am getting the following error when trying to load the tokenizer for Tulu 3.1 8B.

`tokenizer = AutoTokenizer.from_pretrained('allenai/Llama-3.1-Tulu-3.1-8B)`

`Exception: data did not match any variant of untagged enum ModelWrapper at line 1251012 column 3`

But 3.1 8B SFT and 3.1 8B DPO are working fine.

Important package versions

```
Transformers version - 4.43.4 
Tokenizer version - 0.19.1
```
''')

q('positive','mtype','OceanGPT/OceanGPT#4',
  'requirements.txt pinned a transformers older than 4.37 -> KeyError qwen2 (maintainers updated requirements). Second, unrelated error (accelerate missing for device_map) kept. Trimmed: title, the sentence proposing transformers==4.37.0, maintainer replies.',
r'''Hi, thank you for your great work!

[...] the currently listed one is giving a `KeyError: 'qwen2'` error.

I also had to install accelerate after getting this:
ImportError: Using `low_cpu_mem_usage=True` or a `device_map` requires Accelerate: `pip install accelerate`
''')

q('negative',None,'modelscope/ms-swift#1314',
  'GPU memory looks full because the PyTorch caching allocator keeps freed blocks reserved (maintainer; also no flash-attn on V100). Not an error. Prose only: title and doc link removed.',
r'''您好，我发现微调时无论怎么设置参数，显存都占得很满，感觉随时都可能爆显存，请问这是怎么回事呢？

```
Sun Jul  7 23:21:53 2024  470.239.06
[0] Tesla V100-SXM2-32GB | 68°C,  84 % | 32507 / 32510 MB |
[1] Tesla V100-SXM2-32GB | 71°C, 100 % | 32381 / 32510 MB |
[2] Tesla V100-SXM2-32GB | 64°C,  61 % | 32377 / 32510 MB |
[3] Tesla V100-SXM2-32GB | 71°C, 100 % | 32269 / 32510 MB |
[4] Tesla V100-SXM2-32GB | 70°C, 100 % | 32495 / 32510 MB |
[5] Tesla V100-SXM2-32GB | 77°C, 100 % | 32257 / 32510 MB |
[6] Tesla V100-SXM2-32GB | 68°C, 100 % | 32233 / 32510 MB |
[7] Tesla V100-SXM2-32GB | 76°C, 100 % | 32175 / 32510 MB |
```

我运行的脚本是官方训练 qwen-vl 的脚本
''')

q('positive','fork','lm-sys/FastChat#3507',
  'vLLM TP workers forked after CUDA init; reporter fixed it with VLLM_WORKER_MULTIPROC_METHOD=spawn. Prose only: title (which held the error) and screenshot removed; fix comment removed.',
r'''I want to use vllm_workers to serve a model. When serving on one GPU, it works fine, but when serving on multiple GPUs (with tensor-parallel-size equals to gpu count), it will raise the following error:
[screenshot]

Does anyone know how to fix it?
''')

q('near_miss',None,'vllm-project/vllm#1284',
  'Looks like the bf16/V100 doc but P100 (sm_60) is below vLLM\'s minimum compute capability 7.0 altogether; --dtype half cannot help (maintainers closed as unsupported). Trimmed: title, discussion.',
r'''Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla P100-PCIE-16GB GPU has compute capability 6.0.
RuntimeError: GPUs with compute capability below 7.0 are not supported.
''')

q('positive','bf16','OpenBuddy/OpenBuddy#45',
  'V100 cannot run bf16 checkpoint in vLLM; reporter found the fp16 route. One-liner (lowercased as posted). Trimmed: Chinese title, replies.',
r'''valueerror: bfloat16 is only supported on gpus with compute capability of at least 8.0. your tesla v100-sxm2-32gb gpu has compute capability 7.0.
''')

q('positive','peft','huggingface/peft#758',
  'Adapter config lists GPT-2 module names (c_attn) that do not exist in the BioGPT base the adapter is loaded on: target_modules do not match the architecture. Trimmed: title, markdown links to source files, replies.',
r'''I have fine-tuned a BioGPT model using Lora, the config can be found in the hub (Lukee4/biogpt-2019) 

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

In the Source code for biogpt/modeling_biogpt there is no c_attn.

When I load gpt2 instead of biogpt everything works fine
''')

q('positive','cudahome','jingyaogong/minimind#48',
  'deepspeed launcher import fails because no CUDA toolkit / CUDA_HOME on the machine (closed). Cut-off traceback: ends before the exception line. Trimmed: title; venv path containing the project name replaced by "...".',
r'''Got this issue when run the command `deepspeed --master_port 29500 --num_gpus=2 1-pretrain.py`

```
CUDA_HOME does not exist, unable to compile CUDA op(s)
```
Here is the full log

```
$ deepspeed --master_port 29500 --num_gpus=2 1-pretrain.py
[2024-09-27 23:42:23,326] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)
Traceback (most recent call last):
  File "/home/bill/study/github/.../venv/bin/deepspeed", line 3, in <module>
    from deepspeed.launcher.runner import main
  File "/home/bill/study/github/.../venv/lib/python3.11/site-packages/deepspeed/__init__.py", line 25, in <module>
    from . import ops
  File "/home/bill/study/github/.../venv/lib/python3.11/site-packages/deepspeed/ops/__init__.py", line 15, in <module>
    from ..git_version_info import compatible_ops as __compatible_ops__
  File "/home/bill/study/github/.../venv/lib/python3.11/site-packages/deepspeed/git_version_info.py", line 29, in <module>
    op_compatible = builder.is_compatible()
                    ^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/bill/study/github/.../venv/lib/python3.11/site-packages/deepspeed/ops/op_builder/fp_quantizer.py", line 35, in is_compatible
    sys_cuda_major, _ = installed_cuda_version()
```
''')

q('negative',None,'hiyouga/LlamaFactory#4543',
  'Gated Hugging Face repo, no token configured (maintainer: log in / use ModelScope hub); closed as solved. Trimmed: title, URLs, the request-id line, sentences mentioning the ModelScope workaround.',
r'''### System Info

- `llamafactory` version: 0.8.3.dev0
- Platform: Windows-10-10.0.22631-SP0
- Python version: 3.10.9
- PyTorch version: 2.1.2+cu118 (GPU)
- Transformers version: 4.41.2
- Datasets version: 2.19.1
- Accelerate version: 0.31.0
- PEFT version: 0.11.1
- TRL version: 0.9.4
- GPU type: NVIDIA GeForce RTX 4090

### Reproduction

OSError: You are trying to access a gated repo.
Make sure to have access to it at <url>.
401 Client Error.

Cannot access gated repo for url <url>/mistralai/Mistral-7B-Instruct-v0.3/resolve/main/config.json.
Access to model mistralai/Mistral-7B-Instruct-v0.3 is restricted. You must be authenticated to access it.

### Expected behavior

expecting it to show me where to put token or just download it

### Others

i am using the gui, there is no place to enter any token, api key, login information or anything.
''')

q('positive','trl','huggingface/trl#6168',
  'tokenizer= passed to SFTTrainer; the kwarg was removed (processing_class) and the base Trainer rejects it. Reporter then hits a second TypeError with another argument (kept, cut as posted). Uncertain: the thread also involves other SFTConfig/SFTTrainer argument changes.',
r'''### Reproduction

```python
from trl import SFTTrainer, SFTConfig

dataset = ...

SFT_config = SFTConfig(
    output_dir=output_dir,
    per_device_train_batch_size=1,
    gradient_accumulation_steps=8,
    learning_rate=6e-5,
    num_train_epochs=100,
    fp16=True,
    logging_strategy="steps",
    logging_steps=5,
    save_strategy="steps",
    save_steps=100,
    optim="adamw_torch",
    report_to="none",
    seed=SEED,
    data_seed=SEED,
    remove_unused_columns=False,
    max_seq_length=512,
)

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
TypeError: SFTTrainer.__init__() got an unexpected keyword argument
''')

q('near_miss',None,'bigscience-workshop/petals#508',
  'Target modules [] because the distributed model keeps transformer blocks remote (RemoteSequential), so there are no local Linear layers; LoRA via PEFT was not supported yet (reporter closed it). Not a naming mistake. Trimmed: title, sentence about the project documentation.',
r'''After loading the model (llama 2 70b) via `AutoDistributedModelForCausalLM`, the following line
```python
    model = get_peft_model(model, config)
```
is crashing with a `ValueError: Target modules [] not found in the base model. Please check the target modules and try again.` in `peft/tuners/tuners_utils.py:222` in `inject_adapter`.

Edit: The list is empty ([]) because a previous function that attempts to locate all LoRA trainable modules is coming up empty handed. The module list and its corresponding classes is:
```python
 is <class 'petals.models.llama.model.DistributedLlamaForCausalLM'>
model is <class 'petals.models.llama.model.DistributedLlamaModel'>
model.embed_tokens is <class 'torch.nn.modules.sparse.Embedding'>
model.layers is <class 'petals.client.remote_sequential.RemoteSequential'>
model.norm is <class 'transformers.models.llama.modeling_llama.LlamaRMSNorm'>
lm_head is <class 'petals.client.lm_head.LMHead'>
```
None of the usual LoRA modules are present, e.g. q_proj, v_proj, etc, so I am still thoroughly stuck.
''')

q('positive','fa','Dao-AILab/flash-attention#853',
  'Prebuilt flash-attn wheel not matching the installed torch / C++ ABI (thread: the cxx11abiFALSE wheel fixed it; reinstall matching wheel). Quoted from a comment; trimmed: title, other comments.',
r'''I also encountered the issue. Could you please advise how to fix the issue? Thanks.

```
import torch
import flash_attn_2_cuda as flash_attn_cuda
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
ImportError: /XXXXX/lib/python3.11/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi
```
My environment is as follows:
- OS: Red Hat Enterprise Linux 8.4
- Python: 3.11.7
- PyTorch: 2.3.1+cu121
- CUDA: 12.2
- flash-attn: 2.5.9.post1
''')

q('positive','cpu','facebookresearch/detectron2#460',
  'CPU-only PyTorch build installed ("a pytorch installation issue", maintainer). Trimmed: title.',
r'''I followed the documentation，then.... 

File "/home/xx/anaconda3/envs/tf-gpu/lib/python3.7/site-packages/torch/cuda/__init__.py", line 95, in _check_driver
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled
''')

q('near_miss',None,'huggingface/transformers#30382',
  'Same serde "untagged enum" family but the opposite direction: CodeQwen1.5 tokenizer.json could not be parsed by the newer tokenizers pulled in by transformers 4.40 (4.39.1 fine); fixed by a tokenizer.json update in the model repo. Trimmed: title, issue template, full traceback tail.',
r'''### Describe the bug

When using transformers==4.40.0 , some unexcepted error happend, when i load codeqwen model. transformers==4.39.1 is ok, but 4.40.0 failed.

```
Exception: data did not match any variant of untagged enum PyPreTokenizerTypeWrapper at line 12564 column 3
```

### Reproduction

from transformers import AutoTokenizer, AutoModelForCausalLM
device = "cuda" # the device to load the model onto
import torch
checkpoint = ""Qwen/CodeQwen1.5-7B""

TOKENIZER = AutoTokenizer.from_pretrained(checkpoint)

### Logs

```shell
Traceback (most recent call last):
  File "/xxx/test_code.py", line 8, in <module>
    TOKENIZER = AutoTokenizer.from_pretrained(checkpoint)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/xxx/anaconda3/envs/py311/lib/python3.11/site-packages/transformers/models/auto/tokenization_auto.py", line 862, in from_pretrained
    return tokenizer_class.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
''')

q('positive','mtype','QwenLM/Qwen3#247',
  'Qwen1.5 needs transformers>=4.37.0 (maintainer confirms; installing was blocked by network). Trimmed: title, maintainer reply.',
r'''按照quick start中的 transformer调用方法，给的例子运行。报错KeyError: 'qwen2' 。 是不是因为transformers版本低于4.37.0导致的。 我尝试了安装transformers==4.37.1， 但是超时。换源也找不到资源，求教~
''')

q('negative',None,'jzhang38/TinyLlama#32',
  'Pure half-precision training via model.half() (no fp32 master weights) -> loss 0 / NaN; maintainer: use mixed precision instead. No document covers it. Prose only; trimmed: title, link to script, maintainer answer.',
r'''Hello,
I am trying to finetune the model with the script you provided, on four RTX 3090 GPUs.
However, I was getting a CUDA out of memory issue, so I made the following change:
```
model = AutoModelForCausalLM.from_pretrained(
    args.model_name_or_path,
    device_map=device_map,
    trust_remote_code=args.trust_remote_code
)
model = model.half()
```
It now fits on my gpu, but the training loss becomes 0 after a single batch, and the evaluation loss is nan.
I tried to check the predictions of the model after training, but its output contains nan so it does not work.
What I already tried to solve the issue:
- different hyper-parameters (lr and wd)
- different datasets (alpaca-cleaned and osst1)

But I get the same result every time. I am assuming this is due to the use of float16, since it is the main difference between my code and the original code. Do you have an idea of what is happening, and of what I could do about it?
Thank you!
''')

q('positive','fork','vllm-project/vllm#6152',
  'CUDA initialised in the parent before vLLM forks TP workers; maintainer: you initialised CUDA before vLLM, VLLM_WORKER_MULTIPROC_METHOD=spawn helps. Trimmed: title, replies.',
r'''### Your current environment

vllm version: '0.5.0.post1'

### 🐛 Describe the bug

When I set tensor_parallel_size=1, it works well.
But, if I set tensor_parallel_size>1, below error occurs:
RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method.
After I add
```
import torch
import multiprocessing
torch.multiprocessing.set_start_method('spawn')
```
the same RuntimeError still occurs.
''')

q('near_miss',None,'hiyouga/LlamaFactory#7065',
  'Same RuntimeError as the dataset-format distractor, but the format was correct: only ~20 plain-text samples, too few (maintainer: 数据太少了). Trimmed: title, replies.',
r'''我在训练模型时把c4_demo.json里面的内容换成我想用来训练的数据，并且使格式保持一致，结果为RuntimeError: Cannot find valid samples, check `data/README.md` for the data format.
请问怎么把纯文本数据用来训练模型呢？
''')

q('positive','nccl','fal-ai-community/video-diffusion-speedrun#2',
  'Docker default /dev/shm too small for NCCL shared-memory segment; reporter fixed it with --shm-size=1g. Trimmed: title, greeting, the fix paragraph and commands.',
r'''It almost worked except for the `Error while creating shared memory segment /dev/shm/nccl-pZafXL (size 7340384)` when I tried it first time (Docker version 24.0.7, build 24.0.7-0ubuntu2~22.04.1)
''')

q('negative',None,'databrickslabs/dolly#139',
  'Disk full while writing checkpoints (maintainer: ran out of disk space). Trimmed: title, replies, repeated log prefixes shortened.',
r'''Hello all, 

Unfortunately, I ran out of space training the 3B model. I'm using a `p3.16xlarge` instance and it ran out of space on epoch 0.3. Any advice on how to resolve? 

Full error:

```
2023-04-29 06:01:12 ERROR [__main__] main failed
Traceback (most recent call last):
  File "/opt/conda/lib/python3.7/site-packages/torch/serialization.py", line 379, in save
    _save(obj, opened_zipfile, pickle_module, pickle_protocol)
  File "/opt/conda/lib/python3.7/site-packages/torch/serialization.py", line 604, in _save
    zip_file.write_record(name, storage.data_ptr(), num_bytes)
OSError: [Errno 28] No space left on device
```
''')

q('positive','arch','mit-han-lab/llm-awq#298',
  'RTX 5090 (sm_120): the project\'s CUDA kernels were built without sm_120 (fix: a setup.py that adds the arch). Same mechanism as the document (binary lacks the GPU arch). One-liner with a Chinese word; trimmed: Chinese title, reply.',
r'''RuntimeError: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.  报错
''')

q('near_miss',None,'ggml-org/llama.cpp#10103',
  'Looks like "runner too old for new architecture" but sd3 is a diffusion model; llama.cpp only supports language models (maintainer, same on the duplicate thread). Trimmed: title, screenshot, model link.',
r'''### What happened?

Model: city96/stable-diffusion-3.5-medium-gguf/sd3.5_medium-Q4_0.gguf

### Name and Version

LM Studio Version: [0.3.5] _WindowsOS_

### What operating system are you seeing the problem on?

Windows

### Relevant log output

```shell
🥲 Failed to load the model

Failed to load model

llama.cpp error: 'error loading model architecture: unknown model architecture: 'sd3''
```
''')

q('positive','kv','QwenLM/Qwen#853',
  'Qwen-72B-Chat bf16 (~144GB weights) on 4xA100-40G: weights leave (almost) no KV cache -> "No available memory for the cache blocks" (error only in title). Prose + environment only; trimmed: title, template checkboxes, later comments.',
r'''### 当前行为 | Current Behavior

之前在4张A100-40G上vllm部署Qwen-72B-Chat成功。现在重装了环境，却无法复制出之前的vllm部署。不使用vllm直接用四张卡推理是成功的。
我的环境：
cuda toolkit:
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2023 NVIDIA Corporation
Built on Fri_Nov__3_17:16:49_PDT_2023
Cuda compilation tools, release 12.3, V12.3.103
Build cuda_12.3.r12.3/compiler.33492891_0

torch版本：'2.1.2+cu121'
transformers: 4.36.2
vllm: 0.2.6

感谢解答！

### 期望行为 | Expected Behavior

预期4张A100-40G能成功，且之前一直是成功的。最近重装环境，各种库都下载的最新版，却失败了

### 复现方法 | Steps To Reproduce

python -m fastchat.serve.vllm_worker --model-path /LLMs/Qwen-72B-Chat --trust-remote-code --tensor-parallel-size 4 --dtype bfloat16 --enforce-eager
''')

q('negative',None,'ray-project/ray#45894',
  'Ray memory monitor killed workers: task memory exceeded node RAM; reporter fixed it by reducing tasks per worker. Trimmed: title, template, replies.',
r'''### What happened + What you expected to happen

Hello dears, 

I am running into an issue with Ray worker; it gets crashes when running a high memory consuming task with the below error:

(raylet) node_manager.cc:2963: 1 Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: effcf9ebbdbb07348e8e854f957c89b8d8425c62407725df832963a2, IP: 172.19.0.10) over the last time period. To see more information about the Workers killed on this node, use `ray logs raylet.out -ip 172.19.0.10`

Is there any way to avoid Ray worker crash for such heavy tasks?

### Versions / Dependencies

ray=2.20.0
''')

q('positive','cudahome','LlamaChinese/Llama-Chinese#168',
  'pip install deepspeed builds ops at metadata time and finds no CUDA toolkit (CUDA_HOME). Open thread; cause is the assertion itself. Trimmed: Chinese title, replies.',
r'''# pip3 install deepspeed
Collecting deepspeed
  Downloading deepspeed-0.10.2.tar.gz (858 kB)
     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 858.2/858.2 kB 12.8 kB/s eta 0:00:00
  Preparing metadata (setup.py) ... error
  error: subprocess-exited-with-error

  × python setup.py egg_info did not run successfully.
  │ exit code: 1
  ╰─> [8 lines of output]
      Traceback (most recent call last):
        File "<string>", line 2, in <module>
        File "<pip-setuptools-caller>", line 34, in <module>
        File "/tmp/pip-install-n7q5q2ea/deepspeed_764ee70823304e0a82a71c4c788744d7/setup.py", line 100, in <module>
          cuda_major_ver, cuda_minor_ver = installed_cuda_version()
        File "/tmp/pip-install-n7q5q2ea/deepspeed_764ee70823304e0a82a71c4c788744d7/op_builder/builder.py", line 41, in installed_cuda_version
          assert cuda_home is not None, "CUDA_HOME does not exist, unable to compile CUDA op(s)"
      AssertionError: CUDA_HOME does not exist, unable to compile CUDA op(s)
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
error: metadata-generation-failed

有部署成功的docker镜像嘛？
''')

q('near_miss',None,'pytorch/pytorch#28111',
  'Same AssertionError but the user has no CUDA/GPU and wants CPU; the third-party code hard-requires CUDA (maintainer: ask the code authors, that code requires cuda). Not a wrong wheel. Trimmed: title, link to the example script.',
r'''Hi ... when i am running this code:
examples/mnist/reservoir.py

I get this error:

`AssertionError: Torch not compiled with CUDA enabled`

I have not installed cuda and i don't want to do that
How can i run this code on CPU
I will appreciate if anyone give me a help on this
''')

q('positive','tok','lllyasviel/FramePack#147',
  'Old transformers/tokenizers (loaded from the user site-packages in AppData\\Roaming, shadowing the bundle) cannot read the HunyuanVideo tokenizer.json (closed). Mentions another, unrelated error in passing. Trimmed: title, replies.',
r'''用一键安装包，加上package_installer后，执行run后出现下面错误。
如何解决？

 data did not match any variant of untagged enum ModelWrapper at line 1251019 column 3

问题1：为什么不直接用一键安装。
回答：执行完update后，根本就进行不到下载那里，会出现别的错误

E:\ai\...>python -V
Python 3.10.11

完整错误信息
Traceback (most recent call last):
  File "E:\ai\...\webui\demo_gradio.py", line 51, in <module>
    tokenizer = LlamaTokenizerFast.from_pretrained("hunyuanvideo-community/HunyuanVideo", subfolder='tokenizer')
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\tokenization_utils_base.py", line 2029, in from_pretrained
    return cls._from_pretrained(
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\tokenization_utils_base.py", line 2261, in _from_pretrained
    tokenizer = cls(*init_inputs, **init_kwargs)
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\models\llama\tokenization_llama_fast.py", line 124, in __init__
    super().__init__(
  File "C:\XX\AppData\Roaming\Python\Python310\site-packages\transformers\tokenization_utils_fast.py", line 111, in __init__
    fast_tokenizer = TokenizerFast.from_file(fast_tokenizer_file)
data did not match any variant of untagged enum ModelWrapper at line 1251019 column 3
''')

q('negative',None,'NVIDIA/Megatron-LM#296',
  'Checkpoint saved with tensor_model_parallel_size=1 loaded with TP=2; needs checkpoint conversion (maintainer: no utility at the time). Trimmed: title, replies.',
r'''Hello, I want to fine-tune an existing GPT model using megatron, but I got this error: 
```
  File "/mnt/workspace/alibee-shop-megatron/megatron/checkpointing.py", line 58, in _compare
    assert checkpoint_value == args_value, error_message
AssertionError: tensor_model_parallel_size value from checkpoint (1) is not equal to the input argument value (2).
```

I guess this is because the existing model is trained with `tensor-model-parallel-size 1` and I set this parameter to 2 due to my GPU memory limitation. I am wondering is there an approach to change checkpoints `tensor-model-parallel-size` param?
''')

q('positive','arch','yuhongtian17/Spatial-Transform-Decoupling#15',
  'RTX 3090 (sm_86) with pytorch 1.7.0 + cudatoolkit 10.1, which has no sm_86 kernels ("no kernel image", in the title); maintainer points to the environment note. Prose/env only; trimmed: title, replies.',
r'''GPU3090，
nvidia-smi：CUDA Version: 12.4，
nvcc-V:nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Built on Tue_Feb_27_16:19:38_PST_2024
Cuda compilation tools, release 12.4, V12.4.99
Build cuda_12.4.r12.4/compiler.33961263_0
pytorch：python=3.7 pytorch==1.7.0 cudatoolkit=10.1 torchvision -c pytorch

我的CUDA是12.4，请问应该安装哪个版本的python和pytorch呢
''')

q('near_miss',None,'bitsandbytes-foundation/bitsandbytes#492',
  'CUDA Setup failed on Linux (CentOS) with an old bitsandbytes; maintainer: upgrading bitsandbytes resolves it. Not the Windows-binary distractor. Trimmed: title, URL.',
r'''│   21 │   │   CUDA Setup failed despite GPU being available. Please run the f │
│   22 │   │                                                                   │
│   23 │   │   python -m bitsandbytes                                          │
╰──────────────────────────────────────────────────────────────────────────────╯
RuntimeError: 
        CUDA Setup failed despite GPU being available. Please run the following 
command to get more information:

        python -m bitsandbytes

        Inspect the output of the command and see if you can locate CUDA 
libraries. You might need to add them
        to your LD_LIBRARY_PATH. If you suspect a bug, please take the 
information from python -m bitsandbytes
        and open an issue at: <url>
''')

q('positive','cpu','zhysora/UCGAN#2',
  'CPU-only PyTorch installed (maintainer: pytorch 没有安装 gpu 版). One-liner in Chinese; trimmed: title, reply.',
r'''“AssertionError: Torch not compiled with CUDA enabled”，请问这个错误怎么解决啊
''')

q('negative',None,'huggingface/trl#1173',
  'fp16 overflow during long training on V100 (loss 0 / eval NaN); maintainer suggests bf16, which V100 lacks. No document covers fp16 overflow. Prose only; trimmed: title, maintainer question.',
r'''I’m trying to train llama2 on 400000 steps when the training reaches 23000 steps the loss is 0.0 in train and nan in eval 
My hardware :
4 16Gp v100

My gpu is v100 not supported for bf16
''')

q('positive','fork','EleutherAI/lm-evaluation-harness#2704',
  'vLLM TP>1 workers forked by multiprocessing after CUDA was initialised by the harness (closed; same mechanism). Cut-off log: never shows the final exception. Trimmed: title, rest of the log.',
r'''When running lm_eval with TP > 1 using vLLM v0.7.1, it throws a CUDA-related error due to multiprocessing.
The same script works fine with TP = 1.

### Script
```
python -m lm_eval --model=vllm \
     --model_args=pretrained=meta-llama/Meta-Llama-3-8B,tensor_parallel_size=2,gpu_memory_utilization=0.75,enforce_eager=True,trust_remote_code=True,max_gen_toks=256 \
     --tasks=lambada_openai,hellaswag \
     --batch_size=4 \
     --output_path=./outputs
```

### Error message
```
(VllmWorkerProcess pid=140536) INFO 02-16 09:08:11 multiproc_worker_utils.py:227] Worker ready; awaiting tasks
INFO 02-16 09:08:12 cuda.py:235] Using Flash Attention backend.
(VllmWorkerProcess pid=140536) INFO 02-16 09:08:12 cuda.py:235] Using Flash Attention backend.
(VllmWorkerProcess pid=140536) ERROR 02-16 09:08:12 multiproc_worker_utils.py:240] Exception in worker VllmWorkerProcess while processing method init_device.
(VllmWorkerProcess pid=140536) ERROR 02-16 09:08:12 multiproc_worker_utils.py:240] Traceback (most recent call last):
(VllmWorkerProcess pid=140536) ERROR 02-16 09:08:12 multiproc_worker_utils.py:240]   File "/vllm-v0.7.1/vllm/executor/multiproc_worker_utils.py", line 234, in _run_worker_process
```
''')

q('near_miss',None,'huggingface/transformers#38517',
  'KeyError from the auto mapping, but for a custom reward-model config class (Qwen2RMConfig) registered by another library, on a current transformers 4.51.3: not an outdated transformers. Uncertain: thread open. Trimmed: title, template.',
r'''### System Info

File "/anaconda/envs/openrlhf/lib/python3.10/site-packages/transformers/models/auto/auto_factory.py", line 767, in __getitem__
    model_type = self._reverse_config_mapping[key.__name__]
KeyError: 'Qwen2RMConfig'

transformers version is 4.51.3

### Reproduction

we use the lastest version of openrlhf、vllm、transformers

### Expected behavior

Can you merge QwenRMconfig into the lastest version of transformers
''')

q('positive','peft','hiyouga/LlamaFactory#37',
  'Default lora target q_proj,v_proj does not exist in Baichuan-7B (fused W_pack); later docs/replies: use W_pack. Cut-off traceback (final ValueError only in the title). Trimmed: title; project-name directory in paths replaced by "...".',
r'''是不是还不支持baichuan-7B基座模型，还是说我PEFT的版本有问题？

Traceback (most recent call last):
  File "/home/jerome/github/.../src/train_sft.py", line 98, in <module>
    main()
  File "/home/jerome/github/.../src/train_sft.py", line 26, in main
    model, tokenizer = load_pretrained(model_args, finetuning_args, training_args.do_train, stage="sft")
  File "/home/jerome/github/.../src/utils/common.py", line 216, in load_pretrained
    model = _init_adapter(model, model_args, finetuning_args, is_trainable, is_mergeable)
  File "/home/jerome/github/.../src/utils/common.py", line 133, in _init_adapter
    model = get_peft_model(model, lora_config)
  File "/home/jerome/anaconda3/envs/left/lib/python3.10/site-packages/peft/mapping.py", line 120, in get_peft_model
    return MODEL_TYPE_TO_PEFT_MODEL_MAPPING[peft_config.task_type](model, peft_config)
  File "/home/jerome/anaconda3/envs/left/lib/python3.10/site-packages/peft/peft_model.py", line 662, in __init__
    super().__init__(model, peft_config, adapter_name)
  File "/home/jerome/anaconda3/envs/left/lib/python3.10/site-packages/peft/peft_model.py", line 99, in __init__
    self.base_model = PEFT_TYPE_TO_MODEL_MAPPING[peft_config.peft_type](
''')

q('negative',None,'genggui001/Megatron-DeepSpeed-Llama#7',
  'Loss jumps from 2 to 10 after the first update when continuing Llama training in bf16; maintainer tested bf16 loading fine and pointed to the learning rate. Uncertain: the reporter did not confirm. Prose only; trimmed: title, reply.',
r'''hello，你好，我这里遇到了一个问题，
我用bf16的精度训练llama，
模型没有更新权重前loss为2，
在第一次更新权重后，模型的loss变为10，然后缓慢下降，（下降速度就跟随机初始化的权重一样）。
我打印出第一次更新前和更新后的权重对比，差异比较大
请问你有遇到类似的问题吗？
你用bf16能正常加载llama继续训练吗
''')

q('positive','bf16','substratusai/vllm-docker#37',
  'T4 (sm_75) cannot run bf16 in vLLM; needs dtype half passed through to the container. Trimmed: title.',
r'''I'm getting this error:

ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.

Is there a way to pass the set the dtype parameter?
''')

q('near_miss',None,'abetlen/llama-cpp-python#653',
  'Old GGML v3 .bin file: llama.cpp dropped GGML in favour of GGUF, so the file must be converted (reply: convert-llama-ggmlv3-to-gguf). Not a new architecture. Trimmed: title, reply.',
r'''llama.cpp: loading model from models\llama-2-7b-chat.ggmlv3.q8_0.bin
error loading model: unknown (magic, version) combination: 67676a74, 00000003; is this really a GGML file?  
llama_init_from_file: failed to load model
''')

q('positive','trl','BunsenFeng/model_collaboration#76',
  'DPOTrainer called with tokenizer= on a TRL version that removed the alias (processing_class). Quoted from a review comment; trimmed: PR title, mention, link, the rest of the traceback.',
r'''Error occurred with config 4:
```
[DPO] Adapter merged successfully.
multiprocessing.pool.RemoteTraceback: 
"""
Traceback (most recent call last):
  File "/opt/conda/envs/.../lib/python3.11/multiprocessing/pool.py", line 125, in worker
    result = (True, func(*args, **kwds))
                    ^^^^^^^^^^^^^^^^^^^
  File "/opt/conda/envs/.../lib/python3.11/multiprocessing/pool.py", line 51, in starmapstar
    return list(itertools.starmap(args[0], args[1]))
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/.../utils/distributed_dpo.py", line 92, in single_dpo
    trainer = DPOTrainer(
              ^^^^^^^^^^^
TypeError: DPOTrainer.__init__() got an unexpected keyword argument 'tokenizer'
"""
```
''')

os.makedirs(os.path.join(BASE,'queries'), exist_ok=True)
with open(os.path.join(BASE,'labels.jsonl'),'w') as lf:
    for i,(kind,exp,src,note,text) in enumerate(Q,1):
        name = f'queries/h27_q{i:02d}.txt'
        open(os.path.join(BASE,name),'w').write(text)
        lf.write(json.dumps({'query':name,'expected':exp,'kind':kind,'source':src,'note':note}, ensure_ascii=False)+'\n')
print(len(Q))
