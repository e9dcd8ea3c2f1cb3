from h21_queries_part1 import Q, add, C

add("p5b","positive",C+"h21_nvidia_driver_older_than_torch_cuda_zh.md","lllyasviel/Fooocus#1313",
 "nvidia-smi shows driver 470.86 (CUDA 11.4) while the bundled torch needs a newer CUDA; cause is the driver/torch-CUDA gap (update driver or install a matching torch). Removed the title and a '+1' comment.",
"""RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.

Ubuntu 21.04
Nvidia GeForce RTX 3050 laptop GPU

-nvidia-smi

+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4
|-------------------------------+----------------------+----------------------+""")

add("p6a","positive",C+"h21_flash_attn_prebuilt_wheel_torch_abi_mismatch_en.md","Dao-AILab/flash-attention#853",
 "flash-attn wheel built for another torch / C++ ABI: a commenter fixed it by switching from the cxx11abiTRUE to the cxx11abiFALSE wheel matching torch 2.2. Kept the other commenter's traceback and env; removed the fix sentences.",
"""```
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
- flash-attn: 2.5.9.post1""")

add("p6b","positive",C+"h21_flash_attn_prebuilt_wheel_torch_abi_mismatch_en.md","Dao-AILab/flash-attention#950",
 "flash-attn 2.5.8 wheel built for newer torch than the installed 2.1.2 -> unresolved c10 symbol; rolling back to a wheel built for the installed torch (2.5.7) fixed it. Removed the fix comment.",
"""ENV
- torch                     2.1.2
- flash-attn                2.5.8 
- cuda 11.7

ERROR
`flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined
 symbol: _ZN3c104impl3cow11cow_deleterEPv`""")

add("p7a","positive",C+"h21_lora_target_modules_wrong_for_architecture_zh.md","hiyouga/LlamaFactory#181",
 "Baichuan has no q_proj/v_proj (fused W_pack); reporter found the answer in closed issues (--lora_target W_pack). One-liner; the fix line removed.",
"""ValueError: Target modules ['q_proj', 'v_proj'] not found in the base model. Please check the target modules and try again.""")

add("p7b","positive",C+"h21_lora_target_modules_wrong_for_architecture_zh.md","hiyouga/LlamaFactory#1785",
 "ChatGLM3 has no q_proj/v_proj; a later commenter: choose lora_target by model, chatglm3 needs query_key_value. Removed the title and the follow-up comments.",
"""CUDA_VISIBLE_DEVICES=7 python src/train_bash.py \\
    --stage pt \\
    --model_name_or_path /model/chatglm3-6b-model/ \\
    --do_train \\
    --dataset data1 \\
    --finetuning_type lora \\
    --lora_target q_proj,v_proj \\
    --output_dir path_to_pt_checkpoint \\
    --overwrite_cache \\
    --per_device_train_batch_size 4 \\
    --gradient_accumulation_steps 4 \\
    --lr_scheduler_type cosine \\
    --logging_steps 10 \\
    --save_steps 1000 \\
    --learning_rate 5e-5 \\
    --num_train_epochs 3.0 \\
    --plot_loss \\
    --fp16
报错：ValueError: Target modules {'q_proj', 'v_proj'} not found in the base model. Please check the target modules and try again.

### Expected behavior

怎么解决这个错误？这个lora_target的参数是根据什么设置具体值的？""")

add("p8a","positive",C+"h21_fp16_overflow_sampling_nan_probs_en.md","LianjiaTech/BELLE#412",
 "Reporter found the eval script hard-codes load_type = torch.float16; the bf16-trained model overflows in fp16 during sampling. Removed the reporter's follow-up that states the cause.",
"""如题，我使用BELLE/train/dschat_train_v1中的方法进行了全参数SFT，数据使用为belle-math-0.25M。
SFT过程很顺利，但是使用生成脚本：
CUDA_VISIBLE_DEVICES=0 python prompt_eval.py \\
    --model_name_or_path model_name_or_path \\
    --finetuned_model_name_or_path finetuned_model_name_or_path \\
    --test_file test_file_name_or_path
之后，会在某些测试样例中报错：**RuntimeError: probability tensor contains either `inf`, `nan` or element < 0**。删除掉那个报错case以后，其他case也有可能报这个错误。测试样例即按照教程将belle-math-0.25M分出来1k个作为eval set。
刚开始怀疑是环境问题造成，但是我用官方的docker也会在同样的case出同样的问题，因此环境问题排除。
现在就不知道是什么原因导致的这个问题产生。还请大神们帮帮忙~""")

add("p9a","positive",C+"h21_zero3_partitioned_weights_forward_outside_engine_en.md","hiyouga/LlamaFactory#3108",
 "PPO generate() with ZeRO-3: the unwrapped policy's embed_tokens is a partitioned empty tensor; labelled solved. Prose-only (no error line); trimmed the launch config and the reporter's own diagnosis sentence.",
"""Generate() step is failing during PPO with LLaMA 70B + LoRA. I'm using DeepSpeed ZeRO-3 and I've tried with and without offloading, and with and without grad accumulation. Is the model not being unwrapped correctly? When I print the state dictionary of the unwrapped model (and also unwrapped_model.pretrained_model.state_dict()), I get that the following tensor, which is not 2D: `('base_model.model.model.embed_tokens.weight', tensor([], device='cuda:7', dtype=torch.bfloat16))`. Is there a way to fix this?""")

add("p9b","positive",C+"h21_zero3_partitioned_weights_forward_outside_engine_en.md","huggingface/trl#669",
 "DPO with ZeRO-3: the reference model's forward runs on partitioned (empty) embedding weights because it was not prepared by DeepSpeed; TRL later prepares ref_model with deepspeed. Cut-off traceback; final 'weight' error line not shown.",
"""i used `Open-Orca/OpenOrca-Platypus2-13B` and dpo error accured
dataset is used `Anthropic/hh-rlhf`

``` python3
Traceback (most recent call last):
  File "/data/workspace/train/train_dpo.py", line 133, in <module>
    main(model_args=model_args, dataset_args=dataset_args, training_args=training_args)
  File "/data/workspace/train/train_dpo.py", line 119, in main
    dpo_trainer.train()
  File "/data/workspace/.bart_venv/lib/python3.10/site-packages/transformers/trainer.py", line 1539, in train
    return inner_training_loop(
  File "/data/workspace/.bart_venv/lib/python3.10/site-packages/transformers/trainer.py", line 1809, in _inner_training_loop
    tr_loss_step = self.training_step(model, inputs)
  File "/data/workspace/.bart_venv/lib/python3.10/site-packages/transformers/trainer.py", line 2654, in training_step
    loss = self.compute_loss(model, inputs)
  File "/data/workspace/.bart_venv/lib/python3.10/site-packages/trl/trainer/dpo_trainer.py", line 360, in compute_loss
    loss, metrics = self.get_batch_metrics(model, inputs, train_eval="train")
  File "/data/workspace/.bart_venv/lib/python3.10/site-packages/trl/trainer/dpo_trainer.py", line 327, in get_batch_metrics
    ) = self.concatenated_forward(self.ref_model, batch)""")

add("p10a","positive",C+"h21_host_ram_oom_kills_torchrun_worker_zh.md","meta-llama/codellama#118",
 "torchrun worker SIGKILLed (-9) while loading CodeLlama-7B under WSL2: host RAM limit of the WSL VM (kernel OOM killer). Prose-only: the torchrun log was trimmed away, only the reporter's words and command kept.",
"""I am getting the following error when I tried to run the example with "torchrun  example_completion.py     --ckpt_dir CodeLlama-7b/     --tokenizer_path CodeLlama-7b/tokenizer.model     --max_seq_len 128 --max_batch_size 4".

I have PyTorch 2.0.1 installed on WSL2 using miniconda. Unlike other issues where "torch.distributed.elastic.multiprocessing.api:failed" with an existcode 1, I am getting SIGKILL. What could be the reason?""")

add("p11a","positive",C+"h21_llamacpp_build_too_old_for_gguf_arch_en.md","mozilla-ai/llamafile#730",
 "llamafile 0.9.1 vendors a llama.cpp without the granite architecture; maintainer: support merged, ships in 0.9.2. Removed the maintainer reply and the download URL.",
"""I can create a llamafile with an IBM granite model gguf, but when I try to run the llamafile I get an

    unknown model architecture: 'granite'

error.  Please add granite to known models.

### Version

llamafile 0.9.1

### Relevant log output

```shell
unknown model architecture: 'granite'
```""")

add("p11b","positive",C+"h21_llamacpp_build_too_old_for_gguf_arch_en.md","mozilla-ai/llamafile#711",
 "Gemma 3 GGUF on llamafile 0.9.0, whose vendored llama.cpp predates gemma3 support; fixed by a later release. Cut after the metadata dump; ASCII banner dropped.",
"""Google's Gemma 3 can't be load.

### Version

llamafile v0.9.0 (v0.9.1 llamafile-convert is unusable)

### What operating system are you seeing the problem on?

Mac

### Relevant log output

```shell
./gemma-3-4b-Q4_K_M.llamafile --verbose
Apple Metal GPU support successfully loaded
llama_model_loader: loaded meta data with 40 key-value pairs and 444 tensors from gemma-3-4b-Q4_K_M.gguf (version GGUF V3 (latest))
llama_model_loader: Dumping metadata keys/values. Note: KV overrides do not apply in this output.
llama_model_loader: - kv   0:                       general.architecture str              = gemma3
llama_model_loader: - kv   1:                               general.type str              = model
```""")

add("p12a","positive",C+"h21_vllm_fork_after_cuda_init_zh.md","lm-sys/FastChat#3507",
 "vLLM worker with tensor parallel > 1 forks workers after CUDA init; reporter: export VLLM_WORKER_MULTIPROC_METHOD=spawn fixes it. Prose-only: the error is only in the title and a screenshot (both removed); fix comment removed.",
"""I want to use vllm_workers to serve a model. When serving on one GPU, it works fine, but when serving on multiple GPUs (with tensor-parallel-size equals to gpu count), it will raise the following error:

Does anyone know how to fix it?""")

add("p12b","positive",C+"h21_vllm_fork_after_cuda_init_zh.md","liunian-Jay/MU-GOT#2",
 "vLLM TP=4 inside a FastAPI/uvicorn script: workers forked after CUDA init; set_start_method in code does not change vLLM's worker method (env var VLLM_WORKER_MULTIPROC_METHOD). Thread closed without a visible reply: see uncertain labels. Title removed.",
"""你好，用vllm启动，遇到过： 
RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method，不。

已在代码上增加了 spawn【无效】
multiprocessing.set_start_method('spawn', force=True)

-- 启动代码：
llm = LLM(model=model_name, tensor_parallel_size=4, trust_remote_code=True , device="cuda", gpu_memory_utilization=0.8 , dtype="float16")

app = FastAPI()

if __name__ == "__main__":
    import uvicorn
    uvicorn.run(app="run_vllm:app", host="0.0.0.0", port=6106)""")

add("p13a","positive",C+"h21_deepspeed_system_cuda_vs_torch_cuda_major_en.md","JIA-Lab-research/MGM#91",
 "System CUDA 12.2 vs torch cu117: maintainer says align them; reporter solved it. One-liner; question and replies removed.",
"""deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp extensions without a matching cuda version.""")

add("p13b","positive",C+"h21_deepspeed_system_cuda_vs_torch_cuda_major_en.md","databrickslabs/dolly#168",
 "After downgrading deepspeed (to get past an earlier unrelated TypeError), the op build hits system CUDA 9.1 vs torch cu118. Second-error form: mentions the earlier issue; traceback trimmed.",
"""Downgraded deepspeed to `pip install deepspeed==0.8.3`.

Now new issue:
```
Exception: >- DeepSpeed Op Builder: Installed CUDA version 9.1 does not match the version torch was compiled with 11.8, unable to compile cuda/cpp extensions without a matching cuda version.
Traceback (most recent call last):
  File "/usr/lib/python3.8/runpy.py", line 194, in _run_module_as_main
    return _run_code(code, main_globals, None,
  File "/usr/lib/python3.8/runpy.py", line 87, in _run_code
    exec(code, run_globals)
```""")
