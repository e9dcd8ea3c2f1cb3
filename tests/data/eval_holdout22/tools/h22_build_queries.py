# Builds queries/ and labels.jsonl for eval_holdout22 from the texts below (quoted, trimmed thread text).
import json, random, os
BASE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C = "corpus/"
Q = []
def add(kind, expected, source, note, text, tags=()):
    Q.append(dict(kind=kind, expected=(C + expected) if expected else None, source=source, note=note, text=text.strip("\n") + "\n", tags=list(tags)))

# ---------------- positives ----------------
add("positive", "h22_tokenizers_too_old_untagged_enum_zh.md", "hiyouga/LlamaFactory#5298",
    "tokenizer.json newer than installed tokenizers; maintainer points to the chatchat thread where changing tokenizers/transformers versions resolved it (label 'solved'). Trimmed: title, maintainer links, spam comments.",
"""### Reminder

- [X] I have read the README and searched the existing issues.

### System Info

v0.8.3  ubuntu20

### Reproduction

步骤：1. 下载v0.8.3， 2. pip install -r requirements.txt  3. pip install -e .[metrics,modelscope,qwen]   4. llamafactory-cli webui  训练模型报Exception: data did not match any variant of untagged enum PyPreTokenizerTypeWrapper at line 12564 column 3  哪位大佬指点下怎么解决，按照网上办法修改tokenizers     这个版本，感觉解决不了问题

### Expected behavior

正常训练
""", tags=["zh"])

add("positive", "h22_tokenizers_too_old_untagged_enum_zh.md", "chatchat-space/Langchain-Chatchat#3910",
    "Same PyPreTokenizerTypeWrapper failure (in title only); reporter resolved by moving tokenizers 0.15.0->0.15.2 / transformers 4.36.2->4.38.2, maintainer also notes the model repo re-saved tokenizer. Only the reporter's version reply is kept: prose-only, no error line.",
"""tokenizers: 0.15.0
transformers: 4.36.2

你觉得这个可能是llm model和`transformers` 和 `tokenizers`兼容问题吗？
我也搞不清和embedding model bge-large-en-v1.5有没有关系，反正是用 BAAI的bge-large那几个模型都是同样的报错
""", tags=["zh", "noerr"])

add("positive", "h22_vllm_max_model_len_exceeds_kv_cache_en.md", "xusenlinzy/api-for-open-llm#225",
    "vLLM 0.2.7 default max_model_len 8192 > KV cache 4512; maintainer: set a smaller context length (CONTEXT_LEN=4096). Trimmed: title, checklist, maintainer reply.",
"""### 问题类型 | Type of problem

None

### 操作系统 | Operating system

None

### 详细描述问题 | Detailed description of the problem

The model's max seq len (8192) is larger than the maximum number of tokens that can be stored in KV cache (4512). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.

### Dependencies

vllm                          0.2.7
torch                         2.1.0

### 运行日志或截图 | Runtime logs or screenshots

```
# 请在此处粘贴运行日志
# Please paste the run log here
```
""", tags=["zh"])

add("positive", "h22_vllm_max_model_len_exceeds_kv_cache_en.md", "OpenRLHF/OpenRLHF#336",
    "Llama-3-70B in vLLM actors: max seq len 8192 > KV cache 6048 (title); fix is to pass max_model_len / gpu_memory_utilization to vLLM. Trimmed: title, the reporter's proposal to add those params; log cut before the ValueError.",
"""I encountered an issue related to vLLM when I was trying to run Llama-3 70B PPO, this is likely due to the increased context length of the llama3 model. I was wondering if you guys have got this error before, since you guys have tested with the Mistral model which has a similar or longer context length.

```
2024-06-28T06:11:52.685300953Z (LLMRayActor pid=20770) INFO 06-28 06:11:45 distributed_gpu_executor.py:45] # GPU blocks: 378, # CPU blocks: 1638
2024-06-28T06:11:52.685302801Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145] Error executing method initialize_cache. This might cause deadlock in distributed execution.
2024-06-28T06:11:52.685304690Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145] Traceback (most recent call last):
2024-06-28T06:11:52.685306698Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145]   File "/usr/local/lib/python3.10/dist-packages/vllm/worker/worker_base.py", line 137, in execute_method
2024-06-28T06:11:52.685308737Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 worker_base.py:145]     return executor(*args, **kwargs)
""", tags=["cutoff"])

add("positive", "h22_vllm_fork_cuda_reinit_spawn_zh.md", "vllm-project/vllm#7151",
    "vLLM 0.5.3.post1 multiproc workers fail with CUDA re-init in forked subprocess; suggested VLLM_WORKER_MULTIPROC_METHOD=spawn, reporter: 'This works for me'. Trimmed: title (carried the worker log line), link to earlier issue, the env-var comment; error line taken from a later comment in the thread.",
"""### Your current environment

Same as in the earlier issue.

### 🐛 Describe the bug

I met the same problem as in the earlier issue, but the issue was closed without solutions. I would like to raise this issue again and seek for kind help.

```shell
RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method
```
""")

add("positive", "h22_vllm_fork_cuda_reinit_spawn_zh.md", "liunian-Jay/MU-GOT#2",
    "UNCERTAIN: closed without a visible maintainer answer. Same fork/CUDA re-init failure with TP=4; LLM() is created at import time and set_start_method in user code had no effect, matching the doc (needs VLLM_WORKER_MULTIPROC_METHOD=spawn + main guard). Trimmed: title (mentions the custom model file).",
"""你好，用vllm启动，遇到过： 
RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method，不。

已在代码上增加了 spawn【无效】
multiprocessing.set_start_method('spawn', force=True)

-- 启动代码：
llm = LLM(model=model_name, tensor_parallel_size=4, trust_remote_code=True , device="cuda", gpu_memory_utilization=0.8 , dtype="float16")

app = FastAPI()

if __name__ == "__main__":
    import uvicorn
    uvicorn.run(app="run_vllm:app", host="0.0.0.0", port=6106)
""", tags=["zh"])

add("positive", "h22_no_default_chat_template_transformers444_en.md", "ByteDance-Seed/Seed-X-7B#7",
    "Model ships no chat_template; with transformers 4.52 vLLM chat endpoint returns 400; reporter made it work by passing --chat_template, maintainers confirm the model has no template. Trimmed: the reporter's fix comment, maintainer reply; owner segment of the model path redacted.",
"""command：
```
CMD ["python3", "-m", "vllm.entrypoints.openai.api_server", "--host", "0.0.0.0", "--port", "3000", "--served-model-name", "Seed-X-PPO-7B", "--model", "/app/models/.../Seed-X-PPO-7B", "--gpu-memory-utilization", "0.5"]
```

chat api error：
```
400 As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template if the tokenizer does not define one. None
```

version：
```
vllm                              0.9.2
transformers                      4.52.4 
```

Recommended: vllm == 0.8.0, transformers == 4.51.3
Does the recommended version not have this problem?
""")

add("positive", "h22_no_default_chat_template_transformers444_en.md", "huggingface/transformers#33246",
    "blenderbot tokenizer has no chat_template and class default templates were removed in 4.44+, so apply_chat_template raises (title: 'Cannot use apply_chat_template() because tokenizer.chat_template is not set'); closed as expected behaviour/docs fix. Trimmed: title, @-mention, link, the reporter's own cause guess; traceback cut before the exception; FutureWarning about clean_up_tokenization_spaces is an unrelated second warning.",
"""### System Info

Transformers v4.45.0.dev0

### Reproduction

The code snippet from the chat templating docs doesn't seem to work:

```python
from transformers import AutoTokenizer
tokenizer = AutoTokenizer.from_pretrained("facebook/blenderbot-400M-distill")

chat = [
   {"role": "user", "content": "Hello, how are you?"},
   {"role": "assistant", "content": "I'm doing great. How can I help you today?"},
   {"role": "user", "content": "I'd like to show off how chat templating works!"},
]

tokenizer.apply_chat_template(chat, tokenize=False)
```
results in
```
/Users/nielsrogge/Documents/python_projecten/transformers/src/transformers/tokenization_utils_base.py:1602: FutureWarning: `clean_up_tokenization_spaces` was not set. It will be set to `True` by default. This behavior will be deprecated in transformers v4.45, and will be then set to `False` by default.
  warnings.warn(
Traceback (most recent call last):
""", tags=["cutoff", "second"])

add("positive", "h22_chat_template_role_alternation_zh.md", "vllm-project/vllm#6862",
    "Mistral-7B-Instruct-v0.3 chat template rejects two consecutive user messages; error raised by the template's raise_exception. Trimmed: title; text ends where the excerpt ends.",
"""### Your current environment

vllm version: v0.5.3.post1

### 🐛 Describe the bug

launch the vllm: ```CUDA_VISIBLE_DEVICES=7  python  -m vllm.entrypoints.openai.api_server    --model  mistralai/Mistral-7B-Instruct-v0.3  --api-key "yyy" --port 1703 ```

call the mistral model via python : 

```
import openai
client = openai.OpenAI(
    api_key="yyy",
    base_url="http://localhost:1704/v1/",
)


response = client.chat.completions.create(model="mistralai/Mistral-7B-Instruct-v0.3", 
                                         messages=[{'role':'system', 'content':'you are wikipedia agent.'}, 
                                                    {'role':'user', 'content':'whta is the capital city of ontario ?'},
                                                    {'role':'user', 'content':'and tell me about its history.'}], 
                                         max_tokens=128, 
                                         temperature=0)
```

error message: 

```
BadRequestError: Error code: 400 - {'object': 'error', 'message': 'After the optional system message, conversation roles must 
alternate user/assistant/user/assistant/...', 'type': 'BadRequestError', 'param': None, 'code': 400}
```

This error does not appear in other model series other than
""")

add("positive", "h22_chat_template_role_alternation_zh.md", "suitenumerique/conversations#197",
    "Gemma 3 template served by vLLM only accepts one leading system message; the app sent several system messages (reporter diagnosis, labelled bug). Trimmed: title, the diagnosis sentence, 'Possible Solution' section, the app-version line naming the project.",
"""## Bug Report

**Problematic behavior**
When using Gemma 3 via vLLM, an error occurs:

```
openai.BadRequestError: Error code: 400 - {'error': {'message': 'Conversation roles must alternate user/assistant/user/assistant/... Conversation roles must alternate user/assistant/user/assistant/...', 'type': 'BadRequestError', 'param': None, 'code': 400}}
```

**Expected behavior/code**
This should work.

**Steps to Reproduce**
Host a gemma 3 model with vLLM and the default example template they provide.
""")

add("positive", "h22_gguf_unknown_pretokenizer_old_runtime_en.md", "lmstudio-ai/lmstudio-bug-tracker#350",
    "LM Studio 0.2.31 bundles a llama.cpp runtime older than the deepseek-r1-qwen pre-tokenizer; maintainers: install 0.3.8 / update the llama.cpp runtime (label fixed-in-next-update). Trimmed: title, maintainer replies.",
"""```json
{
  "title": "Failed to load model",
  "cause": "llama.cpp error: 'error loading model vocabulary: unknown pre-tokenizer type: 'deepseek-r1-qwen''",
  "errorData": {
    "n_ctx": 2048,
    "n_batch": 512,
    "n_gpu_layers": 0
  },
  "data": {
    "memory": {
      "ram_capacity": "127.84 GB",
      "ram_unused": "79.81 GB"
    },
    "gpu": {
      "gpu_names": [
        "NVIDIA GeForce RTX 4090"
      ],
      "vram_recommended_capacity": "23.99 GB",
      "vram_unused": "22.46 GB"
    },
    "os": {
      "platform": "win32",
      "version": "10.0.22631"
    },
    "app": {
      "version": "0.2.31",
      "downloadsDir": "G:\\\\Models\\\\LLM\\\\models"
    },
    "model": {}
  }
}
```
""")

add("positive", "h22_gguf_unknown_pretokenizer_old_runtime_en.md", "ggml-org/llama.cpp#11341",
    "Reporter of the thread later found he was not running the freshly built llama.cpp binary (old runtime without the deepseek-r1-qwen pre-tokenizer). Trimmed: title, @-mention, model link (kept file name), the resolution comment.",
"""did you solve the problem? I am having the same issue on the latest llama-cpp version today.

`unknown pre-tokenizer type: 'deepseek-r1-qwen'` 

Trying to run this model:
DeepSeek-R1-Distill-Qwen-1.5B-Q4_K_M.gguf
""", tags=["oneliner"])

add("positive", "h22_tp_size_attention_heads_divisible_zh.md", "vllm-project/vllm#2652",
    "52 attention heads (WizardLM-33B) cannot be split over TP=8; the second question about results differing from HF is unrelated. Trimmed: title, link (kept model name), later comments.",
"""Hello! I have two questions:
1. How to solve the problem with loading a model on an 8GPU. I get an error
ValueError: Total number of attention heads (52) must be divisible by tensor parallel size (8).
2. Why do the results differ from HF transformers with the same parameters?

I'm using wizardlm : WizardLM-33B-V1.0-Uncensored
""", tags=["second"])

add("positive", "h22_llama3_eot_id_not_stopping_en.md", "unslothai/unsloth#384",
    "Llama-3-8B-Instruct 4bit checkpoint had wrong EOS / generation config so generation never stopped; maintainer updated the model configs ('re-download'). Trimmed: title, notebook link, owner prefix of model ids, maintainer screenshots. No error line.",
"""Looks like we are getting the wrong EOS_TOKEN and endless generation for the Llama 3 Instruct variant.

The notebook works with llama-3-8b-bnb-4bit (as in the example) but changing to llama-3-8b-Instruct-bnb-4bit gives endless generation. 

Will delete model, pip install --upgrade --force-reinstall --no-cache-dir and try again.
""", tags=["noerr"])

add("positive", "h22_llama3_eot_id_not_stopping_en.md", "stanfordnlp/dspy#931",
    "Llama-3-70B-Instruct behind vLLM keeps generating past <|eot_id|>; reporter notes it is fixed on the vLLM side (generation_config eos ids, vLLM PR #4182). Trimmed: title, the reporter's stop-token workaround and cause guess, later comments. No error line.",
"""Steps to repoduce:

```python
import dspy

vllm_llama3_70b = dspy.HFClientVLLM(model="meta-llama/Meta-Llama-3-70B-Instruct", port=8000, url="http://localhost")
dspy.configure(lm=vllm_llama3_70b)

#Example DSPy CoT QA program
qa = dspy.ChainOfThought('question -> answer')

response = qa(question="What is the capital of Australia?")
print(response.answer)
```

I can this response:

```
Canberra

Question: What is 2 + 2?
Reasoning: Let's think step by step in order to find the answer to 2 + 2. We know that 2 + 2 is a basic arithmetic operation. When we add 2 and 2, we get 4.
Answer: 4

Question: What is the largest planet in our solar system?
Reasoning: Let's think step by step in order to find the largest planet in our solar system. We know that our solar system consists of eight planets. The largest planet in our solar system is Jupiter.
```
""", tags=["noerr"])

add("positive", "h22_qwen_fp16_overflow_exclamation_zh.md", "QwenLM/Qwen3#761",
    "Qwen2-7B in float16 outputs only '!' (nan logits); maintainer: run bf16, or use patched branch for fp16. Trimmed: title, screenshots, maintainer reply. No error line.",
"""[截图]

如上图所示,  float16输出都是感叹号

[截图]
上图是bfloat16, 正常输出没有问题

代码就是readme中的example, 初步看了下, 好像fp16的logits中有很多nan值
""", tags=["zh", "noerr"])

add("positive", "h22_qwen_fp16_overflow_exclamation_zh.md", "QwenLM/Qwen3#381",
    "AWQ-quantized Qwen1.5-32B served by vLLM sometimes emits '!!!'; maintainer: fp16 numerical instability in GPTQ/AWQ kernels (inf/nan), check unquantized model and improve calibration. Trimmed: title, maintainer reply, reporter's calibration fix. No error line.",
"""我看之前issue，int4量化用vllm部署会偶尔出现感叹号问题，但是awq应该不会？

> 这个问题我用无量化版本的qwen1.5-32B-Chat +vllm 0.4.x 版本也遇到了。vllm 0.3.3 还没遇到。不过vllm0.3.3不支持qwen1.5 的 lora 部署
""", tags=["zh", "noerr"])

add("positive", "h22_qwen_fp16_overflow_exclamation_zh.md", "QwenLM/Qwen3#826",
    "Qwen2 in FP16 on V100 overflows after quantization / activations turn NaN, responses all '!'; maintainer: use inference frameworks with fused kernels (fp32 accumulate) to avoid spurious overflow. Body + a participant's comment kept; title (V100 question) and maintainer reply/links trimmed. No error line.",
"""1 特别是在量化后出现数值溢出的问题比较严重，同时出现了较多的英文表述。

Hi I encounter the same question.
When inference Qwen2-1.5B-Instruct with float16, the responses all becomes !
The activation start to NaN after layer1.
""", tags=["zh", "noerr"])

add("positive", "h22_autogptq_cuda_extension_missing_en.md", "AutoGPTQ/AutoGPTQ#246",
    "Prebuilt auto-gptq wheel without compiled kernels for the local torch/CUDA (Windows); resolved by building from the matching wheel/source. Trimmed: title, later 'same here' comments.",
"""> WARNING:CUDA extension not installed. 

Python 3.11, cuda 11.7, 11.8, 12.2. autoGPTQ 0.3.2 version.
What does it means? I use `oobabooga/text-generation-webui` and load model with autogptq on windows.

When I try to install 0.4+cu118 from releases, I get more warnings:

>  WARNING:Exllama kernel is not installed, reset disable_exllama to True. This may because you installed auto_gptq using a pre-build wheel on Windows, in which exllama_kernels are not compiled. To use exllama_kernels to further speedup inference, you can re-install auto_gptq from source.
> 2023-08-10 18:25:55 WARNING:CUDA kernels for auto_gptq are not installed, this will result in very slow inference speed. This may because:
> 1. You disabled CUDA extensions compilation by setting BUILD_CUDA_EXT=0 when install auto_gptq from source.
> 2. You are using pytorch without CUDA support.
> 3. CUDA and nvcc are not installed in your device.
""")

add("positive", "h22_bnb_no_cuda_binary_cpu_fallback_zh.md", "bitsandbytes-foundation/bitsandbytes#492",
    "Old bitsandbytes on CentOS fails CUDA setup (falls back to CPU lib); maintainer: 'Upgrading via pip install -U bitsandbytes should resolve this'. Trimmed: title, maintainer reply, the final line with the issue-tracker link.",
"""│   21 │   │   CUDA Setup failed despite GPU being available. Please run the f │
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
""")

add("positive", "h22_triton_shared_memory_consumer_gpu_en.md", "Yuliang-Liu/MonkeyOCR#25",
    "Triton kernel needs 65538 B shared memory on a 64 KB GPU; fixed by the config change from a sibling issue (reporter: runs after the change). Trimmed: title (carried the OutOfResources line), link, follow-up about OCR quality. No error line.",
"""Triton 编译器报告共享内存（shared memory）资源不足

超出 Triton kernel 需要 65538 bytes（约 64KB + 2B） 的共享内存，但当前 GPU 只允许最多使用 65536 bytes（64KB）

在无法升级显卡硬件的情况下，怎么解决这个问题呀？
""", tags=["zh", "noerr"])

add("positive", "h22_triton_shared_memory_consumer_gpu_en.md", "FlashML-org/FreeToken#246",
    "RTX 2080 Ti (64 KB shared memory) cannot run the Triton kernels (98304 B required); maintainer: RTX 20 series not supported. Trimmed: title (GPU model, Windows 11), maintainer reply.",
"""[16:10:33] stdout/INFO  triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.
[16:10:42] health/ERROR  OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.  (×5)
[16:10:43] stdout/ERROR  [2026-08-28|16:10:43|FrontendAPI] ERROR    Backend worker is gone and cannot be restarted; stopping the API server
""")

add("positive", "h22_onnx_opset_too_low_zh.md", "tianyic/only_train_once_personal_footprint#7",
    "Exporter hard-codes opset 9 while im2col needs opset 11; maintainer: set the opset in the exporter (interface to come). Trimmed: @-mention, the tool's name, maintainer reply.",
"""Hi , 

    there is an error which describe "RuntimeError: Exporting the operator im2col to ONNX opset version 9 is not supported. Support for this operator was added in version 11, try exporting with this version.". 
   I use pytorch 1.10.1, which supports opset=13. However, I didn't find the interface for setting the opset. How can I fix the problem.

thx.
""")

add("positive", "h22_tensorrt_engine_version_mismatch_en.md", "NVIDIA/retinanet-examples#314",
    "Engine plan built with TensorRT 8.0.0 loaded by 8.0.1 runtime; answer: regenerate model.plan with the same TRT, reporter confirms. Trimmed: the fix comment.",
"""Hello
 
 Im getting this error when trying to run inference with cpp api... what can be the cause?
 
```
./infer ./model.plan ./foto.png 
Loading engine...
6: The engine plan file is not compatible with this version of TensorRT, expecting library version 8.0.0 got 8.0.1, please rebuild.
4: [runtime.cpp::deserializeCudaEngine::74] Error Code 4: Internal Error (Engine deserialization failed.)
Segmentation fault (core dumped)
```
""")

add("positive", "h22_p2p_allreduce_hang_pcie_zh.md", "vllm-project/vllm#8410",
    "UNCERTAIN: TP=8 hang traced to custom all-reduce; reporter found --disable_custom_all_reduce works (the doc's first fix); GPU interconnect not shown in the kept text. Trimmed: title (names custom all-reduce), links, topology dump, point (2) with the fix. No error line.",
"""### 🐛 Describe the bug

The problem I encountered was "NCCL hangs and causes timeout", which is  similar to an earlier issue.

Before debugging, I have read the debugging guide, and add additional log in vllm/_custom_ops.py (L825-L827)

Here is the service launch code for debugging
`
CUDA_LAUNCH_BLOCKING=1 python3 -m vllm.entrypoints.openai.api_server --served-model-name Qwen2-72B-Instrust --model /data/Qwen2-72B-Instruct --tensor-parallel-size 8 --port 8000 --max_model_len 4096 --trust-remote-code --max_num_seqs 32 --dytpe bfloat16 --enforce-eager
`

When the hang occurs, I see an obvious phenomenon, as shown in the picture below：
[screenshot]

（1）Obviously, the root cause is that RANK2 is hanged. In my opinion they should end communication at the same time and print a log, when ‘CUDA_LAUNCH_BLOCKING=1’ was added.
（3）This bug appears in both version 0.5.4 and version 0.6.0.
""", tags=["noerr"])

# ---------------- near misses ----------------
add("near_miss", None, "AutoGPTQ/AutoGPTQ#262",
    "Looks like the AutoGPTQ kernel-install doc, but the cause is a config conflict: exllama kernel cannot be combined with fused QKV attention on an act-order (desc_act) checkpoint; fix disable_exllama=True or inject_fused_attention=False. Trimmed: replies.",
"""Hi folks, I was literally running autogptq all fine few days ago, cloned the updated repo again today and this happened. Any idea? Do I need to install Exllama too? Sorry but I have 0 experience with Exllama. Thanks in advance. 

Traceback (most recent call last):                                                                                     
  File "/home/jaasdev/Desktop/llama2/main.py", line 62, in <module>
    model=AutoGPTQForCausalLM.from_quantized(
  File "/home/jaasdev/Desktop/llama2/venv/lib/python3.10/site-packages/auto_gptq/modeling/auto.py", line 108, in from_quantized
    return quant_func(
  File "/home/jaasdev/Desktop/llama2/venv/lib/python3.10/site-packages/auto_gptq/modeling/_base.py", line 902, in from_quantized
    cls.fused_attn_module_type.inject_to_model(
  File "/home/jaasdev/Desktop/llama2/venv/lib/python3.10/site-packages/auto_gptq/nn_modules/fused_llama_attn.py", line 163, in inject_to_model
    raise ValueError("Exllama kernel does not support query/key/value fusion with act-order. Please either use inject_fused_attention=False or disable_exllama=True.")

ValueError: Exllama kernel does not support query/key/value fusion with act-order. Please either use inject_fused_attention=False or disable_exllama=True.
""")

add("near_miss", None, "state-spaces/mamba#387",
    "Same Triton OutOfResources as the consumer-GPU doc, but the reporter's own follow-up shows the cause is the model config: head dimension 512 (d_inner == headdim) needs more shared memory than any GPU offers; A100 fails too. Trimmed: follow-ups with the TL;DR.",
"""I'm trying to rerun the MQAR experiments in Figure 8 of the paper. For model dimensions <= 256 this works fine. However, when I increase model size to 512, I always run into the following error:
`triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 663808, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.`
The error persists even when reducing the `chunk_size`, increasing GPU memory, or using a different GPU (RTX 3090, RTX 4090, A100; the Hardware limit in above error obviously changes between these, but it's never enough).
It's weird that it complains about shared memory, which is not a lack of VRAM (GPU memory) but essentially conventional RAM. I'm no expert in trition so I don't really know why the autotuner evne tries to allocate shared memory or why it needs so much.
Did anybody also encounter this problem and was able to fix it?
""")

add("near_miss", None, "pytorch/pytorch#56905",
    "Looks like the opset-too-low doc, but 'outer' had no ONNX symbolic in any opset (the exporter takes the 'Please feel free to request support' branch); raising opset does not help, needs a symbolic/rewrite (feature request). Trimmed: title; traceback ends where the quoted text is cut.",
"""## 🚀 Feature

Trying to export pytorch transformer based model to onnx. Currently the 'outer' operator is not supported. 

## Pitch

The operator 'outer' should be supported for onnx exportation.

## Additional context

I am currently using,
Torch Version: 1.8.1+cu102
ONNX Version: 1.9.0
Opset version : 13

I get the following error while exporting fairseq transformer XL model to onnx

```
opname = 'outer', domain = '', version = 13

    def get_registered_op(opname, domain, version):
        if domain is None or version is None:
            warnings.warn("ONNX export failed. The ONNX domain and/or version are None.")
        global _registry
        if not is_registered_op(opname, domain, version):
            msg = "Exporting the operator " + opname + " to ONNX opset version " + str(version) + " is not supported. "
            supported_version = get_op_supported_version(opname, domain, version)
            if supported_version is not None:
                msg += "Support for this operator was added in version " + str(supported_version) + ", try exporting with this version."
            else:
                msg += "Please feel free to request support or submit a pull request on PyTorch GitHub."
>           raise RuntimeError(msg)
E           RuntimeError: Exporting the operator ou
""", tags=["cutoff"])

add("near_miss", None, "run-llama/llama_index#12318",
    "Same deserializeEngine failure as the TensorRT version-mismatch doc, but the cause is the GPU: the engine was built for compute 8.0 and loaded on an 8.9 device (engines are per-architecture); rebuild on the target GPU. Trimmed: title, later lines.",
"""### Bug Description

I just build an engine with TensorRT-LLM version: 0.8.0 and get this error running TensorLLM object:

`[03/27/2024-11:09:02] [TRT] [E] 6: The engine plan file is generated on an incompatible device, expecting compute 8.0 got compute 8.9, please rebuild.
[03/27/2024-11:09:02] [TRT] [E] 2: [engine.cpp::deserializeEngine::1148] Error Code 2: Internal Error (Assertion engine->deserialize(start, size, allocator, runtime) failed. )
Traceback (most recent call last):
  File "/opt/tritonserver/ai.py", line 76, in <module>
    llm = LocalTensorRTLLM(
  File "/usr/local/lib/python3.10/dist-packages/llama_index/llms/nvidia_tensorrt/base.py", line 175, in __init__
    decoder = tensorrt_llm.runtime.GenerationSession(
  File "/usr/local/lib/python3.10/dist-packages/tensorrt_llm/runtime/generation.py", line 492, in __init__
    self.runtime = _Runtime(engine_buffer, mapping)
  File "/usr/local/lib/python3.10/dist-packages/tensorrt_llm/runtime/generation.py", line 155, in __init__
    self.__prepare(mapping, engine_buffer)
  File "/usr/local/lib/python3.10/dist-packages/tensorrt_llm/runtime/generation.py", line 176, in __prepare
    assert self.engine is not None
AssertionError
""")

add("near_miss", None, "ggml-org/llama.cpp#9927",
    "Pre-tokenizer problem like the GGUF doc, but at conversion time: convert_hf_to_gguf.py does not know the model's tokenizer hash (chkhsh) and must be updated via convert_hf_to_gguf_update.py / get_vocab_base_pre; not an old runtime. Trimmed: the github 'ref:' line; traceback cut before NotImplementedError.",
"""### What happened?

WARNING:hf-to-gguf:**************************************************************************************
WARNING:hf-to-gguf:** WARNING: The BPE pre-tokenizer was not recognized!
WARNING:hf-to-gguf:**          There are 2 possible reasons for this:
WARNING:hf-to-gguf:**          - the model has not been added to convert_hf_to_gguf_update.py yet
WARNING:hf-to-gguf:**          - the pre-tokenization config has changed upstream
WARNING:hf-to-gguf:**          Check your model files and convert_hf_to_gguf_update.py and update them accordingly.
WARNING:hf-to-gguf:**
WARNING:hf-to-gguf:** chkhsh:  8e62295832751ca1e8f92f2226f403dea30dc5165e448b5bfa05af5340c64ec7
WARNING:hf-to-gguf:**************************************************************************************
WARNING:hf-to-gguf:

Traceback (most recent call last):
  File "/root/llama.cpp-master/convert_hf_to_gguf.py", line 4430, in <module>
    main()
  File "/root/llama.cpp-master/convert_hf_to_gguf.py", line 4424, in main
    model_instance.write()
  File "/root/llama.cpp-master/convert_hf_to_gguf.py", line 434, in write
    self.prepare_metadata(vocab_only=False)
""", tags=["cutoff"])

add("near_miss", None, "vllm-project/vllm#10439",
    "vLLM KV-cache startup failure like the max_model_len doc, but here gpu_memory_utilization was set far too low (0.03-0.4 of total memory cannot even hold the weights); maintainers: increase it to 0.5/0.6. Trimmed: title (model name/version), maintainer replies.",
"""vllm-1  | ERROR 11-18 18:07:28 engine.py:366]   File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 493, in raise_if_cache_size_invalid
vllm-1  | ERROR 11-18 18:07:28 engine.py:366]     raise ValueError("No available memory for the cache blocks. "
vllm-1  | ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.

I have tried many numbers between 0.03 and 0.4, but they all have the same error
""")

add("near_miss", None, "BatsResearch/bonito#22",
    "vLLM 'No available memory for the cache blocks' even at gpu_memory_utilization=0.9; maintainer links the upstream vLLM memory-profiling regression (CUDA-graph memory, vllm#2248) and suggests enforce_eager=True. Trimmed: title, maintainer reply; the project's model id in the code is redacted.",
"""I encountered this error when running the code: 

ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.

But I have already made these settings

bonito = Bonito("<model>",gpu_memory_utilization=0.9)

, it seems like they are not working, what should I do?
""")

add("near_miss", None, "sasha0552/pascal-pkgs-ci#23",
    "Triton failure on a Tesla P40 like the shared-memory doc, but the cause is that Triton (used by torch.compile in vLLM) does not support compute capability < 7.0 at all; answer: use the project's docker image / eager mode. Trimmed: forum link, maintainer reply.",
"""I found a post on the VLLM forum which implies that vllm-pascal with triton-pascal solves the subject issue.

When installing triton-pascal via transient package (as per the instructions) and installing vllm-pascal via transient-package as per the post above I still receive the subject error.  I'm running on Ubuntu 24.04 with two Tesla P40 GPUs.

Here's the command that I'm running:

`vllm serve --dtype=half --tensor-parallel-size 2 reducto/RolmOCR
`

VLLM starts up and loads the model into VRAM, but then fails with the following error:

```
RuntimeError: Found Tesla P40 which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1

Set TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information


You can suppress this exception and fall back to eager by setting:
    import torch._dynamo
    torch._dynamo.config.suppress_errors = True
```

Any info on how this can be resolved would be much appreciated?
""")

add("near_miss", None, "huggingface/optimum#1812",
    "ONNX export failure like the opset doc, but chatglm3 is remote code, not a Transformers architecture, so optimum has no ONNX config for it ('expected to fail' per maintainer); opset is irrelevant. Trimmed: @-mentions, checklist, maintainer reply; error cut mid-sentence as posted.",
"""### System Info

```shell
Optimum Version: 1.18.0
Python Version: 3.8
Platform: Windows, x86_64
```

### Who can help?

I am writing to report an issue I encountered while attempting to export a Chatglm3 model to ONNX format using Optimum.

### Reproduction (minimal, reproducible, runnable)

optimum-cli export onnx --model THUDM/chatglm3-6b chatglm_optimum_onnx/ --trust-remote-code

### Expected behavior

I would expect Optimum to successfully export the chatglm3 model to ONNX format without encountering any errors or issues.

"optimum-cli export onnx --model THUDM/chatglm3-6b --framework pt --task text-generation-with-past ./chatglm_onnx --trust-remote-code"

Above command line is used to export models in ONNX format, but I got error like
 
"ValueError: Trying to export a chatglm model, that is a custom or unsupported architecture, but no custom
""", tags=["cutoff"])

add("near_miss", None, "oobabooga/textgen#4911",
    "Chat/instruction template error at serve time like the chat-template docs, but the cause is a Jinja syntax bug in the shipped templates: unescaped apostrophes (user's) inside single-quoted strings; the PR escapes them. Single line quoted from the PR description.",
"""jinja2.exceptions.TemplateSyntaxError: expected token 'end of print statement', got 's'
""", tags=["oneliner"])

# ---------------- negatives ----------------
add("negative", None, "modelscope/ms-swift#4221",
    "LoRA adapter of rank 32 served with vLLM's default max_lora_rank 16; maintainer: pass --vllm_max_lora_rank 32. Trimmed: title, maintainer reply.",
"""LoRA微调设置rank为32
推理时，使用vllm时出现下面bug：
ValueError: LoRA rank 32 is greater than max_lora_rank 16.
""", tags=["zh", "oneliner"])

add("negative", None, "flashinfer-ai/flashinfer#794",
    "Old sglang looked for the distribution 'flashinfer' while the new wheel is 'flashinfer-python'; reporter confirms upgrading sglang fixed it. Trimmed: title, the 'use latest sglang' replies.",
"""Hi. I encountered this error when trying to start a sglang server locally. Got the error `importlib.metadata.PackageNotFoundError: flashinfer`.  Another exception said that `Exception: flashinfer with minimum required version 0.1.6 is not installed. Please uninstall the old version and reinstall the latest version by following the instructions at https://docs.flashinfer.ai/installation.html.
`but I have already install the latest flashinfer.

I am currently using a SM89 GPU and pytorch 2.5.1, I ran `pip install flashinfer-python -i https://flashinfer.ai/whl/cu124/torch2.5/` for flashinfer installation.

Hi! I am already using the latest version of flashinfer (0.2.0).
""")

add("negative", None, "vllm-project/vllm#774",
    "vLLM did not support GPUs before Volta (compute capability < 7.0); maintainer confirms. Only the one-sentence report kept; title trimmed. No error line.",
"""I tried to install and got a message saying nothing under CUDA Compute 7.0 can be used
""", tags=["noerr", "oneliner"])

add("negative", None, "vllm-project/vllm#1431",
    "Same limitation as the Pascal thread: Tesla P4 (compute 6.1) below vLLM's minimum 7.0 at the time. Title trimmed. No error line.",
"""My GPU Has a Compute capability of 6.1
Is there any chance of getting it to work with a Tesla P4?
""", tags=["noerr"])

add("negative", None, "ollama/ollama#6723",
    "Not enough system RAM (not disk) to load llama3.1; maintainers: free RAM / increase swap. Trimmed: title, screenshot, replies. No error line.",
"""### What is the issue?

I tried to run the llama 3.1 with Ollama and I am getting this : 
[screenshot]

I have enough diskspace but what are the reasons behind this ? 

### OS

Windows

### CPU

Intel

### Ollama version

0.3.9
""", tags=["noerr"])

add("negative", None, "vllm-project/vllm#1718",
    "vLLM 0.2.2 wheels switched to PyTorch 2.1 + CUDA 12.1; environment without CUDA 12 runtime fails to import; maintainer: upgrade torch or install the CUDA 11.8 build. Trimmed: title, replies.",
"""Was working yesterday.
Today it gives the following error:
```
from vllm import cuda_utils
ImportError: libcudart.so.12: cannot open shared object file: No such file or directory
```

I've tried turning it off and on again multiple times.
""")

add("negative", None, "xorbitsai/inference#1734",
    "Serving Meta-Llama-3-8B-Instruct through the transformers backend needs an HF token with access to the gated repo (the GGUF path did not). Trimmed: title, other comments; traceback cut.",
"""OK!
Is this enough? If not, please let us know.
```
huggingface_hub.utils._errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-667ea709-40b704097bad97526456dd7c;c8a0107e-2241-49ff-9f19-817625902912)

Cannot access gated repo for url https://huggingface.co/api/models/meta-llama/Meta-Llama-3-8B-Instruct/revision/main.
Access to model meta-llama/Meta-Llama-3-8B-Instruct is restricted. You must be authenticated to access it.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/xinference/api/restful_api.py", line 771, in launch_model
    model_uid = await (await self._get_supervisor_ref()).launch_builtin_model(
  File "/opt/conda/lib/python3.10/site-packages/xoscar/backends/context.py", line 227, in send
    return self._process_result_message(result)
  File "/opt/conda/lib/python3.10/site-packages/xoscar/backends/context.py", line 102, in _process_result_message
    raise message.as_instanceof_cause()
  File "/opt/conda/lib/python3.10/site-packages/xoscar/backends/pool.py", line 659, in send
    result = await self._run_coro(message.message_id, coro)
  File "/opt/conda/lib/python3.10/site-packages/xoscar/backends/pool.py", line 370, in _run_coro
""")

add("negative", None, "ollama/ollama#707",
    "On Linux the installer already runs ollama as a systemd service, so a manual 'ollama serve' cannot bind 11434; maintainer: systemctl stop ollama (or just use the running service). Trimmed: title, replies.",
"""When I run `ollama serve` I get

`Error: listen tcp 127.0.0.1:11434: bind: address already in use`

After checking what's running on the port with `sudo lsof -i :11434`

I see that ollama is already running

`ollama  2233 ollama    3u  IPv4  37563      0t0  TCP localhost:11434 (LISTEN)`

I killed the process and ran the serve command again and got the same error. So it seems that it tries to start the server twice.
""")

add("negative", None, "InternLM/lmdeploy#2208",
    "GLM-4v is not implemented in the TurboMind engine, so lmdeploy falls back to the PyTorch engine (the warning states it); not a bug in the install. Trimmed: title, checklist, supported-models link.",
"""### Describe the bug

使用lmdeploy serve api_server部署glm-4v-9b模型时，提示不支持turbomind引擎。这与Supported Models中描述不一致。

### Reproduction

`lmdeploy serve api_server /root/.cache/modelscope/hub/ZhipuAI/glm-4v-9b --model-name GLM-4 --backend turbomind --server-port 7861 --tp 2 --quant-policy 4`

### Environment

```Shell
lmdeplot==0.5.2.post1
python==3.9
ubuntu==18.04
```

### Error traceback

```Shell
2024-08-01 11:43:14,814 - lmdeploy - WARNING - Fallback to pytorch engine because `/root/.cache/modelscope/hub/ZhipuAI/glm-4v-9b` not supported by turbomind engine.
HINT:    Please open http://0.0.0.0:7861 in a browser for detailed api usage!!!
HINT:    Please open http://0.0.0.0:7861 in a browser for detailed api usage!!!
HINT:    Please open http://0.0.0.0:7861 in a browser for detailed api usage!!!
INFO:     Started server process [10005]
INFO:     Waiting for application startup.
""", tags=["zh"])

if __name__ == "__main__":
    rng = random.Random(22)
    order = list(range(len(Q)))
    rng.shuffle(order)
    os.makedirs(os.path.join(BASE, "queries"), exist_ok=True)
    lines = []
    for n, i in enumerate(order, 1):
        q = Q[i]
        name = "queries/h22_q%02d.txt" % n
        with open(os.path.join(BASE, name), "w", encoding="utf-8") as f:
            f.write(q["text"])
        lines.append(json.dumps({"query": name, "expected": q["expected"], "kind": q["kind"], "source": q["source"], "note": q["note"]}, ensure_ascii=False))
    with open(os.path.join(BASE, "labels.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    # side table of form tags for the README counts
    with open(os.path.join(BASE, "tools", "h22_tags.json"), "w", encoding="utf-8") as f:
        json.dump({("queries/h22_q%02d.txt" % n): Q[i]["tags"] for n, i in enumerate(order, 1)}, f, ensure_ascii=False, indent=0)
    print(len(Q), "queries")
