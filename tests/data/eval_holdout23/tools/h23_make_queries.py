# builds queries/ and labels.jsonl for eval_holdout23 (texts quoted/trimmed from public threads)
import json, os
os.chdir(os.path.dirname(os.path.abspath(__file__)) + "/..")
Q = []
def add(text, expected, kind, source, note):
    Q.append((text.strip("\n") + "\n", expected, kind, source, note))
D1="corpus/h23_torch26_weights_only_resume_rng_zh.md"; D2="corpus/h23_host_ram_oom_sigkill_exitcode9_en.md"
D3="corpus/h23_consumer_gpu_p2p_nccl_hang_zh.md"; D4="corpus/h23_kbit_model_device_map_auto_ddp_en.md"
D5="corpus/h23_ddp_unused_parameters_reduction_zh.md"; D6="corpus/h23_ddp_reentrant_checkpoint_marked_twice_en.md"
D7="corpus/h23_cpu_adam_build_cuda_mismatch_zh.md"; D8="corpus/h23_bf16_pre_ampere_gpu_en.md"
D9="corpus/h23_trainer_eval_logits_accumulate_oom_zh.md"; D10="corpus/h23_optimizer_param_group_mismatch_resume_en.md"
D11="corpus/h23_amp_gradscaler_skipped_step_scheduler_warning_zh.md"; D12="corpus/h23_zero_checkpoint_dp_world_size_change_en.md"
P,N,G="positive","near_miss","negative"
add(r'''
断点续训时，load checkpoint时发生如下报错：
[rank0]: Traceback (most recent call last):
[rank0]:   File "/ProjectRoot/.../swift/cli/rlhf.py", line 5, in <module>
[rank0]:     rlhf_main()
[rank0]:   File "/ProjectRoot/.../swift/llm/train/rlhf.py", line 183, in rlhf_main
[rank0]:     return SwiftRLHF(args).main()
[rank0]:   File "/ProjectRoot/.../swift/llm/base.py", line 49, in main
[rank0]:     result = self.run()
[rank0]:   File "/ProjectRoot/.../swift/llm/train/sft.py", line 122, in run
[rank0]:     return self.train(trainer)
[rank0]:   File "/ProjectRoot/.../swift/llm/train/sft.py", line 183, in train
[rank0]:     trainer.train(trainer.args.resume_from_checkpoint)
[rank0]:   File "/ProjectRoot/.../swift/trainers/mixin.py", line 459, in train
[rank0]:     res = super().train(*args, **kwargs)
[rank0]:   File "/home/.../miniconda3/envs/hfy-swift/lib/python3.10/site-packages/transformers/trainer.py", line 2206, in train
[rank0]:     return inner_training_loop(
[rank0]:   File "/home/.../miniconda3/envs/hfy-swift/lib/python3.10/site-packages/transformers/trainer.py", line 2522, in _inner_training_loop
[rank0]:     self._load_rng_state(resume_from_checkpoint)
[rank0]:   File "/ProjectRoot/.../swift/trainers/mixin.py", line 209, in _load_rng_state
''', D1, P, "modelscope/ms-swift#5235", "resume fails inside _load_rng_state (torch>=2.6 weights_only default rejects numpy RNG objects in rng_state.pth; same period as ms-swift#4319 which maintainers tied to the transformers/trl weights_only fix). Cut-off: final exception line never shown; source-tree paths redacted to '...'. Uncertain: thread's final error not in the stored excerpt.")

add(r'''
when use resume_from_checkpoint to load model for continue train
`
--resume_from_checkpoint xx \
--resume_only_model false
`
error info:
[rank4]: _pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint. 
[rank4]: 	(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.
[rank4]: 	(2) Alternatively, to load with `weights_only=True` please check the recommended steps in the following error message.
[rank4]: 	WeightsUnpickler error: Unsupported global: GLOBAL deepspeed.runtime.fp16.loss_scaler.LossScaler was not an allowed global by default. Please use `torch.serialization.add_safe_globals([LossScaler])` or the `torch.serialization.safe_globals([LossScaler])` context manager to allowlist this global if you trust this class/function.

if not use resume_from_checkpoint, just full train, it works.

swift.version: 3.5.0
GPU: H20, 
cuda:12.4, 
torch:2.6
''', D1, P, "modelscope/ms-swift#5808", "torch 2.6 weights_only=True default rejects a pickled DeepSpeed LossScaler object in the resumed optimizer/engine state; fresh training works. Thread is open but the error text itself states the mechanism.")

add(r'''
## Background:
The purpose is to train the 2.9b model locally, refer to the README document, and change the relevant code.

### Env
Machine x86_64
OS: ubuntu18.04.06
python: 3.10.10
GPU: 1x3090
RAM:  32GB

### The command is as follows:
`deepspeed training/trainer.py  --per-device-train-batch-size 2 --per-device-eval-batch-size 2 --input-model .../pythia-2.8b --local-output-dir .../output --deepspeed config/ds_z3_bf16_config.json --warmup-steps 0`

## Result
[2023-04-20 19:03:19,578] [INFO] [utils.py:831:see_memory_usage] After creating fp32 partitions
[2023-04-20 19:03:19,581] [INFO] [utils.py:832:see_memory_usage] MA 0.13 GB         Max_MA 0.13 GB         CA 0.63 GB         Max_CA 1 GB 
[2023-04-20 19:03:19,581] [INFO] [utils.py:840:see_memory_usage] CPU Virtual Memory:  used = 29.71 GB, percent = 95.3%
[2023-04-20 19:03:19,633] [INFO] [utils.py:831:see_memory_usage] Before initializing optimizer states
''', D2, P, "databrickslabs/dolly#111", "deepspeed run exits with return code -9 on a 32 GB-RAM box; log shows host memory at 95% right before; SIGKILL from host OOM. Trimmed: title, 'return code = -9' summary sentence, link to another issue, local paths. Cut-off log (the -9 line itself is not included).")

add(r'''
不知道大家会不会遇到这样的问题，模型运行很多次后，再运行之前的结构，会发现模型只能加载数据，在加载模型的时候进程会被杀死，但之前是完全能正常运行的，而且十次中有一次又能正常运行，只不过前一些批次的训练时长会很长。我观察系统监视器发现加载时内存完全（99%+）被使用所以才会被kill，然而程序正常运行时内存的使用经常只占据20%左右。顺便说一下我的电脑是64G的.请问大家有遇到这个问题吗，都是怎么解决的呢？
''', D2, P, "131250208/TPlinker-joint-extraction#78", "process killed while loading the model when host RAM hits 99% (kernel OOM killer). Prose only, no error line; kept the Chinese half of a bilingual post. Note: thread open; cause is the reporter's own observation.")

add(r'''
Hi, thanks for the great work. I'm trying to run the training code, but when I do pre_train with multiple 4090 gpus, it always gets stuck and no report is shown. But when training with multiple 3090 and single 4090 everything is fine. I strongly suspect that a deadlock occurs in 4090. I narrow the problem down to `deepspeed.initialize` in agent.py. But I don't know how to solve this problem. 

Any response will be greatly appreciated.
''', D3, P, "Wangt-CN/DisCo#49", "multi-4090 hang at the first collective (deepspeed.initialize); same reporter confirmed NCCL_P2P_DISABLE=1 fixes it (4090 lacks working P2P) in a DeepSpeed thread. Prose only, no error line.")

add(r'''
Hi, I don't know much about nccl.

 I want to train deep learning model with multiple GPU devices within a single node by pytorch. 
 
 I do not know the exact reason, but the model "freeze"(stuck) when using 4 or more GPUs.
''', D3, P, "NVIDIA/nccl#631", "single-node hang with 4+ GPUs; maintainer: P2P not functional, usually due to PCI ACS/IOMMU; NCCL_P2P_DISABLE=1 works around. Trimmed: the sentences saying NCCL_P2P_DISABLE=1 made it work and the follow-up question. Prose only.")

add(r'''
单机多卡Lora微调出错，报错为
Traceback (most recent call last):
  File ".../finetune.py", line 361, in <module>
    train()
  File ".../finetune.py", line 354, in train
    trainer.train()
  File "/home/vcvcvn/miniconda3/envs/myenv/lib/python3.9/site-packages/transformers/trainer.py", line 1591, in train
    return inner_training_loop(
  File "/home/vcvcvn/miniconda3/envs/myenv/lib/python3.9/site-packages/transformers/trainer.py", line 1729, in _inner_training_loop
    model, self.optimizer, self.lr_scheduler = self.accelerator.prepare(
  File "/home/vcvcvn/miniconda3/envs/myenv/lib/python3.9/site-packages/accelerate/accelerator.py", line 1214, in prepare
    raise ValueError(
ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed mode. Please rerun your script specifying `--num_processes=1` or by launching with `python {{myscript.py}}`.

- Python: 3.9.18
- Transformers: 4.34.0
- PyTorch: 2.0.0
- CUDA: 12.1
''', D4, P, "QwenLM/Qwen#714", "multi-GPU LoRA launch with a model loaded via device_map='auto' (Q-LoRA path) under distributed mode; fix is per-rank device_map / single process. Trimmed: issue template checkboxes, repo-named paths.")

add(r'''
ValueError: You can't train a model that has been loaded in 8-bit precision on a different device than the one you're training on.
''', D4, P, "hiyouga/LlamaFactory#9", "8-bit model + multi-GPU launch; maintainer fixed it in an update (framework now loads the quantized model on each rank's own device). Single error line; Chinese title removed.")

add(r'''
RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by 
making sure all `forward` function outputs participate in calculating loss.
''', D5, P, "ImprintLab/MedSegDiff#27", "maintainer: a parameterized layer is defined in __init__ but not used in forward (unused parameters under DDP). One-liner.")

add(r'''
I was developing a two-stage network following the outline of the parta2 implementation in this repo, but I got this error:
```
RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error indicates that your module has parameters that were not used in producing loss. You can enable unused parameter detection by (1) passing the keyword argument `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`; (2) making sure all `forward` function outputs participate in calculating loss. If you already have done the above two steps, then the distributed data parallel module wasn't able to locate the output tensors in the return value of your module's `forward` function. Please include the loss function and the structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).
```
''', D5, P, "open-mmlab/mmdetection3d#488", "two-stage detector with parameters not used in some iterations; resolved with find_unused_parameters=True, maintainer explains. Trimmed: the sentence saying the flag fixed it, link, follow-up question.")

add(r'''
I got a Runtime Error when training a model with accelerate when gradient checkpointing was enabled

```sh
accelerate launch main.py --args
```

```python
model.enable_input_require_grads()
model.gradient_checkpointing_enable()
```

> RuntimeError: Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) Use of a module parameter outside the `forward` function. Please make sure model parameters are not shared across multiple concurrent forward-backward passes. or try to use _set_static_graph() as a workaround if this module graph does not change during training loop.2) Reused parameters in multiple reentrant backward passes. For example, if you use multiple `checkpoint` functions to wrap the same part of your model, it would result in the same set of parameters been used by different reentrant backward passes multiple times, and hence marking a variable ready multiple times. DDP does not support such use cases in default. You can try to use _set_static_graph() as a workaround if your module graph does not change over iterations.
> Parameter at index 55 has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this particular parameter during this iteration. You can set the environment variable TORCH_DISTRIBUTED_DEB
''', D6, P, "huggingface/peft#313", "reentrant gradient checkpointing under DDP (accelerate launch) with LoRA/unused-param detection -> parameter marked ready twice. Trimmed: @-mentions; message truncated as in the source.")

add(r'''
I found the useful trick `Gradient Checkpointing` in your implemention(i.e. `use_checkpoint` flag).

I failed to use it with DDP training(when using single GPU, it works fine), error occurs like below:

My torch version is 1.10.0

Could you please provide some advice ? Thanks
''', D6, P, "microsoft/FocalNet#4", "torch.utils.checkpoint (reentrant) + DDP fails while single GPU works; the removed error block was 'Expected to mark a variable ready only once ... marked as ready twice'. Prose only (error block deliberately removed). Uncertain: the stored thread shows no maintainer reply; cause inferred from the removed error signature.")

add(r'''
AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'
我使用bash finetune.sh的时候一直出现上面这些问题，反复安装不同版本还是不对，请问如何解决这个问题？
''', D7, P, "LlamaChinese/Llama-Chinese#351", "commenter: pytorch and CUDA versions do not correspond (cpu_adam JIT build fails). Note: thread open, reporter did not confirm.")

add(r'''
I am getting the following error while running ds_train.sh. Any resolution for this?

`AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'`
''', D7, P, "SwiftSage/SwiftSage#4", "reporter confirmed updating the CUDA toolkit version fixed it (toolkit/torch CUDA mismatch breaks cpu_adam build).")

add(r'''
I run the notebook on 8 V100 GPUs, but an error occured:
```
  File "<string>", line 105, in __init__
  File "/databricks/python/lib/python3.9/site-packages/transformers/training_args.py", line 1098, in __post_init__
    raise ValueError(
ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0
```
I changed "bf16" to "fp16" in ds_z3_bf16_config.json, but nothing happen...
''', D8, P, "databrickslabs/dolly#11", "V100 has no bf16; fix confirmed by also turning off bf16 in the trainer arguments.")

add(r'''
I'm trying to run the following code in kaggle with **GPUP100** 
`!bash /kaggle/working/.../scripts/finetune_lora_vision.sh`

### complete error
`[2024-09-14 09:33:24,960] [INFO] [real_accelerator.py:191:get_accelerator] Setting ds_accelerator to cuda (auto detect)
[2024-09-14 09:33:28,221] [WARNING] [runner.py:202:fetch_hostfile] Unable to find hostfile, will proceed with training with local resources only.
[2024-09-14 09:33:28,221] [INFO] [runner.py:568:main] cmd = /opt/conda/bin/python3.10 -u -m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMF19 --master_addr=127.0.0.1 --master_port=29500 --enable_each_rank_log=None src/training/train.py --lora_enable True --vision_lora True --lora_namespan_exclude ['lm_head', 'embed_tokens'] --lora_rank 32 --lora_alpha 16 --lora_dropout 0.05 --num_lora_modules -1 --deepspeed scripts/zero3.json --model_id microsoft/Phi-3.5-vision-instruct --data_path /kaggle/working/dataset.json --image_folder /kaggle/working/dataset/train_images --tune_img_projector True --freeze_vision_tower False --bf16 True --fp16 False --disable_flash_attn2 False --output_dir output/lora_vision_test --num_crops 16 --num_train_epochs 2 --per_device_train_batch_size 4 --gradient_accumulation_steps 4 --learning_rate 2e-4 --weight_decay 0. --
''', D8, P, "2U1/Phi3-Vision-Finetune#21", "P100 with --bf16 True; maintainer: GPU doesn't support bf16, use fp16. Cut-off: log ends before the ValueError (which was only in the removed title); repo path redacted.")

add(r'''
I am using `transformers.Trainer` to pre-train a model with MLM. From line 2213 in `trainer.py` I can see the logits obtained on the evaluation step are accumulated: 
`preds_host = logits if preds_host is None else nested_concat(preds_host, logits, padding_index=-100)`

This makes it impossible to use a reasonable validation dataset, since already 1000 examples with `max_length = 512` and `vocab_size = 30522` occupy 1000 * 512 * 30522 / 1024^3 > 14 Gb of memory (e.g. **c4** dataset has validation dataset of size 365 000).
''', D9, P, "huggingface/transformers#12878", "Trainer accumulates full eval logits -> memory blow-up; maintainers point to custom eval / later preprocess_logits_for_metrics. Prose (a code line, no error line). Trimmed: proposal to move metric computation into the loop.")

add(r'''
This is a great work, when I tried to reproduce your work in Kinetics400, it worked fine.
But when I tried to resume the checkpoint, in model.py, 81 line " optimizer.load_state_dict(checkpoint['optimizer'])", I got an issue, it telled me "loaded state dict contains a parameter group that doesn't match the size of optimizer's group".  I tried to replace this line with "optimizer.load_state_dict(checkpoint['optimizer']['param_groups'])",but it still had some problems.
''', D10, P, "facebookresearch/GloRe#8", "reporter: had switched the fine-tune flag when resuming, so the optimizer was built over a different parameter set.")

add(r'''
When I tried to use pretrained model: sceneflow_pretrained_model.pth.tar, it reported error below:

Traceback (most recent call last):
  File ".../main.py", line 258, in <module>
    main(args_)
  File ".../main.py", line 189, in main
    optimizer.load_state_dict(checkpoint['optimizer'])
  File "/media/data1/dh/anaconda3/lib/python3.7/site-packages/torch/optim/optimizer.py", line 123, in load_state_dict
    raise ValueError("loaded state dict contains a parameter group "
ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group
''', D10, P, "mli0603/stereo-transformer#58", "maintainer: old checkpoint's optimizer contained BN-stat parameters removed in the new code -> different parameter list. Repo-named paths redacted.")

add(r'''
/usr/local/lib/python3.7/dist-packages/torch/optim/lr_scheduler.py:134: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate
  "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)
''', D11, P, "sithu31296/semantic-segmentation#28", "maintainer: mixed precision enabled, first-iteration warning with AMP; training continues. Warning only (the docs URL is part of the warning text, not a thread link).")

add(r'''
I am running a training job using the the current default VERI-Wild config and I am getting the following warning:

```UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule. See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate```

At the same time I am getting `Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0` warnings at the begginning of training, so it seems I am starting with a LR that is way too large when using the default configuration. I didn't have any luck finding a way to invert the order of the `step()` calls, as the codebase is quite complex.

Anyone know how can I fix this? Thanks!
''', D11, P, "JDAI-CV/fast-reid#403", "maintainers: not a bug; fp16 loss-scaler overflow skips optimizer steps at the start, hence the warning. Second warning present (gradient overflow). Link to config removed.")

add(r'''
hi,
I have trained a GPT model with 4 nodes (8 gpus per node), but when I load the checkpoint with 6 nodes, I get the follows error:
````
deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size of 4 but the current world size is 6. Automatic adjustment of ZeRO's optimizer state partitioning with a new world size is not currently supported.
````
''', D12, P, "deepspeedai/DeepSpeed#2898", "ZeRO optimizer partitions saved for one DP world size cannot be loaded at another; same answer as DeepSpeed#3810 (universal checkpoint / zero_to_fp32).")

add(r'''
/data/pretrained_model/glm-10b-chinese-mp4/80000/mp_rank_03_model_states.pt.
Traceback (most recent call last):
  File "pretrain_glm.py", line 673, in <module>
    main()
  File "pretrain_glm.py", line 584, in main
    args.iteration = load_checkpoint(model, optimizer, lr_scheduler, args, no_deepspeed=args.no_deepspeed_load)
  File ".../utils.py", line 339, in load_checkpoint
[2023-03-21 20:28:05,674] [INFO] [torch_checkpoint_engine.py:21:load] [Torch] Loading checkpoint from .../pretrained_model/glm-10b-chinese-mp4/80000/mp_rank_00_model_states.pt...
    load_lr_scheduler_states=not args.no_load_lr_scheduler)
  File ".../miniconda3/envs/glm10b/lib/python3.7/site-packages/deepspeed/runtime/engine.py", line 2780, in load_checkpoint
    load_optimizer_states=load_optimizer_states)
  File ".../miniconda3/envs/glm10b/lib/python3.7/site-packages/deepspeed/runtime/engine.py", line 2950, in _load_zero_checkpoint
    raise ZeRORuntimeException("The checkpoint being loaded used a DP " \
deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a DP world size of 256 but the current world size is 2. Automatic adjustment of ZeRO's optimizer state partitioning with a new world size is not currently supported.
g2001:34292:39682 [7] NCCL INFO [Servic
''', D12, P, "THUDM/GLM#136", "continued pretraining from a 256-rank ZeRO checkpoint on 2 ranks. Chinese title ('基于10B模型继续预训练，遇到world size 不一致导致报错') removed, so the query body is the traceback only; trailing NCCL INFO fragment kept as noise. 'glm' remains in file/model names (model name, not the thread); user paths redacted. Thread open; error text states the cause.")
add(r'''
After this step, I get some logs and the mentioned error:
```
Loading checkpoint shards: 100%|██████████████████| 4/4 [00:14<00:00,  3.61s/it]
adding LoRA modules...
loaded model
Filter: 100%|█████████████████████████| 427/427 [00:02<00:00, 168.65 examples/s]
Detected kernel version 5.4.17, which is below the recommended minimum of 5.5.0; this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.
trainable params: 167772160 || all params: 8198557696 || trainable: 2.046361887309209
torch.bfloat16 1051463680 0.12824983600627698
torch.int8 6979321856 0.851286545120631
torch.float32 167772160 0.02046361887309209
Traceback (most recent call last):
  File "/home/afshin/.pycharm_helpers/pydev/pydevd.py", line 1496, in _exec
    pydev_imports.execfile(file, globals, locals)  # execute the script
    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/afshin/.pycharm_helpers/pydev/_pydev_imps/_pydev_execfile.py", line 18, in execfile
    exec(compile(contents+"\n", file, 'exec'), glob, loc)
  File "/home/afshin/codes/qlora/train.py", line 1490, in <module>
    train()
  File "/home/afshin/codes/qlora/train.py", line 1393, in train
    train_result = trainer.train()
                   ^^^^^^^^
''', None, N, "huggingface/accelerate#2713", "looks like the k-bit device_map problem (title: 'loaded in 8-bit precision on a different device'), but this is a single-process run whose model sits on a non-zero GPU; accelerate's check wrongly compared against cuda:0 - an accelerate bug fixed by accelerate PR #2714 (Olive PR #1117 documents the bug and fix). Second warning (kernel version) included; cut-off before the ValueError. Uncertain: link #2713->#2714 inferred from adjacent numbers and matching description.")

add(r'''
ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).
查了我的docker容器默认shm是64M，请问应该改为多少G才不会报这个错
''', None, N, "lidq92/MDTVSFA#10", "looks like a worker killed by a signal (vs host-RAM SIGKILL doc) but cause is Docker's 64 MB /dev/shm limit for DataLoader workers; maintainer: num_workers=0 or larger --shm-size.")

add(r'''
i have two machines and trained the arcface in distributed way . but errors occurred at my second machine then the master node blocked . the error is below:

```
Traceback (most recent call last):
  File "train.py", line 141, in <module>
    main(args_)
  File "train.py", line 63, in main
    dist.broadcast(ps, 0)
  File "/opt/conda/lib/python3.6/site-packages/torch/distributed/distributed_c10d.py", line 842, in broadcast
    work = _default_pg.broadcast([tensor], opts)
RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:518, unhandled system error, NCCL version 2.4.8
```

any ideas ?
''', None, N, "deepinsight/insightface#1444", "multi-node NCCL failure/hang looks like the P2P hang doc, but cause is Docker network isolation (container IP not reachable between hosts); fixed with --network=host. Trimmed: @-mention, the reporter's solution comment.")

add(r'''
When I training in distirbuted mode, the program report error.
Error info:
```
fail to new train...e= NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, unhanled system error
```

The Environment:
I run in two docker container, the program report error.
```
# node 0: 10.30.112.212
init_method="tcp://10.30.112.212:10087"
rank=0
world_size=2
backend="nccl"

# node 1: 10.30.112.224
init_method="tcp://10.30.112.212:10087"
rank=1
world_size=2
backend="nccl"
```

I run in one docker container, but run twice with different rank, the program can run.
''', None, N, "pytorch/pytorch#23363", "maintainer: Docker network isolation between containers on different hosts; run with --network=host. NCCL failure but not P2P.")

add(r'''
In stage 3.3, when I set ``distributed_type`` as ``NO``, the code runs well; while when I try ``distributed_type`` as ``DEEPSPEED`` or ``MULTI_GPU``, the code gets stuck when loading ``training_args = TrainingArguments(``. Do you have some idea? My cuda version is 12.4
''', None, N, "RLHFlow/Online-RLHF#11", "multi-GPU hang at startup looks like the P2P deadlock, but reporter found the cause: a 'main_process_port: 0' line added to the accelerate/DeepSpeed yaml. Prose only (INFO log lines removed).")

add(r'''
When I train a model here `global_step, tr_loss = train(train_dataset, model, tokenizer)` I get this warning:

> 0.767207/usr/local/lib/python3.6/dist-packages/torch/optim/lr_scheduler.py:82: UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first value of the learning rate schedule.See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate
>   "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate", UserWarning)
''', None, N, "ThilinaRajapakse/pytorch-transformers-classification#21", "same warning as the AMP doc, but no mixed precision: the training loop really called scheduler.step() before optimizer.step(); fixed by swapping the calls in the repo. Trimmed: screenshot.")

add(r'''
- `llamafactory` version: 0.9.3.dev0
- Platform: Linux-5.15.0-113-generic-x86_64-with-glibc2.35
- Python version: 3.10.17
- PyTorch version: 2.5.0+cu118 (GPU)
- Transformers version: 4.51.3
- Datasets version: 3.5.0
- Accelerate version: 1.6.0
- PEFT version: 0.15.1
- TRL version: 0.9.6
- GPU type: NVIDIA A100-SXM4-80GB
- GPU number: 1
- GPU memory: 79.33GB
- DeepSpeed version: 0.16.7
- Bitsandbytes version: 0.44.0

I use the latest llama factory to train the lora of qwen2.5 1.5b model by one card. but i got the grad_norm nan loss 0. i have try the solution such as : bf16 false fp16 true upgrade the deepspeed. download the model several times. upgrade the torch. but that does not work.
''', None, N, "hiyouga/LlamaFactory#8088", "nan grad_norm / loss 0 looks like a half-precision numerics doc (fp16 Adam eps distractor), but the reporter found disabling flash_attn fixed it (attention kernel issue), confirmed by another user. Trimmed: the fix sentence, git commit line.")

add(r'''
AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'

我的显卡驱动使用的nvidia-driver-530，cuda使用的11.7.0系列，cudnn使用的11.x系列。
这个问题都是在普通用户下操作的
''', None, N, "OptimalScale/LMFlow#446", "same AttributeError as the cpu_adam/CUDA-mismatch doc, but the reporter's versions matched and the fix was running installation/training as root (build/install permissions for the JIT op in a non-root account); maintainer's alternative was removing the DeepSpeed optimizer block. Uncertain: the permission explanation is the reporter's, not a maintainer diagnosis. Trimmed: Chinese title, the root-user fix sentence.")

add(r'''
执行中报错：RuntimeError: Address already in use
''', None, G, "thu-coai/CDial-GPT#103", "TCP port 29500 already used by another job on the same machine; pass a different --master_port. Trimmed: the reporter's own cause/fix paragraphs.")

add(r'''
I am running distributed pertaining script. And got problem as shown. Any suggestions? thanks.

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
''', None, G, "NVIDIA/Megatron-LM#343", "MASTER_PORT already in use; maintainers: use a different port.")

add(r'''
I use 3 GPUs to train it. But the error occurs. Do you have any solution?

RuntimeError: cuda runtime error (10) : invalid device ordinal at /pytorch/torch/csrc/cuda/Module.cpp:33
THCudaCheck FAIL file=/pytorch/torch/csrc/cuda/Module.cpp line=33 error=10 : invalid device ordinal
Traceback (most recent call last):
  File "tools/train.py", line 289, in <module>
    main()
  File "tools/train.py", line 98, in main
    torch.cuda.set_device(args.local_rank)
  File "/home/qfy/.conda/envs/.../lib/python3.6/site-packages/torch/cuda/__init__.py", line 265, in set_device
    torch._C._cuda_setDevice(device)
''', None, G, "HRNet/HRNet-Semantic-Segmentation#171", "reporter: --nproc_per_node was larger than the number of visible GPUs. Trimmed: the reporter's solution comment; conda env name (contained the owner name) redacted.")

add(r'''
可能是代码内部强制要分布式处理，所以我单卡运行时报错：
RuntimeError: Default process group has not been initialized, please make sure to call init_process_group.
我设置了--launcher=none gpus=1,还是会报错，请问还应该修改哪部分代码呢？
''', None, G, "zcablii/LSKNet#76", "config uses SyncBN, which needs an initialized process group; maintainer: change 'SyncBN' to 'BN' for single-GPU runs; reporter confirmed.")

add(r'''
单机8卡运行train_gpt.py时(gpt2_small_zero3_pp1d.py)，报错
File "/opt/conda/lib/python3.8/site-packages/titans/layer/attention/gpt_attention.py", line 49, in forward
    num_attention_heads = divide(all_head_size, self.attention_head_size)
  File "/opt/conda/lib/python3.8/site-packages/colossalai/nn/layer/utils/common.py", line 52, in divide
    assert numerator % denominator == 0, \
AssertionError: 96 is not divisible by 64

tensor parallel设置为8，似乎是这个导致的768维hidden_size并行成96，这是由于什么造成的呢
''', None, G, "hpcaitech/ColossalAI#3043", "maintainer: number of attention heads (12) must be divisible by the tensor-parallel size; use TP 2/4 or 16 heads.")

add(r'''
config: 
```bash
megatron sft \
    --load ZhipuAI/GLM-4.5-Air-Base-mcore \
    --dataset swift/Chinese-Qwen3-235B-2507-Distill-data-110k-SFT \
    --split_dataset_ratio 0.01 \
    --tensor_model_parallel_size 8 \
    --pipeline_model_parallel_size 4 \
    --context_parallel_size 1 \
    --expert_tensor_parallel_size 1 \
    --expert_model_parallel_size 16 \
    --moe_permute_fusion true \
    --moe_grouped_gemm true \
    --micro_batch_size 2 \
    --global_batch_size 16 \
    --packing true \
    --recompute_granularity full \
    --max_epochs 2 \
    --finetune true \
    --lr 1e-4 \
    --max_length 4096 \
    --sequence_parallel true \
    --attention_backend flash
```

encounter Error
```
Megatron-LM/megatron/training/arguments.py", line 561, in validate_args
[rank14]:     assert num_layers % args.transformer_pipeline_model_parallel_size == 0, \
[rank14]:
''', None, G, "modelscope/ms-swift#5737", "model's layer count not divisible by pipeline_model_parallel_size=4 (Megatron argument validation); choose a PP size that divides the layers or set uneven first/last-stage layers. Trimmed some flags; cut-off.")

add(r'''
raise MisconfigurationException(
lightning_fabric.utilities.exceptions.MisconfigurationException: ReduceLROnPlateau conditioned on metric val_loss which is not available. Available metrics are: ['train_loss', 'train_loss_step', 'lattice_loss', 'lattice_loss_step', 'coord_loss', 'coord_loss_step', 'loss_replace_l', 'loss_replace_l_step', 'loss_replace_f', 'loss_replace_f_step', 'loss_score', 'loss_score_step', 'lr-Adam', 'train_loss_epoch', 'lattice_loss_epoch', 'coord_loss_epoch', 'loss_replace_l_epoch', 'loss_replace_f_epoch', 'loss_score_epoch']. Condition can be set using `monitor` key in lr scheduler dict
Epoch 0: 100%|██████████| 106/106 [01:20<00:00,  1.31it/s, v_num=d39l, train_loss_step=2.600, lattice_loss_step=0.721, coord_loss_step=0.892, loss_replace_l_step=0.0688, loss_replace_f_step=0.021, loss_score_step=0.893, train_loss_epoch=3.360, lattice_loss_epoch=0.953, coord_loss_epoch=1.050, loss_replace_l_epoch=0.0886, loss_replace_f_epoch=0.255, loss_score_epoch=1.010]

there is no val_loss in the whole codebase.
''', None, G, "EmperorJia/EquiCSP#1", "Lightning scheduler monitors 'val_loss' but the module never logs that key; reporter fixed by monitoring a logged metric with strict False.")

add(r'''
在该文档中，
Fine-tuning Method	GPUs: 2	GPUs: 4	GPUs: 8
LoRA Fine-tuning	14.4 GiB	13.6 GiB	13.1 GiB
Full Parameters Fine-tuning	16.0 GiB	15.8 GiB	15.63GiB
里面讲述了利用lora finetune在8卡情况下显存使用只有13个G左右，但是真实情况下我在8张3090上面训练如果使用deepspeed zero2的话会超显存，使用zero3的情况下显存占用也在17个G左右，我的图片大小是640*640，请问这是什么原因呢？
''', None, G, "OpenBMB/MiniCPM-V#537", "maintainer: the table is a minimum; image count, resolution and text length drive memory. Prose only; link removed.")

add(r'''
按官方介绍，MiniCPM-Llama3-V 2.5的Lora微调两卡V100就能跑起来，我这边是单机多卡（V100型号），尝试过2卡/4卡都报out-of-memory (OOM) 的错误。batch_size=1，gradient_accumulation_steps调大，不起作用。transformers=4.40.0，torch=2.1.2；请问这是什么原因？
''', None, G, "OpenBMB/MiniCPM-V#181", "ZeRO-2 on V100 insufficient for this model; maintainers added ZeRO-3 with parameter/optimizer offload (~18 GB) which is the supported path. Prose only.")

add(r'''
```python
preds_host = logits if preds_host is None else nested_concat(preds_host, logits, padding_index=-100)
```
上述程序是trainer.py中的程序，会累积preds造成OOM。
请问Seq2SeqTrainer会规避这个错误吗？
''', D9, P, "hiyouga/LlamaFactory#1595", "evaluation during training OOMs because Trainer accumulates every batch's logits (preds_host); another user hit the same with a custom compute_metrics. Closed (labelled invalid = upstream Trainer behaviour). No error line, only the code line.")

add(r'''
我使用lora微调minicpmv-2.6，机器是8卡3090（24g），无论使用几张卡都报oom
''', None, G, "modelscope/ms-swift#2731", "multimodal LoRA on 24 GB cards OOMs regardless of GPU count (data-parallel does not shard activations); maintainer: lower the image resolution (visual tokens). Prose only. Uncertain: reporter did not confirm (video input).")

add(r'''
配置参数放在examples/train_lora/qwen2_lora_sft.yaml文件中， 配置参数如下
### model
model_name_or_path: models/qwen2/Qwen2-1.5B

### method
stage: sft
do_train: true
finetuning_type: lora
lora_target: all

### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
learning_rate: 1.0e-4
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
fp16: true
ddp_timeout: 180000000

训练命令
llamafactory-cli train examples/train_lora/qwen2_lora_sft.yaml

训练日志，train_loss一直为0
***** train metrics *****
  epoch                    =     2.9268
  total_flos               =  3778867GF
  train_loss               =        0.0
  train_runtime            = 0:02:59.80
  train_samples_per_second =     16.367
  train_steps_per_second   =      0.501

大神，我感觉这个loss不太对，可以帮忙看下问题出在哪了吗？
''', None, N, "hiyouga/LlamaFactory#4278", "loss 0 with fp16 on a bf16-pretrained Qwen2 (activation overflow in fp16; fix is bf16/fp32) - looks like the fp16 optimizer-eps NaN distractor and the bf16 doc but neither cause. Uncertain: the fix comment is not in the stored excerpt (thread labelled solved; same maintainer answer confirmed in LlamaFactory#950). Trimmed: dataset/output/eval config blocks, one log line.")

add(r'''
We have a multitask model with different output heads and a shared encoder. Each output head operates on a different dataset, producing a different loss (e.g. one head could be classification on one dataset and another could be ranking on a different dataset), and the model may contain output heads which are not used in a particular training run. As we may have entirely unused output heads we need to supply `find_unused_parameters=True` when constructing DDP.

Our training procedure receives a batch of tensors, one per output head we're training in this run, and we call forward on each batch separately. Each output head produces its own loss, which we combine using `loss = torch.mean(torch.stack(losses))` outside the DDP forward call, and then call `loss.backwards()` on. This triggers an error message which is pasted below and the computation fails.
''', None, N, "pytorch/pytorch#60844", "looks like the DDP unused-parameter doc and the reentrant-checkpoint 'marked ready twice' doc, but the cause is several DDP forward calls before one backward while find_unused_parameters=True (reporter's triage; a PyTorch maintainer states the same limitation in pytorch#105723). Prose only: the pasted error and the triage paragraph stating the cause were removed. Thread open.")


import random
rng = random.Random(23)
order = list(range(len(Q))); rng.shuffle(order)
os.makedirs("queries", exist_ok=True)
for f in os.listdir("queries"):
    os.remove(os.path.join("queries", f))
with open("labels.jsonl", "w", encoding="utf-8") as out:
    for i, idx in enumerate(order, 1):
        text, exp, kind, src, note = Q[idx]
        name = f"queries/h23_q{i:02d}.txt"
        open(name, "w", encoding="utf-8").write(text)
        out.write(json.dumps({"query": name, "expected": exp, "kind": kind, "source": src, "note": note}, ensure_ascii=False) + "\n")
print(len(Q), "queries written")
