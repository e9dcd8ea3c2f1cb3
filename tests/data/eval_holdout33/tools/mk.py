import json, os
Q = []
def add(kind, expected, source, note, text, tags):
    Q.append(dict(kind=kind, expected=expected, source=source, note=note, text=text.strip('\n')+'\n', tags=tags))

D1='corpus/h33_nccl_shm_container_devshm_en.md'
D2='corpus/h33_nccl_socket_ifname_wrong_nic_zh.md'
D3='corpus/h33_dataloader_bus_error_shm_zh.md'
D4='corpus/h33_hf_fast_tokenizer_already_borrowed_threads_en.md'
D5='corpus/h33_chatglm_remote_tokenizer_new_transformers_zh.md'
D6='corpus/h33_zero3_load_state_dict_into_partitioned_model_en.md'
D7='corpus/h33_zero3_saved_weights_empty_zh.md'
D8='corpus/h33_lora_target_modules_wrong_arch_names_en.md'

add('positive',D1,'NVIDIA/nccl-tests#166','shm segment creation fails: failed to extend /dev/shm -> /dev/shm too small (log itself shows ENOSPC-type failure; thread closed). Trimmed to the NCCL WARN/INFO lines; title (internal error) removed; never shows a final exception.',r'''
ubuntu:9621:9688 [3] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-KWfVyt (size 5967872)
ubuntu:9621:9688 [3] NCCL INFO transport/shm.cc:114 -> 2
ubuntu:9621:9688 [3] NCCL INFO transport.cc:33 -> 2
ubuntu:9621:9688 [3] NCCL INFO transport.cc:97 -> 2
ubuntu:9621:9688 [3] NCCL INFO init.cc:1089 -> 2
ubuntu:9621:9688 [3] NCCL INFO init.cc:1358 -> 2
ubuntu:9621:9688 [3] NCCL INFO group.cc:65 -> 2 [Async thread]

ubuntu:9621:9691 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 bytes

ubuntu:9621:9691 [6] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-fjwOOB (size 5967872)
ubuntu:9621:9691 [6] NCCL INFO transport/shm.cc:114 -> 2
ubuntu:9621:9691 [6] NCCL INFO transport.cc:33 -> 2
''',['cutoff'])

add('positive',D1,'kserve/kserve#3791','multi-GPU HF server in a k8s pod: NCCL cannot extend /dev/shm (pod shm too small). Established only by the log + closed thread; fix not quoted. Trimmed Ray topology lines.',r'''
hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-H1dBqY to 9637892 bytes

hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:113 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-H1dBqY (size 9637888)
hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] NCCL INFO transport/shm.cc:114 -> 2
hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] NCCL INFO transport.cc:33 -> 2
hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] NCCL INFO transport.cc:113 -> 2
hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] NCCL INFO init.cc:1263 -> 2
(RayWorkerWrapper pid=1148) hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1148:1148 [1] NCCL INFO Setting affinity for GPU 1 to aaaa,aaaaaaaa
(RayWorkerWrapper pid=1148) hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1148:1148 [1] NCCL INFO Pattern 4, crossNic 0, nChannels 1, bw 6.000000/6.000000, type SYS/PIX, sameChannels 1
''',['log'])

add('positive',D1,'zai-org/CogVLM#394','4xA6000 finetune, barrier fails: Error while creating shared memory segment /dev/shm/nccl-* -> shm too small (UNCERTAIN: thread closed without a quoted confirmation; mechanism read from the log). Removed model path naming the project, issue template headings.',r'''
系统：
centos8,
cuda:12.1
GPU:A6000*4

在完成环境配置后，模型加载完成之后，报错信息如下：
File "/root/anaconda3/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py",line 3439,in barrier
work=default_pg.barrier(opts=opts)
torch.distributed.DistBackendError:NCCL error in :../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691,unhandled system error (run with NCLL_DEBUG=INFO for details),NCCL version 2.19.3
ncclSystemError:System call (e.g. socket,malloc) or external library call failed or device error.
Last error:
Error while creating shared memory segment /dev/shm/nccl-ENPWQG (size 4194656)
其中，我的shell脚本信息为：
#! /bin/bash
NUM_GPUS_PER_WORKER=4
MP_SIZE=1
''',['zh'])

add('positive',D2,'NVIDIA/nccl#697','two remote nodes: NCCL socket transport tries every bridge/veth interface; maintainer suggested NCCL_SOCKET_IFNAME=bond0, reporter: solved. Query is only the interface list from the reporter log (quoted in thread); title and fix removed.',r'''
INFO NET/Socket : Using
[0]bond0:192.168.1.161<0>
[1]br-05ab815fa14e:172.19.0.1<0>
[2]br-d5d80d7dbbad:172.21.0.1<0>
[3]br-dd40dc616638:172.30.0.1<0>
[4]br-e3fd6ba7b530:192.168.16.1<0>
[5]br-f286beab47e9:172.24.0.1<0>
[6]br-f5798861ef0d:172.20.0.1<0>
[7]br-846ccdc1c516:192.168.176.1<0>
[8]br-d77707f6d10f:172.29.0.1<0>
[9]br-364ef9f0bffe:192.168.192.1<0>
[10]br-9aa3d4529a15:172.31.0.1<0>
[11]br-46146ba14da2:172.26.0.1<0>
[12]veth6163fba:fe80::b878:6cff:fe52:abe2%veth6163fba<0>
[13]veth70ec058:fe80::e0:11ff:fec8:925f%veth70ec058<0>
''',['log'])

add('positive',D2,'NVIDIA/nccl#286','two nodes with different NIC names (eno1 / eth0): unhandled system error + connection reset; maintainer: lo is loopback, set NCCL_SOCKET_IFNAME=eno1,eth0 (UNCERTAIN: reporter still had errors afterwards; later replies not read). Title removed.',r'''
I have two computer, when i do ifconfig, then one gives
'eno1
lo'
2nd computer gives
'eth0
lo'
What do I specify in nccl_socket_ifname on both nodes, do I specify lo on both?

I receive error like
RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:410, unhandled system error, NCCL version 2.4.8
and
connection reset by peer
''',[])

add('positive',D3,'hkchengrex/STCN#132','DataLoader worker Bus error; maintainer pointed to the insufficient-shm discussion. Single error line kept (title is the same message; body line kept).',r'''
RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
''',['oneliner'])

add('positive',D3,'mittagessen/kraken#699','segmenter training in a web app: DataLoader worker Bus error, out of shared memory (UNCERTAIN: closed; resolution not quoted). Title removed.',r'''
In eScriptorium, I was trying to train a segmenter model on about 10 pages of text. Previously I was able to train dozens of pages at a time. However recently the following error has consistently occurred and I don't know why. Can anyone explain what 'shared' memory refers to and how one can increase it (or otherwise solve the likely problem) within eScriptorium?

```
DataLoader worker (pid 270071) is killed by signal: 
Bus error. It is possible that dataloader's workers are out of shared memory. 
Please try to raise your shared memory limit. 
```
''',[])

add('positive',D3,'NVIDIA/Megatron-LM#878','Megatron data loading: worker Bus error with /dev/shm out of space (title was OSError Errno 28 No space left on device; UNCERTAIN: resolution not read). Title removed; head of traceback trimmed.',r'''
  File "/usr/lib/python3.10/selectors.py", line 416, in select
    fd_event_list = self._selector.poll(timeout)
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 56811) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.
Exception ignored in atexit callback: <function _MultiProcessingDataLoaderIter._clean_up_worker at 0x7fc7fa34f7f0>
Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1475, in _clean_up_worker
    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
  File "/usr/lib/python3.10/multiprocessing/process.py", line 149, in join
    res = self._popen.wait(timeout)
''',['second_error'])

add('positive',D4,'freelawproject/inception#35','tokenizer.encode() called from ThreadPoolExecutor on one shared fast tokenizer (fixed by thread-local tokenizer PR). Title (the error line), Sentry and upstream links and the fix sentence removed: prose only.',r'''
There is a new error in Sentry that popped up over the weekend.

Looks like this is due to calling `tokenizer.encode()` within ThreadPoolExecutor, where the AutoTokenizer is built on Rust and it's not thread safe.
''',['noerror'])

add('positive',D4,'stanford-crfm/helm#1421','multi-threaded evaluation with an HF fast tokenizer intermittently raises Already borrowed; upstream PyO3 borrow check; worked around with 1 thread. Title removed; workaround sentence removed.',r'''
When running in multi-threaded mode with a Hugging Face fast tokenizer, there are sometimes `HuggingFace error: Already borrowed` errors.

Upon digging, the error seems to come from the Python binding of the HF Rust tokenizer. The Rust implementation should be natively thread-safe as long as it compiles (and no unsafe Rust is used), but the interop mechanism with Python `PyO3` has runtime checks to make sure the tokenizer instance is not mutably borrowed from two threads, resulting in the error.
''',[])

add('positive',D5,'chatchat-space/Langchain-Chatchat#2090','ChatGLM2-6B tokenizer with transformers 4.34 -> no attribute tokenizer (same as sibling threads; fixed by downgrade/updated tokenizer file). Removed template boilerplate and project-version line.',r'''
问题描述：
执行python startup.py -a
报错，AttributeError: 'ChatGLMTokenizer' object has no attribute 'tokenizer'

环境信息：
- 是否使用 Docker 部署（是/否）：是
- 使用的模型（ChatGLM2-6B / Qwen-7B 等）：ChatGLM2-6B
- 使用的 Embedding 模型：moka-ai/m3e-base
- 使用的向量库类型：faiss
python：3.8
transformer：4.34
''',['zh'])

add('positive',D5,'DLLXW/baby-llama2-chinese#45','transformers 4.35.2 breaks ChatGLMTokenizer remote code (pin 4.33.2). Fix sentence (requirement pin) removed; kept a later comment.',r'''
使用transformers==4.35.2时会报错：AttributeError: 'ChatGLMTokenizer' object has no attribute 'tokenizer'

根据requirement.txt新建了一个venv，还是会报错：AttributeError: 'ChatGLMTokenizer' object has no attribute 'tokenizer'. Did you mean: 'tokenize'?
''',['zh'])

add('positive',D5,'hiyouga/LlamaFactory#2247','chatglm2 LoRA SFT fails loading ChatGLMTokenizer (no attribute tokenizer) with new transformers. Title (the error) removed, project folder name removed from path; the final exception is not in the kept part.',r'''
### Reproduction

python.exe" F:\python_project\src\train_bash.py --stage sft --do_train --model_name_or_path F:\python_project\ChatGLM2-6B\THUDM2\chatglm2-6b --dataset ins_db_train --finetuning_type lora --lora_target query_key_value --output_dir glm26b_sft_checkpoint --overwrite_cache --per_device_train_batch_size 4 --gradient_accumulation_steps 4 --lr_scheduler_type cosine --logging_steps 10 --template chatglm2 --save_steps 10 --learning_rate 5e-5 --num_train_epochs 10.0 --plot_loss --fp16 --overwrite_output_dir

### System Info

Using custom data configuration default-d0818dfc9c1f39f4
Loading Dataset Infos from F:\Program Files\anaconda3\envs\chat\lib\site-packages\datasets\packaged_modules\json
Overwrite dataset info from restored data version if exists.
''',['cutoff'])

add('positive',D5,'zai-org/ChatGLM2-6B#651','transformers 4.36.2 cannot load the chatglm2 tokenizer (remote tokenizer init order). Title removed; traceback cut inside tokenization_utils_base before the AttributeError.',r'''
Traceback (most recent call last):
  File "/home/inspur/scc/gpt/LLaMA-Factory/src/train_bash.py", line 14, in <module>
    main()
  File "/home/inspur/scc/gpt/LLaMA-Factory/src/train_bash.py", line 5, in main
    run_exp()
  File "/home/inspur/scc/gpt/LLaMA-Factory/src/llmtuner/train/tuner.py", line 26, in run_exp
    run_sft(model_args, data_args, training_args, finetuning_args, generating_args, callbacks)
  File "/home/inspur/scc/gpt/LLaMA-Factory/src/llmtuner/train/sft/workflow.py", line 29, in run_sft
    model, tokenizer = load_model_and_tokenizer(model_args, finetuning_args, training_args.do_train)
  File "/home/inspur/scc/gpt/LLaMA-Factory/src/llmtuner/model/loader.py", line 49, in load_model_and_tokenizer
    tokenizer = AutoTokenizer.from_pretrained(
  File "/home/inspur/anaconda3/envs/llama/lib/python3.10/site-packages/transformers/models/auto/tokenization_auto.py", line 774, in from_pretrained
    return tokenizer_class.from_pretrained(pretrained_model_name_or_path, *inputs, **kwargs)
  File "/home/inspur/anaconda3/envs/llama/lib/python3.10/site-packages/transformers/tokenization_utils_base.py", line 2028, in from_pretrained
    return cls._from_pretrained(
''',['cutoff'])

add('positive',D6,'modelscope/ms-swift#1058','deepseek-vl vision tower weights loaded into a ZeRO-3 partitioned model (labelled solved). Title removed.',r'''
```
# Experimental Environment: 4 * Ascend 910B3
# GPU Memory Requirement: 4 * 25GB
# Runtime: 8.5 hours
NPROC_PER_NODE=4 \
ASCEND_RT_VISIBLE_DEVICES=0,1,2,3 \
swift sft \
    --model_type deepseek-vl-7b-chat \
    --model_id_or_path /path/to/deepseek-vl-7b-chat \
    --dataset coco-en-mini \
    --num_train_epochs 5 \
    --sft_type full \
    --output_dir output \
    --deepspeed default-zero3 \
```

I also tried sft_type of lora, same problem:

RuntimeError: Error(s) in loading state_dict for MultiModalityCausalLM:
        size mismatch for vision_model.vision_tower_high.vision_tower.neck_hd.0.weight: copying a param with shape torch.Size([256, 768, 1, 1]) from checkpoint, the shape in current model is torch.Size([0]).
        size mismatch for vision_model.vision_tower_high.vision_tower.neck_hd.1.weight: copying a param with shape torch.Size([256]) from checkpoint, the shape in current model is torch.Size([0]).
        size mismatch for vision_model.vision_tower_high.vision_tower.neck_hd.1.bias: copying a param with shape torch.Size([256]) from checkpoint, the shape in current model is torch.Size([0]).
''',[])

add('positive',D6,'OpenGVLab/VideoChat-Flash#26','finetune: vision encoder checkpoint loaded into ZeRO-3 partitioned encoder (current shape [0]) (UNCERTAIN: closed; resolution not read). Title removed; only the middle of the mismatch list kept, no exception header.',r'''
	size mismatch for encoder.blocks.16.attn.qkv.weight: copying a param with shape torch.Size([3072, 1024]) from checkpoint, the shape in current model is torch.Size([0]).
	size mismatch for encoder.blocks.16.attn.proj.weight: copying a param with shape torch.Size([1024, 1024]) from checkpoint, the shape in current model is torch.Size([0]).
	size mismatch for encoder.blocks.16.attn.proj.bias: copying a param with shape torch.Size([1024]) from checkpoint, the shape in current model is torch.Size([0]).
	size mismatch for encoder.blocks.16.norm2.weight: copying a param with shape torch.Size([1024]) from checkpoint, the shape in current model is torch.Size([0]).
	size mismatch for encoder.blocks.16.mlp.fc1.weight: copying a param with shape torch.Size([4096, 1024]) from checkpoint, the shape in current model is torch.Size([0]).
	size mismatch for encoder.blocks.16.mlp.fc2.bias: copying a param with shape torch.Size([1024]) from checkpoint, the shape in current model is torch.Size([0]).
''',['cutoff'])

add('positive',D7,'axolotl-ai-cloud/axolotl#933','final model in output folder written by ZeRO-3 run has empty tensors (checkpoint side torch.Size([0])); only Zero3, Zero2 fine. Removed @-mentions and the Zero2 workaround remark.',r'''
From the output folder

```
  File "<stdin>", line 1, in <module>
  File "/lustre/home/rolmedo/axo/lib/python3.10/site-packages/transformers/models/auto/auto_factory.py", line 566, in from_pretrained
    return model_class.from_pretrained(
  File "/lustre/home/rolmedo/axo/lib/python3.10/site-packages/transformers/modeling_utils.py", line 3480, in from_pretrained
    ) = cls._load_pretrained_model(
  File "/lustre/home/rolmedo/axo/lib/python3.10/site-packages/transformers/modeling_utils.py", line 3931, in _load_pretrained_model
    raise RuntimeError(f"Error(s) in loading state_dict for {model.__class__.__name__}:\n\t{error_msg}")
RuntimeError: Error(s) in loading state_dict for MistralForCausalLM:
	size mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([0]) from checkpoint, the shape in current model is torch.Size([32002, 4096]).
	You may consider adding `ignore_mismatched_sizes=True` in the model `from_pretrained` method.
```

I can confirm that I only experience this issue when using Zero3.
''',[])

add('positive',D7,'OpenRLHF/OpenRLHF#651','LoRA weights saved after ZeRO-3 SFT are empty tensors; loading fails with checkpoint-side torch.Size([0]) (UNCERTAIN: closed, resolution not read). Chinese title removed; kept mismatch lines.',r'''
        size mismatch for base_model.model.model.layers.7.mlp.down_proj.lora_A.default.weight: copying a param with shape torch.Size([0]) from checkpoint, the shape in current model is torch.Size([8, 14336]).
        size mismatch for base_model.model.model.layers.8.mlp.gate_proj.lora_B.default.weight: copying a param with shape torch.Size([0]) from checkpoint, the shape in current model is torch.Size([14336, 8]).
        size mismatch for base_model.model.model.layers.8.mlp.up_proj.lora_B.default.weight: copying a param with shape torch.Size([0]) from checkpoint, the shape in current model is torch.Size([14336, 8]).
        size mismatch for base_model.model.model.layers.9.mlp.gate_proj.lora_B.default.weight: copying a param with shape torch.Size([0]) from checkpoint, the shape in current model is torch.Size([14336, 8]).
''',['cutoff'])

add('positive',D7,'axolotl-ai-cloud/axolotl#1041','full finetune saved with zero3 is 760K vs 2.1G with zero2 (final save without gathering partitioned weights; UNCERTAIN: side question in a thread about another problem, answer not read). @-mention removed; project folder in the launch command removed; prose plus a directory listing, no error line.',r'''
For full-finetuned the TinyLlama model (4.4G), The size of the model generated using deepspeed with zeros2 (**2.1G**) and zero3 (**760K**) are different.

### Zero2
- ` accelerate launch  scripts/finetune.py fine-tunning-config.yaml --deepspeed deepspeed/zero2.json`
- size of the model with zero2 (**2.1G**):

```
ls -lh full-finetune-zero2/
total 2.1G
-rw-r--r-- 1 root root 1.9K Jan  9 17:58 README.md
-rw-r--r-- 1 root root   42 Jan  9 14:49 added_tokens.json
drwxr-xr-x 3 root root 4.0K Jan  9 16:17 checkpoint-1032
-rw-r--r-- 1 root root  674 Jan  9 17:57 config.json
-rw-r--r-- 1 root root 2.1G Jan  9 17:58 pytorch_model.bin
```

### Zero3
- ` accelerate launch  scripts/finetune.py fine-tunning-config.yaml --deepspeed deepspeed/zero3.json`
- size of the model with zero3 (**760K**)
''',['noerror'])

add('positive',D7,'huggingface/peft#453','LoRA trained with ZeRO-3 saves a 3.6M adapter that cannot be loaded (16M without stage3): saved without gathering partitioned params (UNCERTAIN: issue open; mechanism is the documented ZeRO-3 save behaviour). Title removed; prose only, config cut.',r'''
I used the train_lora.py code provided by the fastchat and trained it using deepspeed zero stage3 without CPU offload. However, I found that the saved bin file weights after training were only 3.6m, which cannot be loaded. If non-stage3 training is used, the saved weights should be 16m and can be loaded for inference

deepspeed stage3.json
```
    "zero_optimization": {
        "stage": 3,
        "offload_optimizer": {
            "device": "none",
            "pin_memory": true
        },
        "offload_param": {
            "device": "none",
            "pin_memory": true
        },
        "overlap_comm": true,
        "contiguous_gradients": true,
```
''',['noerror'])

add('positive',D8,'JIA-Lab-research/LongLoRA#68','LoRA target_modules query_key_value/dense (GPT-NeoX/Falcon names) used on a LLaMA-family model (UNCERTAIN: closed, resolution not read). Title removed; traceback cut inside peft lora __init__; project folder and conda env name in paths anonymised (LongLoRA->src, longlora->myenv).',r'''
Please check the target modules and try again

Here's the  script for sft model trained by qlora tasks before.
WARNING:root:Tokenizing inputs... This may take some time...
Traceback (most recent call last):
  File "/workspace/src/supervised-fine-tune.py", line 305, in <module>
    train()
  File "/workspace/src/supervised-fine-tune.py", line 290, in train
    model = get_peft_model(model, config)
  File "/root/miniconda3/envs/myenv/lib/python3.10/site-packages/peft/mapping.py", line 106, in get_peft_model
    return MODEL_TYPE_TO_PEFT_MODEL_MAPPING[peft_config.task_type](model, peft_config, adapter_name=adapter_name)
  File "/root/miniconda3/envs/myenv/lib/python3.10/site-packages/peft/peft_model.py", line 889, in __init__
    super().__init__(model, peft_config, adapter_name)
  File "/root/miniconda3/envs/myenv/lib/python3.10/site-packages/peft/peft_model.py", line 111, in __init__
    self.base_model = PEFT_TYPE_TO_MODEL_MAPPING[peft_config.peft_type](
  File "/root/miniconda3/envs/myenv/lib/python3.10/site-packages/peft/tuners/lora.py", line 274, in __init__
    super().__init__(model, config, adapter_name)
''',['cutoff'])

# near misses
add('near_miss',None,'zhuyu-cs/MeanFlow#28','looks like the DataLoader shm Bus error doc, but the worker dies with Segmentation fault from an LMDB environment opened before fork (not fork-safe); reporter fixed it by opening the env lazily in each worker. Greeting, repo file mention and the fix/code removed.',r'''
I was wondering if you've encountered a "Segmentation fault" issue with the DataLoader (e.g., RuntimeError: DataLoader worker (pid 118774) is killed by signal: Segmentation fault.) when reading the LMDB dataset. I sometimes run into this error. It happens only occasionally, which makes it tricky to debug, so I wanted to raise this issue.

A bit context: I trained with 2~8 A100s. It happens only when the "num_workers" of the dataloader is >0, and the error never happens when "num_workers=0".
''',[])

add('near_miss',None,'alibaba/Pai-Megatron-Patch#338','load_state_dict size mismatch like the ZeRO-3 docs, but 102400 vs 102416 rows: Megatron vocab padding differs between converted checkpoint and training config; fixed in the conversion/training script (linked PR). Thanks sentence and long log removed.',r'''
We're currently working on fine-tuning the DeepSeek model and followed the instructions in your README. However, after transforming the weights, we encountered the following error message:

```
RuntimeError: Error(s) in loading state_dict for GPTModel:
        size mismatch for embedding.word_embeddings.weight: copying a param with shape torch.Size([102400, 2048]) from checkpoint, the shape in current model is torch.Size([102416, 2048]).
        size mismatch for output_layer.weight: copying a param with shape torch.Size([102400, 2048]) from checkpoint, the shape in current model is torch.Size([102416, 2048]).
```

Command
```
sh run_finetune_deepseek.sh  \
dsw \
A2.4B \
1    \
8    \
1e-5   \
1e-6   \
128  \
128  \
bf16  \
```
''',[])

add('near_miss',None,'wp931120/baichuan_sft_lora#1','same PEFT ValueError as the LoRA target-name doc, but the list is empty: the script helper that collects linear layer names (find_all_linear_names) returned nothing for the loaded model (commenter diagnosis), not a wrong architecture name. Kept traceback and the zh sentence; diagnosis comment removed.',r'''
Traceback (most recent call last):
  File "sft_lora.py", line 68, in <module>
    model = get_peft_model(model, config)
  File "/usr/lib/python3.8/site-packages/peft-0.4.0.dev0-py3.8.egg/peft/mapping.py", line 122, in get_peft_model
  File "/usr/lib/python3.8/site-packages/peft-0.4.0.dev0-py3.8.egg/peft/peft_model.py", line 798, in __init__
  File "/usr/lib/python3.8/site-packages/peft-0.4.0.dev0-py3.8.egg/peft/peft_model.py", line 106, in __init__
  File "/usr/lib/python3.8/site-packages/peft-0.4.0.dev0-py3.8.egg/peft/tuners/lora.py", line 174, in __init__
  File "/usr/lib/python3.8/site-packages/peft-0.4.0.dev0-py3.8.egg/peft/tuners/lora.py", line 181, in add_adapter
  File "/usr/lib/python3.8/site-packages/peft-0.4.0.dev0-py3.8.egg/peft/tuners/lora.py", line 333, in _find_and_replace
ValueError: Target modules [] not found in the base model. Please check the target modules and try again.

执行sft_lora.py时会报这个错
''',[])

add('near_miss',None,'NVIDIA/nccl#1837','NCCL socket failure near the wrong-NIC doc, but NCCL_SOCKET_IFNAME was set to an interface that does not exist on the node, so NCCL builds a garbage address (reporter traced it in socket.cc, proposes an explicit error). Steps-to-reproduce sentence (states the cause) and code proposal removed.',r'''
[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth2
[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set to eth2
...
[trainer0|0]:ncclInternalError: Internal check failed.
[trainer0|0]:Last error:
[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)

NCCL Version 2.27.7
''',[])

# negatives
add('negative',None,'CASIA-LMC-Lab/AnomalyGPT#43','deepspeed launcher kills subprocesses (-9) while loading the language decoder: host RAM too small, fixed on a machine with more RAM (reporter). Kept log tail and a zh comment; fix sentence removed.',r'''
Initializing language decoder from ../pretrained_ckpt/vicuna_ckpt/7b_v0/ ...
[2023-11-13 16:59:54,760] [INFO] [launch.py:314:sigkill_handler] Killing subprocess 9439
[2023-11-13 16:59:54,783] [INFO] [launch.py:314:sigkill_handler] Killing subprocess 9440
[2023-11-13 16:59:55,650] [ERROR] [launch.py:320:sigkill_handler] ['/opt/conda/bin/python', '-u', 'train_mvtec.py', '--local_rank=1', '--model', 'openllama_peft', '--stage', '1', '--imagebind_ckpt_path', 
'../pretrained_ckpt/imagebind_ckpt/imagebind_huge.pth', '--vicuna_ckpt_path', '../pretrained_ckpt/vicuna_ckpt/7b_v0/', '--delta_ckpt_path', '../pretrained_ckpt/pandagpt_ckpt/7b/pytorch_model.pt', '--max_t
gt_len', '1024', '--data_path', '../data/pandagpt4_visual_instruction_data.json', '--image_root_path', '../data/images/', '--save_path', './ckpt/train_mvtec/', '--log_path', './ckpt/train_mvtec/log_rest/'
] exits with return code = -9

您好，我在训练时遇到了跟您类似的错误，但是我的显存是够的，请问您最后解决了吗？
''',['zh'])

add('negative',None,'IrisRainbowNeko/genshin_auto_fish#28','YOLOX training on a 4 GB laptop GPU runs out of memory; an external display on the same GPU took part of the memory, solved by unplugging it (reporter). Prose only; solution sentences removed.',r'''
请问这个报错是正常的么？

不我下载了，仔细看报错，报错也并没有显示是文件问题，我也检查过路径设置确实没问题，显存也上去过一段时间，
我尝试截图，弹出新错误，说我显存不够，离谱

有什么解决方法么？
''',['zh','noerror'])

add('negative',None,'modal-labs/modal-examples#843','served Llama 3.1 8B reports max_model_len 8096 instead of 128K: the example script sets max model len conservatively to bound KV cache (maintainer). Prose plus the endpoint JSON; no error.',r'''
As shown when hitting the `/models` endpoint

```
{"object":"list","data":[{"id":"meta-llama/Meta-Llama-3.1-8B-Instruct","object":"model","created":1723770563,"owned_by":"vllm","root":"meta-llama/Meta-Llama-3.1-8B-Instruct","parent":null,"max_model_len":8096}]}
```

It should be 128K, right? Might be a VLLM thing?
''',['noerror'])

add('negative',None,'LlamaChinese/Llama-Chinese#177','vLLM caps prompt length at 2048 because the fine-tuned model config carries max_position_embeddings 2048 (vs 4096 in the base config), shown by the reporter. Title removed, download links removed, configs trimmed; no error line.',r'''
1 models--meta-llama--Llama-2-13b-chat-hf/snapshots/0ba94ac9b9e1d5a0037780667e8b219adde1908c/config.json
```json
{
  "architectures": [
    "LlamaForCausalLM"
  ],
  "hidden_size": 5120,
  "max_position_embeddings": 4096, # see here
  "model_type": "llama",
  "num_attention_heads": 40,
  "rope_scaling": null,
  "vocab_size": 32000
}
```

2 models--FlagAlpha--Llama2-Chinese-13b-Chat/snapshots/cb69cda10a72bc9736b1c10181ac41f28b69ff9b/config.json
```json
{
  "architectures": [
    "LlamaForCausalLM"
  ],
  "hidden_size": 5120,
  "max_position_embeddings": 2048, # see here
  "model_type": "llama",
  "num_attention_heads": 40,
```
''',['zh','noerror'])

add('negative',None,'cvg/pixel-perfect-sfm#11','conda env ships an old libstdc++ lacking GLIBCXX_3.4.29 while the system one has it; reporter fixed by pointing the env symlink to the system lib. Title removed; fix sentence removed; project folder in paths anonymised (->proj).',r'''
As shown below, glibcxx 3.4.29 is required but not found on my system, presumably because conda 4.11.0 (the latest version for Arch at the time of writing) does not include this.

`strings /usr/lib/libstdc++.so.6 | grep GLIBCXX_3.4.29`
returns:
```
GLIBCXX_3.4.29
GLIBCXX_3.4.29
```

Python (3.8.12) invocation follows:
```
>>> from pixsfm.refine_hloc import PixSfM
Traceback (most recent call last):
File "<stdin>", line 1, in <module>
File "/home/kevin/proj/pixsfm/__init__.py", line 16, in <module>
from ._pixsfm import *  # noqa F403
ImportError: /home/kevin/anaconda3/envs/pixSfM/lib/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by /home/kevin/proj/pixsfm/_pixsfm.cpython-38-x86_64-linux-gnu.so)
```
''',[])

add('negative',None,'kerlomz/captcha_trainer#3','TF 1.11 CNN captcha training on a 6 GB card: cuda_driver failed to allocate 2.00G; reporter fixed by lowering the GPU memory fraction setting (DeviceUsage). Fix sentences removed.',r'''
Windows 10, Python 3.6.7 64-bit, CUDA 9.0, tensorflow-gpu 1.11, CNN 分支
内存 8GB, 显存 6GB.
训练数据集是 5 万张 240x60 大小的 JPG 图片.

一般是执行 `python .\trains.py` 一段时间后就报错退出.报错信息有这三种情况.
1
```
Traceback (most recent call last):
  File ".\trains.py", line 185, in <module>
    train_process()
  File ".\trains.py", line 79, in train_process
    batch_x, batch_y = get_next_batch(64, False)  # 64
  File ".\trains.py", line 115, in get_next_batch
    batch_x = np.zeros([batch_size, IMAGE_HEIGHT * IMAGE_WIDTH])
MemoryError
```
2
几屏幕的 CUDA 和 tensorflow 的报错信息,大概说的是内存分配失败 (原文是 Memory, 指的是内存还是显存?), 就像这样:
```
2018-11-04 01:54:01.061494: E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 2.00G (2147483648 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory
```
''',['zh','second_error'])

add('negative',None,'facebookresearch/ConvNeXt#80','FP16 inference (TensorRT/jit) gives a constant tiny output: the channels_first LayerNorm variance (x-u).pow(2) overflows fp16; reporter analysis, using x.std avoids it. Prose only; the proposed code change removed.',r'''
使用你原版的代码AMP训练没有问题，但是在测试阶段，或者转jit、TensorRT，采用FP16推理，图像分类最终输出的结果全是一个很小的固定值。
我这边debug后发现是，最后一个stage的LN这里计算方差时，(x - u).pow(2)这里的平方操作会超出fp16的表示范围。
''',['zh','noerror'])

add('negative',None,'vllm-project/vllm#2565','vLLM derives max length 4k for a 200k-context Yi model because it ignored rope scaling in the config at that version. Title removed; command kept; output truncated.',r'''
vLLM not accounting for rope scaling.

So can't use full context.

```
 -m vllm.entrypoints.openai.api_server \
        --port=5000 \
        --host=0.0.0.0 \
        --model=01-ai/Yi-34B-Chat \
        --seed 1234 \
        --tensor-parallel-size=4 \
        --trust-remote-code \
        --max-model-len=204800 \
        --download-dir=/workspace/.cache/huggingface/hub
```
''',[])

add('negative',None,'NVlabs/BundleSDF#185','inside the docker image the system libstdc++ is too old for a scipy extension (GLIBCXX_3.4.29); fixed by upgrading libstdc++6 from the toolchain PPA. One line, title removed.',r'''
ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by /opt/conda/envs/py38/lib/python3.8/site-packages/scipy/spatial/_ckdtree.cpython-38-x86_64-linux-gnu.so)
''',['oneliner'])

add('negative',None,'bitsandbytes-foundation/bitsandbytes#723','bitsandbytes 0.41-era CUDA setup on Windows: path handling fails (WindowsPath not iterable) and falls back to CPU library; Windows was not supported by those builds. Kept CUDA SETUP block; last solution lines trimmed.',r'''
Im on Cuda v11.8.
When trying to run bits and bites it gives me the following error:

_python -m bitsandbytes

warn(msg)
================================================================================
CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...
The following directories listed in your path were found to be non-existent: {WindowsPath('/usr/local/cuda/lib64')}
DEBUG: Possible options found for libcudart.so: set()
CUDA SETUP: PyTorch settings found: CUDA_VERSION=118, Highest Compute Capability: 8.6.
CUDA SETUP: Loading binary C:\Users\Jan Hammer\Pictures\kohya_ss\venv\lib\site-packages\bitsandbytes\libbitsandbytes_cuda118.so...
argument of type 'WindowsPath' is not iterable
CUDA SETUP: Problem: The main issue seems to be that the main CUDA runtime library was not detected.
''',[])


D9='corpus/h33_gpu_arch_newer_than_torch_wheel_en.md'
D10='corpus/h33_torch_cpu_wheel_not_compiled_with_cuda_zh.md'
add('positive',D9,'deepseek-ai/DeepSeek-OCR#159','RTX 5090 (sm_120) with a torch build supporting up to sm_90: no kernel image (cause shown by the torch warning itself; issue open, fix not quoted). Stray first line and tail of traceback trimmed; the Chinese app log line kept.',r"""
/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:235: UserWarning:
NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.

  warnings.warn(
模型加载失败: CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.

Traceback (most recent call last):
  File "/app/start_ocr_webui.py", line 76, in load_model
    self.model = self.model.eval().cuda().to(torch.bfloat16)
  File "/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 3157, in to
    return super().to(*args, **kwargs)
""",['zh'])
add('positive',D9,'ostris/ai-toolkit#530','upgraded to an RTX 5060 Ti (sm_120); bundled torch supports up to sm_90 -> no kernel image (closed; fix not quoted). Title removed; UI noise partly kept; package folder name anonymised.',r"""
CUDA error: no kernel image is available for execution on the device CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect. For debugging consider passing CUDA_LAUNCH_BLOCKING=1 Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
error
Progress
Step 0 of 3000

Running 1 job
C:\StabilityMatrix\Packages\app\venv\Lib\site-packages\torch\cuda\__init__.py:287: UserWarning: 
NVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90.
  warnings.warn(
""",[])
add('positive',D9,'Turoad/CLRNet#83','RTX 3090 (sm_86) with an old torch 1.8 build supporting only sm_37..sm_70 -> no kernel image (commenter: upgrade to CUDA 11 build; the torch warning shows the cause). Greeting, link and thanks removed.',r"""
I get the following error:

RuntimeError: CUDA error: no kernel image is available for execution on the device

I suppose the error arises from this problem(?):

/home2/valentina.miller/.local/lib/python3.8/site-packages/torch/cuda/__init__.py:104: UserWarning: 
NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.

How can I solve the incompatibility of the cuda and the current pytorch installation?
As pytorch version 1.8.0 is required....
""",[])
add('positive',D10,'XPixelGroup/HAT#85','GPU present but torch reports not compiled with CUDA: a CPU build of torch was installed (commenter diagnosis; issue open). Title (the error) removed; prose only.',r"""
I am sure that my GPU and cuda is availiable, why this error happend?
""",['noerror','oneliner'])
add('positive',D10,'opendatalab/MinerU#240','Windows conda env: pip install torch==2.3.1 from a PyPI mirror resolves the CPU-only win_amd64 wheel, so the assertion persists (UNCERTAIN: resolution not read; mechanism from the pip log). Title removed; pip log cut; env name anonymised; the final assertion is not in the kept part.',r"""
I saw the control of the version of torch in other issues ,The same error was reported despite the attempt. 

```
(myenv_GPU) C:\Users\tu_ha>pip install torch==2.3.1 torchvision==0.18.1
Looking in indexes: https://mirrors.aliyun.com/pypi/simple/
Collecting torch==2.3.1
  Using cached https://mirrors.aliyun.com/pypi/packages/85/fc/ee5bb50eff313149657f173b003649677e27fa3aaae1ecc806add37f017c/torch-2.3.1-cp310-cp310-win_amd64.whl (159.8 MB)
Collecting torchvision==0.18.1
  Using cached https://mirrors.aliyun.com/pypi/packages/4e/62/3816637079b77875077678bd7087285a5b5589664f94f5ceb2d080cc024c/torchvision-0.18.1-cp310-cp310-win_amd64.whl (1.2 MB)
Requirement already satisfied: filelock in c:\users\tu_ha\.conda\envs\myenv_gpu\lib\site-packages (from torch==2.3.1) (3.15.4)
Requirement already satisfied: typing-extensions>=4.8.0 in c:\users\tu_ha\.conda\envs\myenv_gpu\lib\site-packages (from torch==2.3.1) (4.12.2)
""",['cutoff'])
add('near_miss',None,'NVlabs/neuralrgbd#24','same AssertionError as the CPU-wheel doc, but the machine has no GPU at all and a CPU-only torch is intended; the demo code itself requires CUDA (reporter statement; issue open). Title removed.',r"""
I recieve this error when running `sh run_demo.sh `: 

AssertionError: Torch not compiled with CUDA enabled

I've tried reinstalling torch in the conda environment as well as on my base installation. I've also made sure to install the version of torch that doesn't require CUDA. Since I don't have a GPU I don't need CUDA. So I have a 'cpu only' installation of torch, but still I am getting this error.
""",[])

add('near_miss',None,'open-mmlab/mmcv#2201','same "no kernel image" error as the GPU-arch doc, but from the mmcv CUDA ops extension compiled from source on an A100 and reused on a V100 (built only for the build machine arch); maintainer: set TORCH_CUDA_ARCH_LIST=7.0,8.0 and rebuild; reporter: solved. Fix/thanks removed.',r"""
When I use A100 compile mmcv through the source code, used MMCV_WITH_OPS = 1 python install -e . on Linux, then I save mmcv to directory. I repeated the above operation under this directory, but use V100, then I encountered this error.
I've tried many algorithms and they all work like this. Please help me.
Complete error reporting information:
Exception has occurred: RuntimeError
CUDA error: no kernel image is available for execution on the device
CUDA kernel errors might be asynchronously reported at some other API call,so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
  File "/root/mmcv/mmcv/ops/focal_loss.py", line 60, in forward
    ext_module.sigmoid_focal_loss_forward(
  File "/root/mmdetection/mmdet/models/losses/focal_loss.py", line 139, in sigmoid_focal_loss
    loss = _sigmoid_focal_loss(pred.contiguous(), target.contiguous(), gamma,
""",[])
add('near_miss',None,'facebookresearch/detectron2#251','"no kernel image" in deformable-conv CUDA ops on Tesla P40 (sm_61) because the compiled extension was built with arch flags sm_70 only (env dump shows it; thread labelled installation/environment). Commenter @-mention removed; env dump trimmed.',r"""
I had the same problem, but I don't have ```TORCH_CUDA_ARCH_LIST 7.0``` Env.

The error info is:
```
error in modulated_deformable_col2im_coord_cuda: no kernel image is available for execution on the device
error in modulated_deformable_col2im_cuda: no kernel image is available for execution on the device
```

My Env is:
```
sys.platform            linux
Python                  3.6.8 (default, Aug 10 2019, 06:54:07) [GCC 4.8.5 20150623 (Red Hat 4.8.5-36)]
numpy                   1.16.5
Compiler                GCC 7.3
CUDA compiler           CUDA 10.0
PyTorch                 1.4.0+cu100 @/running_package/py3.6-env/lib64/python3.6/site-packages/torch
GPU available           True
GPU 0,1,2,3,4,5,6,7     Tesla P40
CUDA_HOME               /usr/local/cuda
```
""",[])
add('near_miss',None,'huggingface/peft#1206','same "Target modules ... not found" ValueError, but the names are right for BLOOM (query_key_value); a regex target that worked in peft 0.5.0 stopped matching in 0.6.2 (regression in target-module matching logic, later reworked upstream; UNCERTAIN: issue open, link to the fix not verified). Title removed; stack cut.',r"""
python == 3.8.10
torch == 2.0.0+cu118
transformers == 4.35.2
peft == 0.6.2

this is a simple example
```python
from transformers import AutoModelForCausalLM
from peft import LoraConfig, TaskType, get_peft_model

model = AutoModelForCausalLM.from_pretrained("Langboat/bloom-1b4-zh")
config = LoraConfig(task_type=TaskType.CAUSAL_LM, target_modules=[".*\.1.*query_key_value"])

model = get_peft_model(model, config)
```

The above code snippet can run well in peft-0.5.0, but when I  update it to peft-0.6.2, there will be some error.
Here is the stack trace
```
---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
Cell In[1], line 7
      4 model = AutoModelForCausalLM.from_pretrained("Langboat/bloom-1b4-zh", low_cpu_mem_usage=True)
      5 config = LoraConfig(task_type=TaskType.CAUSAL_LM, target_modules=[".*\.1.*query_key_value"])
----> 7 model = get_peft_model(model, config)
""",['cutoff'])

add('positive',D8,'lich99/ChatGLM-finetune-LoRA#14','LoraConfig target_modules ["q","k","v"] while the ChatGLM attention Linear is query_key_value: configured names do not exist in the module the adapter is applied to (UNCERTAIN: maintainer reply truncated in what was read). Title (the error) removed; the later back-and-forth about accelerate removed.',r"""
我使用train.py完成了训练，并且获得了`./saved/finetune_0.pt`文件，但是由于没有inference部分，所以使用`LoRA_finetune_with_stanford_alpaca.ipynb`中最后inference模块的时候报错：
```
Traceback (most recent call last):
  File "inference.py", line 49, in <module>
    module.query_key_value = peft.tuners.lora.LoraModel(config, module.query_key_value)
  File "C:\Users\xxxx\AppData\Local\Programs\Python\Python38\lib\site-packages\peft\tuners\lora.py", line 118, in __init__
    self._find_and_replace()
  File "C:\Users\xxxx\AppData\Local\Programs\Python\Python38\lib\site-packages\peft\tuners\lora.py", line 181, in _find_and_replace
    raise ValueError(
ValueError: Target modules ['q', 'k', 'v'] not found in the base model. Please check the target modules and try again.
```
使用的LORAConfig是：（这个target在ipynb和train.py里是一致的）
```
config = LoraConfig(
              peft_type="LORA", 
              r=32, 
              lora_alpha=32, 
              target_modules=["q", "k", "v"],
              lora_dropout=0.1, 
              )
```
为什么会报这个错？
""",[])
add('near_miss',None,'cnulab/RealNet#33','distributed socket failure that resembles the NCCL wrong-NIC doc, but it is a single-GPU Windows run launched through torch.distributed.launch whose c10d TCP store cannot connect to the hostname (system error 10049); reporter resolved it by removing the distributed code and running single-card. Maintainer port suggestion and the resolution removed.',r"""
我的电脑是单3080的，在安装完配置文件和pt文件后，在终端运行sample.py文件，即python -m torch.distributed.launch --nproc_per_node=1  sample.py --dataset MVTec-AD，出现了端口错误：The client socket has failed to connect to [wang-pc]:29500 (system error: 10049 - 在其上下文中，该请求的地址无效。).，请问如何解决
""",[])
# write
import random
random.seed(33)
order=list(range(len(Q)))
random.shuffle(order)
os.makedirs('queries',exist_ok=True)
with open('labels.jsonl','w') as f:
    for i,idx in enumerate(order,1):
        q=Q[idx]; name=f'queries/h33_q{i:02d}.txt'
        open(name,'w').write(q['text'])
        f.write(json.dumps(dict(query=name,expected=q['expected'],kind=q['kind'],source=q['source'],note=q['note']),ensure_ascii=False)+'\n')
        q['name']=name
json.dump([dict(name=q['name'],kind=q['kind'],expected=q['expected'],source=q['source'],tags=q['tags']) for q in Q],open('/tmp/h33_meta.json','w'),indent=1)
print(len(Q))
