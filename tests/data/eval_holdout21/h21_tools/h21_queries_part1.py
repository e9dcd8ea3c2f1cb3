Q = []
def add(key, kind, expected, source, note, text):
    Q.append(dict(key=key, kind=kind, expected=expected, source=source, note=note, text=text.strip("\n")+"\n"))

C = "corpus/"
# ---------------- positives ----------------
add("p1a","positive",C+"h21_vllm_bf16_on_pre_ampere_gpu_en.md","OpenBuddy/OpenBuddy#45",
 "V100 (cc 7.0) cannot run the bf16 checkpoint in vLLM; reporter resolved by converting to fp16 (maintainer: convert on CPU). One-liner, lower-cased as posted; zh title removed.",
"""valueerror: bfloat16 is only supported on gpus with compute capability of at least 8.0. your tesla v100-sxm2-32gb gpu has compute capability 7.0.""")

add("p1b","positive",C+"h21_vllm_bf16_on_pre_ampere_gpu_en.md","verl-project/verl#2594",
 "GRPO rollout via vLLM on V100 defaults to bf16; the error itself states the cause (no native bf16 below cc 8.0), fix = half dtype. Removed the title and the closing question about which config to change.",
"""My device is Tesla V100-SXM2-32GB with CUDA=12.2. Environment:  verl==0.4.1.x  torch==2.4.0  tensordict==0.5.0  vllm==0.6.3
I tried training a qwen-2.5-0.5b-instruct with grpo on gsm8k, and it raised an ValueError:

ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: --dtype=half.""")

add("p2a","positive",C+"h21_tokenizers_too_old_for_tokenizer_json_zh.md","lllyasviel/FramePack#147",
 "Windows user site-packages (AppData\\Roaming\\Python) shadows the bundled env with an old transformers/tokenizers that cannot parse the newer tokenizer.json (ModelWrapper). Resolution comment not visible in the stored excerpt: label rests on the shared, well-established cause (see README uncertain labels).",
"""用一键安装包，加上package_installer后，执行run后出现下面错误。
如何解决？

 data did not match any variant of untagged enum ModelWrapper at line 1251019 column 3

E:\\ai\\framepack_cu126_torch26>python -V
Python 3.10.11

完整错误信息
Traceback (most recent call last):
  File "E:\\ai\\framepack_cu126_torch26\\webui\\demo_gradio.py", line 51, in <module>
    tokenizer = LlamaTokenizerFast.from_pretrained("hunyuanvideo-community/HunyuanVideo", subfolder='tokenizer')
  File "C:\\XX\\AppData\\Roaming\\Python\\Python310\\site-packages\\transformers\\tokenization_utils_base.py", line 2029, in from_pretrained
    return cls._from_pretrained(
  File "C:\\XX\\AppData\\Roaming\\Python\\Python310\\site-packages\\transformers\\tokenization_utils_base.py", line 2261, in _from_pretrained
    tokenizer = cls(*init_inputs, **init_kwargs)
  File "C:\\XX\\AppData\\Roaming\\Python\\Python310\\site-packages\\transformers\\models\\llama\\tokenization_llama_fast.py", line 124, in __init__
    super().__init__(
  File "C:\\XX\\AppData\\Roaming\\Python\\Python310\\site-packages\\transformers\\tokenization_utils_fast.py", line 111, in __init__
    fast_tokenizer = TokenizerFast.from_file(fast_tokenizer_file)
data did not match any variant of untagged enum ModelWrapper at line 1251019 column 3""")

add("p2b","positive",C+"h21_tokenizers_too_old_for_tokenizer_json_zh.md","kvcache-ai/ktransformers#433",
 "Same ModelWrapper deserialisation failure loading a recent model's tokenizer.json with an older tokenizers in the env. Cut-off traceback: the final exception line (in the title) is not included.",
"""python local_chat.py --model_path=/opt/ai/HuatuoGPT/HuatuoGPT-o1-70B/ --gguf_path=/opt/ai/HuatuoGPT/HuatuoGPT-o1-72B-Q4_K_M.gguf --optimize_rule_path=./optimize/optimize_rules/DeepSeek-V3-Chat.yaml

Traceback (most recent call last):
  File "/opt/ai/ktransformers/ktransformers/local_chat.py", line 179, in <module>
    fire.Fire(local_chat)
  File "/home/daolin/.local/lib/python3.12/site-packages/fire/core.py", line 135, in Fire
    component_trace = _Fire(component, args, parsed_flag_args, context, name)
                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/daolin/.local/lib/python3.12/site-packages/fire/core.py", line 468, in _Fire
    component, remaining_args = _CallAndUpdateTrace(
                                ^^^^^^^^^^^^^^^^^^^^
  File "/home/daolin/.local/lib/python3.12/site-packages/fire/core.py", line 684, in _CallAndUpdateTrace
    component = fn(*varargs, **kwargs)
                ^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/ai/ktransformers/ktransformers/local_chat.py", line 71, in local_chat
    tokenizer = AutoTokenizer.from_pretrained(model_path, trust_remote_code=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^""")

add("p3a","positive",C+"h21_vllm_max_model_len_exceeds_kv_cache_zh.md","vllm-project/vllm#10517",
 "RTX 3090 + Llama-3.1-8B: with --max-model-len 29000 the KV cache left after weights (23648 tokens) is smaller than one max-length sequence; fix is smaller max_model_len or higher gpu_memory_utilization. Trimmed to one commenter's log.",
"""It is strange that in my case I can run 20k,  35k, or 45k, but if I set --max-model-len to 29k it throws an error
GPU: RTX 3090
MODEL: meta-llama/Llama-3.1-8B-Instruct

20k - OK
```
Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.06GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=3.81GiB gpu_memory_utilization=0.90
GPU blocks: 1952, # CPU blocks: 2048
Maximum concurrency for 20000 tokens per request: 1.56x
```

**29k - BAD**
```
Loading model weights took 14.9888 GB
Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB peak_torch_memory=17.98GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB kv_cache_size=2.89GiB gpu_memory_utilization=0.90
# GPU blocks: 1478, # CPU blocks: 2048
Maximum concurrency for 29000 tokens per request: 0.82x
The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
```""")

add("p3b","positive",C+"h21_vllm_max_model_len_exceeds_kv_cache_zh.md","vllm-project/vllm#11391",
 "Usage question: KV cache capacity (43328 tokens) smaller than the requested 56000 max length; reporter confirms a smaller --max-model-len solves it. Removed the title, the env template, the checklist and the sentence stating the workaround.",
"""I have encountered "The model's max seq len (56000) is larger than the maximum number of tokens that can be stored in KV cache (43328)" numerous times. What makes it more complicated is that the KV cache number changes automatically when we set different --max-model-len. My question is: 1) can we change the size of KV cache? 2) how? 3) Anyway for us user to manage the KV cache issue more directly?""")

add("p4a","positive",C+"h21_nccl_docker_default_shm_64mb_en.md","NVIDIA/nccl#473",
 "NCCL 'unhandled system error' with 4 GPUs in a container; reporter: shared memory in docker, fixed with --ipc=host. Removed the fix comment and the link.",
"""I have installed NCCL by apt:
```
libnccl-dev/unknown,now 2.8.4-1+cuda11.2 amd64 [installed]
libnccl2/unknown,now 2.8.4-1+cuda11.2 amd64 [installed]
```

However, when I ran NCCL_tests, I got an error:
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

It seems that though NCCL is installed, it can't work.""")

add("p4b","positive",C+"h21_nccl_docker_default_shm_64mb_en.md","MiniMax-AI/MiniMax-01#42",
 "vLLM TP in the official docker image on an 8xH200 VM; maintainer reads the debug log: 'Error while creating shared memory segment /dev/shm/nccl-xxxxx', /dev/shm too small. Kept the reporter's error line and replies; removed the maintainer's diagnosis.",
"""(VllmWorkerProcess pid=221) ERROR 04-06 20:46:48 [multiproc_worker_utils.py:238] torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5

Yes we are using official docker.

Here's some of the debug info. I am using a VM from HPC-AI to test and I can't seem to easily get newer nccl version running from within the container. I'll try with a different cloud provider tomorrow.""")

add("p5a","positive",C+"h21_nvidia_driver_older_than_torch_cuda_zh.md","RVC-Boss/GPT-SoVITS#83",
 "Driver only supports CUDA 11.4 while the installed torch is built for a newer CUDA; maintainer: torch too new for the installed driver. Single error line as posted (zh title and replies removed).",
"""`RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new versi        on from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled         with your version of the CUDA driver.`""")
