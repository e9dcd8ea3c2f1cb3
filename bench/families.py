"""Failure families for the synthetic postmortems: the error each one prints and what its root cause and fix say.

Each family fills its templates from a parameter dict drawn per document (bench/generate.py `_params`), so two
documents of one family differ in model, shapes, sizes, ranks, versions and paths, as real postmortems do.
Frames are (library path, function, source line); the generator adds site-packages prefixes and line numbers.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    key: str
    libs: tuple[str, ...]
    frames: tuple[tuple[str, str, str], ...]
    error: tuple[str, ...]            # the final error line(s); {placeholders} from the document's parameters
    log: tuple[str, ...]              # log lines printed before the traceback (may be empty)
    en_title: tuple[str, ...]
    zh_title: tuple[str, ...]
    en_cause: tuple[str, ...]
    zh_cause: tuple[str, ...]
    en_fix: tuple[str, ...]
    zh_fix: tuple[str, ...]


_LOAD = (("torch/nn/modules/module.py", "load_state_dict", "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format("),)
_HF_LOAD = (("transformers/modeling_utils.py", "from_pretrained", "model = cls(config, *model_args, **model_kwargs)"),
            ("transformers/modeling_utils.py", "_load_pretrained_model", "error_msgs += _load_state_dict_into_model(model_to_load, state_dict, start_prefix)"))
_FWD = (("torch/nn/modules/module.py", "_call_impl", "return forward_call(*args, **kwargs)"),)

FAMILIES: tuple[Family, ...] = (
    Family(
        key="zero3_size0", libs=("deepspeed", "transformers"),
        frames=_HF_LOAD + _LOAD,
        error=("RuntimeError: Error(s) in loading state_dict for {arch}:",
               "\tsize mismatch for {param}: copying a param with shape torch.Size([{rows}, {hidden}]) from checkpoint, "
               "the shape in current model is torch.Size([0])."),
        log=("[INFO] [partition_parameters.py:{line}] finished initializing model with {bparams}B parameters",),
        en_title=("Loading a checkpoint under ZeRO-3 reports torch.Size([0]) for {param}",
                  "size mismatch with an empty model tensor when resuming {model} with DeepSpeed stage 3"),
        zh_title=("ZeRO-3 下加载权重报 size mismatch，当前模型形状为 torch.Size([0])",
                  "{model} 在 DeepSpeed stage 3 续训时 load_state_dict 报空张量尺寸不匹配"),
        en_cause=("Under ZeRO stage 3 every parameter is partitioned across ranks as soon as the model is built, so the "
                  "local module only holds a zero-sized placeholder. Calling load_state_dict on it directly compares "
                  "the full checkpoint tensor with that placeholder and fails.",
                  "The model was constructed inside the zero.Init context, which replaces each weight with an empty "
                  "shard; the plain PyTorch loader never gathers the shards before copying."),
        zh_cause=("ZeRO-3 在构建模型时就把每个参数切分到各个 rank 上，本地模块里只剩一个零长度的占位张量，直接调用 "
                  "load_state_dict 会拿完整的 checkpoint 张量去和占位张量比较，于是报尺寸不匹配。",
                  "模型是在 zero.Init 上下文里创建的，权重被替换成空的分片；PyTorch 原生加载逻辑在拷贝前没有把分片聚合回来。"),
        en_fix=("Load weights through deepspeed's own checkpoint API (engine.load_checkpoint), or gather the parameters "
                "with deepspeed.zero.GatheredParameters(modifier_rank=0) before copying.",
                "Let from_pretrained load the weights with the DeepSpeed config active (it is ZeRO-3 aware) instead "
                "of calling load_state_dict afterwards."),
        zh_fix=("改用 DeepSpeed 自带的 engine.load_checkpoint 加载，或在拷贝前用 deepspeed.zero.GatheredParameters(modifier_rank=0) 聚合参数。",
                "在 DeepSpeed 配置生效的情况下通过 from_pretrained 加载权重（它能识别 ZeRO-3），不要事后再调用 load_state_dict。"),
    ),
    Family(
        key="cuda_oom", libs=("torch",),
        frames=_FWD + (("torch/nn/functional.py", "scaled_dot_product_attention", "return torch._C._nn.scaled_dot_product_attention("),),
        error=("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {alloc} GiB. GPU {rank} has a total "
               "capacity of {mem} GiB of which {free} MiB is free. Of the allocated memory {used} GiB is allocated by "
               "PyTorch, and {reserved} MiB is reserved by PyTorch but unallocated.",),
        log=("Epoch 1:  {pct}%|##        | {step}/{steps} [{mins}:{secs}<00:00, 1.{pct}it/s, loss={loss}]",),
        en_title=("OOM in the backward pass after raising the sequence length to {seqlen}",
                  "CUDA out of memory on {gpu} once micro-batch size went to {bs}"),
        zh_title=("序列长度提升到 {seqlen} 后反向传播 OOM", "{gpu} 上 micro batch 调到 {bs} 之后显存不足"),
        en_cause=("Activation memory grows linearly with micro-batch size and sequence length; without activation "
                  "checkpointing every layer's intermediate tensors stay alive until backward.",
                  "The attention scores for a {seqlen}-token sequence do not fit next to the optimizer states on a "
                  "{mem} GiB card; the allocator only fails at the first large request in backward."),
        zh_cause=("激活显存随 micro batch 和序列长度线性增长，没有开启 activation checkpointing 时每一层的中间结果都要保留到反向。",
                  "{seqlen} 长度的注意力矩阵和优化器状态一起放不进 {mem} GiB 的显卡，分配器在反向的第一次大块申请时才报错。"),
        en_fix=("Enable gradient checkpointing and lower the micro-batch size, keeping the global batch with "
                "gradient_accumulation_steps={accum}.",
                "Turn on activation checkpointing, use a fused attention kernel, and move optimizer states to CPU "
                "if the card is still short."),
        zh_fix=("开启 gradient checkpointing，同时降低 micro batch，用 gradient_accumulation_steps={accum} 保持总 batch 不变。",
                "打开激活重计算、使用融合注意力内核，显存仍不够时把优化器状态 offload 到 CPU。"),
    ),
    Family(
        key="nccl_timeout", libs=("torch", "nccl"),
        frames=(("torch/distributed/distributed_c10d.py", "barrier", "work = default_pg.barrier(opts=opts)"),),
        error=("[rank{rank}]:[E ProcessGroupNCCL.cpp:{line}] [Rank {rank}] Watchdog caught collective operation timeout: "
               "WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, Timeout(ms)=1800000) ran "
               "for 1800{ms3} milliseconds before timing out.",),
        log=("NCCL INFO Using network IB", "NCCL INFO comm 0x{hexid} rank {rank} nranks {world} - Init COMPLETE"),
        en_title=("All ranks time out in ALLREDUCE while rank 0 preprocesses the dataset",
                  "NCCL watchdog timeout after 30 minutes on a {nodes}-node job"),
        zh_title=("rank 0 预处理数据时其他 rank 在 ALLREDUCE 上超时", "{nodes} 机训练 30 分钟后 NCCL watchdog 超时"),
        en_cause=("Only rank 0 tokenized the dataset inside the training script while the other ranks already entered "
                  "the first collective; the wait exceeded the default 30-minute process-group timeout.",
                  "One rank did far more work before the first barrier than the others (dataset mapping on the main "
                  "process), so the collective started late on that rank and the watchdog fired elsewhere."),
        zh_cause=("只有 rank 0 在训练脚本里做数据集 tokenize，其余 rank 已经进入第一个集合通信，等待时间超过了默认 30 分钟的超时。",
                  "某个 rank 在第一个 barrier 之前做了远多于其他 rank 的工作（主进程里做 dataset map），集合通信在该 rank 上开始得太晚，其他 rank 的 watchdog 先触发。"),
        en_fix=("Preprocess the dataset once offline and load the cached result, or raise the timeout with "
                "init_process_group(timeout=timedelta(hours=2)).",
                "Run the map step under main_process_first() so every rank waits at the same place, and cache it."),
        zh_fix=("离线预处理一次并加载缓存结果，或通过 init_process_group(timeout=timedelta(hours=2)) 调大超时。",
                "把 map 放在 main_process_first() 里，让所有 rank 在同一处等待，并开启缓存。"),
    ),
    Family(
        key="device_mismatch", libs=("transformers", "accelerate"),
        frames=_FWD + (("transformers/models/{arch_mod}/modeling_{arch_mod}.py", "forward", "cos, sin = self.rotary_emb(value_states, position_ids)"),),
        error=("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
               "cuda:{dev2} and cuda:{rank}! (when checking argument for argument index in method wrapper_CUDA__index_select)",),
        log=(),
        en_title=("Tensors on cuda:{rank} and cuda:{dev2} with a hand-written device_map for {model}",
                  "device mismatch in rotary embedding after custom device_map"),
        zh_title=("自定义 device_map 后 {model} 报张量分布在两张卡上", "rotary embedding 设备不一致：cuda:{rank} 与 cuda:{dev2}"),
        en_cause=("The custom device_map listed every decoder layer but not model.rotary_emb, so the rotary module "
                  "stayed on the first device while the layers that call it ran elsewhere.",
                  "A module shared by all layers was placed on one GPU only; each layer on another GPU feeds it "
                  "inputs from its own device."),
        zh_cause=("自定义的 device_map 列出了所有 decoder 层，却漏掉了 model.rotary_emb，该模块留在第一张卡上，而调用它的层在别的卡上。",
                  "被所有层共享的模块只放在一张卡上，其他卡上的层把本卡的输入传给它。"),
        en_fix=("Add model.rotary_emb (and other shared modules) to the device_map, or let accelerate infer the map "
                "with device_map='auto' and no_split_module_classes.",),
        zh_fix=("在 device_map 中补上 model.rotary_emb 等共享模块，或用 device_map='auto' 配合 no_split_module_classes 让 accelerate 自动推断。",),
    ),
    Family(
        key="bf16_pre_ampere", libs=("transformers", "torch"),
        frames=(("transformers/training_args.py", "__post_init__", "raise ValueError("),),
        error=("ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",),
        log=(),
        en_title=("bf16 training refuses to start on {oldgpu}", "Trainer rejects bf16=True on a pre-Ampere card"),
        zh_title=("{oldgpu} 上开启 bf16 训练直接报错", "老显卡上 Trainer 拒绝 bf16=True"),
        en_cause=("bfloat16 arithmetic needs compute capability 8.0 (Ampere); {oldgpu} is older, and the Trainer checks "
                  "this before building the model.",),
        zh_cause=("bfloat16 运算需要计算能力 8.0（Ampere）以上，{oldgpu} 架构更老，Trainer 在构建模型前就做了检查。",),
        en_fix=("Train in fp16 with loss scaling (fp16=True) on these cards, or move the job to A100/H100 nodes.",),
        zh_fix=("在这类显卡上改用 fp16 并启用 loss scaling（fp16=True），或把任务迁到 A100/H100 节点。",),
    ),
    Family(
        key="flash_attn_symbol", libs=("flash-attn", "torch"),
        frames=(("flash_attn/__init__.py", "<module>", "from flash_attn.flash_attn_interface import ("),
                ("flash_attn/flash_attn_interface.py", "<module>", "import flash_attn_2_cuda as flash_attn_cuda")),
        error=("ImportError: {site}/flash_attn_2_cuda.cpython-{py}-x86_64-linux-gnu.so: undefined symbol: "
               "_ZN3c104cuda9SetDeviceEi",),
        log=(),
        en_title=("flash_attn_2_cuda undefined symbol after upgrading torch to {torch}",
                  "FlashAttention import fails with an undefined c10 symbol"),
        zh_title=("升级 torch {torch} 后导入 flash_attn_2_cuda 报 undefined symbol", "flash-attn 导入失败：c10 符号未定义"),
        en_cause=("The flash-attn wheel was compiled against a different torch ABI than the one installed; C++ "
                  "symbols of c10 changed between the two releases.",),
        zh_cause=("flash-attn 的 wheel 是针对另一个 torch 版本编译的，两个版本之间 c10 的 C++ 符号发生了变化。",),
        en_fix=("Reinstall flash-attn built for the installed torch (pip install flash-attn --no-build-isolation "
                "--force-reinstall), or pin torch back to the version the wheel names.",),
        zh_fix=("针对当前 torch 重新编译安装 flash-attn（pip install flash-attn --no-build-isolation --force-reinstall），或把 torch 退回 wheel 对应的版本。",),
    ),
    Family(
        key="lfs_pointer", libs=("torch", "git-lfs"),
        frames=(("torch/serialization.py", "load", "return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)"),
                ("torch/serialization.py", "_legacy_load", "magic_number = pickle_module.load(f, **pickle_load_args)")),
        error=("_pickle.UnpicklingError: invalid load key, 'v'.",),
        log=(),
        en_title=("invalid load key 'v' when loading {model} weights cloned without git-lfs",
                  "torch.load fails on pytorch_model.bin that is a Git LFS pointer"),
        zh_title=("没装 git-lfs 克隆 {model}，加载权重报 invalid load key 'v'", "pytorch_model.bin 其实是 LFS 指针文件"),
        en_cause=("The repository was cloned without git-lfs, so each weight file is a 130-byte text pointer starting "
                  "with 'version https://git-lfs'; the unpickler reads the 'v' as its first opcode.",),
        zh_cause=("仓库克隆时没有安装 git-lfs，权重文件只是以 'version https://git-lfs' 开头的 130 字节文本指针，反序列化读到的第一个字节就是 'v'。",),
        en_fix=("Install git-lfs and run git lfs pull in the model folder, then check the file sizes.",),
        zh_fix=("安装 git-lfs 并在模型目录执行 git lfs pull，然后核对文件大小。",),
    ),
    Family(
        key="qwen_keyerror", libs=("transformers",),
        frames=(("transformers/models/auto/configuration_auto.py", "from_pretrained", "config_class = CONFIG_MAPPING[config_dict[\"model_type\"]]"),
                ("transformers/models/auto/configuration_auto.py", "__getitem__", "raise KeyError(key)")),
        error=("KeyError: '{mtype}'",),
        log=(),
        en_title=("KeyError '{mtype}' when loading the config with transformers {oldtf}",),
        zh_title=("transformers {oldtf} 加载配置报 KeyError: '{mtype}'",),
        en_cause=("The installed transformers predates the {mtype} architecture, so the model_type in config.json has "
                  "no entry in CONFIG_MAPPING.",),
        zh_cause=("环境里的 transformers 版本早于 {mtype} 架构的发布，config.json 中的 model_type 在 CONFIG_MAPPING 里找不到。",),
        en_fix=("Upgrade transformers (pip install -U 'transformers>={newtf}') in the environment that actually runs "
                "the job; check with python -c 'import transformers; print(transformers.__version__)'.",),
        zh_fix=("在真正运行任务的环境里升级 transformers（pip install -U 'transformers>={newtf}'），并用 python -c 打印版本确认。",),
    ),
    Family(
        key="pad_token", libs=("transformers", "trl"),
        frames=(("transformers/tokenization_utils_base.py", "pad", "raise ValueError("),),
        error=("ValueError: Asking to pad but the tokenizer does not have a padding token. Please select a token to use "
               "as `pad_token` `(tokenizer.pad_token = tokenizer.eos_token e.g.)` or add a new pad token via "
               "`tokenizer.add_special_tokens({{'pad_token': '[PAD]'}})`.",),
        log=(),
        en_title=("No padding token when batching {model} samples",),
        zh_title=("{model} 组 batch 时报分词器没有 padding token",),
        en_cause=("Decoder-only tokenizers such as {model}'s ship without a pad token; padding=True needs one.",),
        zh_cause=("{model} 这类 decoder-only 模型的分词器默认没有 pad token，而 padding=True 需要它。",),
        en_fix=("Set tokenizer.pad_token = tokenizer.eos_token before building the collator; if you add a new token "
                "instead, resize the embeddings.",),
        zh_fix=("构建 collator 前设置 tokenizer.pad_token = tokenizer.eos_token；若新增 token，需要同时 resize embedding。",),
    ),
    Family(
        key="index_assert", libs=("torch", "transformers"),
        frames=_FWD + (("torch/nn/modules/sparse.py", "forward", "return F.embedding("),),
        error=("../aten/src/ATen/native/cuda/Indexing.cu:{line}: indexSelectLargeIndex: block: [{blk},0,0], thread: "
               "[{thr},0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
               "RuntimeError: CUDA error: device-side assert triggered"),
        log=(),
        en_title=("device-side assert in the embedding after adding {added} special tokens",),
        zh_title=("新增 {added} 个特殊 token 后 embedding 触发 device-side assert",),
        en_cause=("{added} tokens were added to the tokenizer but the embedding matrix kept {vocab} rows, so the new "
                  "ids index past its end.",),
        zh_cause=("分词器新增了 {added} 个 token，但 embedding 仍是 {vocab} 行，新 id 越界。",),
        en_fix=("Call model.resize_token_embeddings(len(tokenizer)) after adding tokens, and rerun with "
                "CUDA_LAUNCH_BLOCKING=1 to confirm the failing op.",),
        zh_fix=("添加 token 后调用 model.resize_token_embeddings(len(tokenizer))，并用 CUDA_LAUNCH_BLOCKING=1 复现确认出错算子。",),
    ),
    Family(
        key="fp16_nan", libs=("torch", "transformers"),
        frames=(("torch/amp/grad_scaler.py", "unscale_", "optimizer_state[\"found_inf_per_device\"] = self._unscale_grads_("),
                ("torch/amp/grad_scaler.py", "_unscale_grads_", "raise ValueError(\"Attempting to unscale FP16 gradients.\")")),
        error=("ValueError: Attempting to unscale FP16 gradients.",),
        log=("{{'loss': nan, 'learning_rate': {lr}, 'epoch': 0.{pct}}}",),
        en_title=("Attempting to unscale FP16 gradients with a model loaded in float16",),
        zh_title=("以 float16 加载模型后报 Attempting to unscale FP16 gradients",),
        en_cause=("The trainable parameters themselves are fp16 (the model was loaded with torch_dtype=torch.float16), "
                  "and the AMP grad scaler only unscales fp32 master gradients.",),
        zh_cause=("可训练参数本身就是 fp16（加载时用了 torch_dtype=torch.float16），AMP 的 GradScaler 只能处理 fp32 梯度。",),
        en_fix=("Keep trainable weights in fp32 (cast the adapter or the trainable modules with .float()), and let "
                "autocast handle fp16 compute.",),
        zh_fix=("让可训练参数保持 fp32（对 adapter 或可训练模块调用 .float()），由 autocast 负责 fp16 计算。",),
    ),
    Family(
        key="no_kernel_image", libs=("torch",),
        frames=(("torch/cuda/__init__.py", "_lazy_init", "torch._C._cuda_init()"),),
        error=("RuntimeError: CUDA error: no kernel image is available for execution on the device",),
        log=("UserWarning: {newgpu} with CUDA capability sm_{sm} is not compatible with the current PyTorch installation.",),
        en_title=("no kernel image is available on {newgpu} with torch {torch}",),
        zh_title=("{newgpu} 上运行 torch {torch} 报 no kernel image is available",),
        en_cause=("The installed torch build was not compiled for sm_{sm}, the compute capability of {newgpu}.",),
        zh_cause=("安装的 torch 没有为 {newgpu} 的计算能力 sm_{sm} 编译内核。",),
        en_fix=("Install a torch build whose CUDA version supports sm_{sm} (pip install torch --index-url "
                "https://download.pytorch.org/whl/cu{cu}).",),
        zh_fix=("安装支持 sm_{sm} 的 torch 版本（pip install torch --index-url https://download.pytorch.org/whl/cu{cu}）。",),
    ),
    Family(
        key="dev_shm", libs=("nccl", "docker"),
        frames=(("torch/distributed/distributed_c10d.py", "all_reduce", "work = group.allreduce([tensor], opts)"),),
        error=("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:{line}, "
               "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.{nccl}",
               "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error."),
        log=("NCCL WARN Error while creating shared memory segment /dev/shm/nccl-{hexid} (size {shm})",),
        en_title=("NCCL system error in a container with a 64 MB /dev/shm",),
        zh_title=("容器内 /dev/shm 只有 64MB 导致 NCCL system error",),
        en_cause=("Docker gives containers a 64 MB /dev/shm by default; NCCL's intra-node transport needs larger "
                  "shared-memory segments and fails to create them.",),
        zh_cause=("Docker 默认只给容器 64MB 的 /dev/shm，NCCL 节点内通信需要更大的共享内存段，创建失败。",),
        en_fix=("Start the container with --shm-size=16g or --ipc=host (in Kubernetes mount an emptyDir with "
                "medium: Memory at /dev/shm).",),
        zh_fix=("启动容器时加 --shm-size=16g 或 --ipc=host（Kubernetes 中把 medium: Memory 的 emptyDir 挂到 /dev/shm）。",),
    ),
    Family(
        key="host_oom_kill", libs=("torch",),
        frames=(("torch/distributed/elastic/multiprocessing/api.py", "_poll", "raise ChildFailedError("),),
        error=("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED",
               "exitcode  : -9 (pid: {pid})", "error_file: <N/A>", "traceback : Signal 9 (SIGKILL) received by PID {pid}"),
        log=("WARNING:torch.distributed.run:Setting OMP_NUM_THREADS environment variable for each process to be 1",),
        en_title=("Workers killed with SIGKILL while loading {model} on every rank",),
        zh_title=("每个 rank 同时加载 {model} 时 worker 被 SIGKILL",),
        en_cause=("Each of the {world} local ranks materialised the full fp32 checkpoint in host RAM at once; the "
                  "kernel's OOM killer ended them.",),
        zh_cause=("{world} 个本地 rank 同时把完整的 fp32 checkpoint 读进内存，被内核 OOM killer 杀掉。",),
        en_fix=("Load with low_cpu_mem_usage=True and torch_dtype=torch.bfloat16, or load on rank 0 and broadcast; "
                "check dmesg for the OOM-killer line.",),
        zh_fix=("使用 low_cpu_mem_usage=True 和 torch_dtype=torch.bfloat16 加载，或只在 rank 0 加载后广播；用 dmesg 确认 OOM killer 记录。",),
    ),
    Family(
        key="vllm_kv", libs=("vllm",),
        frames=(("vllm/worker/worker.py", "_check_if_can_support_max_seq_len", "raise ValueError("),),
        error=("ValueError: The model's max seq len ({maxlen}) is larger than the maximum number of tokens that can be "
               "stored in KV cache ({kvtok}). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
               "when initializing the engine.",),
        log=("INFO {date} worker.py:{line}] # GPU blocks: {blocks}, # CPU blocks: 2048",),
        en_title=("vLLM refuses to start {model}: max seq len larger than the KV cache",),
        zh_title=("vLLM 启动 {model} 报 max seq len 大于 KV cache 容量",),
        en_cause=("After loading the weights on a {mem} GiB card the remaining memory holds only {kvtok} tokens of "
                  "KV cache, fewer than the model's default context of {maxlen}.",),
        zh_cause=("在 {mem} GiB 显卡上加载权重后，剩余显存只够 {kvtok} 个 token 的 KV cache，小于模型默认的 {maxlen} 上下文。",),
        en_fix=("Pass --max-model-len {kvtok} (or smaller), raise --gpu-memory-utilization, or add tensor parallelism.",),
        zh_fix=("设置 --max-model-len {kvtok}（或更小）、调高 --gpu-memory-utilization，或增加张量并行。",),
    ),
    Family(
        key="tp_vocab", libs=("megatron", "vllm"),
        frames=(("megatron/core/tensor_parallel/layers.py", "__init__", "self.num_embeddings_per_partition = divide("),
                ("megatron/core/utils.py", "divide", "ensure_divisibility(numerator, denominator)")),
        error=("AssertionError: {vocab} is not divisible by {tp}",),
        log=(),
        en_title=("Vocabulary of {vocab} rows not divisible by tensor-parallel size {tp}",),
        zh_title=("词表 {vocab} 行不能被张量并行数 {tp} 整除",),
        en_cause=("The vocabulary embedding is split evenly across tensor-parallel ranks; {vocab} rows cannot be split "
                  "into {tp} equal shards and the checkpoint was not padded.",),
        zh_cause=("词表 embedding 要在张量并行的各 rank 之间均分，{vocab} 行无法均分为 {tp} 份，而 checkpoint 没有做 padding。",),
        en_fix=("Pad the vocabulary to a multiple of {tp} x 128 (make-vocab-size-divisible-by) when converting the "
                "checkpoint, and keep the padding when converting back.",),
        zh_fix=("转换 checkpoint 时把词表 pad 到 {tp} x 128 的倍数（make-vocab-size-divisible-by），反向转换时保留 padding。",),
    ),
    Family(
        key="meta_tensor", libs=("transformers", "accelerate"),
        frames=(("torch/nn/modules/module.py", "_apply", "param_applied = fn(param)"),
                ("torch/nn/modules/module.py", "convert", "return t.to(")),
        error=("NotImplementedError: Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() "
               "instead of torch.nn.Module.to() when moving module from meta to a different device.",),
        log=(),
        en_title=("Cannot copy out of meta tensor after loading {model} with low_cpu_mem_usage",),
        zh_title=("low_cpu_mem_usage 加载 {model} 后 .to() 报 meta tensor 无数据",),
        en_cause=("Some weights were missing from the checkpoint, so they stayed on the meta device after the "
                  "low-memory load; moving the model with .to() has nothing to copy.",),
        zh_cause=("checkpoint 中缺少部分权重，低内存加载后它们还留在 meta 设备上，调用 .to() 时没有数据可拷贝。",),
        en_fix=("Find the missing keys (output_loading_info=True) and fix the checkpoint, or load without "
                "low_cpu_mem_usage so missing weights get initialised.",),
        zh_fix=("用 output_loading_info=True 找出缺失的 key 并修复 checkpoint，或不使用 low_cpu_mem_usage 让缺失权重被初始化。",),
    ),
    Family(
        key="peft_no_grad", libs=("peft", "transformers"),
        frames=(("torch/_tensor.py", "backward", "torch.autograd.backward("),
                ("torch/autograd/__init__.py", "backward", "_engine_run_backward(")),
        error=("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",),
        log=(),
        en_title=("LoRA with gradient checkpointing: element 0 of tensors does not require grad",),
        zh_title=("LoRA 开启梯度检查点后报 element 0 of tensors does not require grad",),
        en_cause=("With the base model frozen and reentrant gradient checkpointing, the inputs of the first "
                  "checkpointed block do not require grad, so the recomputed graph has no grad_fn.",),
        zh_cause=("基座模型被冻结且使用 reentrant 梯度检查点时，第一个被检查点包住的模块输入不需要梯度，重算出的图没有 grad_fn。",),
        en_fix=("Call model.enable_input_require_grads() before wrapping with PEFT, or use "
                "gradient_checkpointing_kwargs={{'use_reentrant': False}}.",),
        zh_fix=("在套 PEFT 之前调用 model.enable_input_require_grads()，或使用 gradient_checkpointing_kwargs={{'use_reentrant': False}}。",),
    ),
    Family(
        key="fsdp_uniform_grad", libs=("torch", "fsdp"),
        frames=(("torch/distributed/fsdp/_flat_param.py", "_validate_tensors_to_flatten", "raise ValueError("),),
        error=("ValueError: Must flatten tensors with uniform `requires_grad` when `use_orig_params=False`",),
        log=(),
        en_title=("FSDP refuses to wrap a partly frozen {model}",),
        zh_title=("FSDP 包装部分冻结的 {model} 时报 requires_grad 不一致",),
        en_cause=("A wrapped unit mixes frozen and trainable parameters; FSDP with use_orig_params=False flattens "
                  "them into one FlatParameter that must be uniform.",),
        zh_cause=("同一个包装单元里既有冻结参数又有可训练参数，use_orig_params=False 时 FSDP 要把它们拼成一个 requires_grad 一致的 FlatParameter。",),
        en_fix=("Set use_orig_params=True, or wrap the trainable modules in their own FSDP units.",),
        zh_fix=("设置 use_orig_params=True，或把可训练模块单独包装成 FSDP 单元。",),
    ),
    Family(
        key="cublas_init", libs=("torch",),
        frames=_FWD + (("torch/nn/modules/linear.py", "forward", "return F.linear(input, self.weight, self.bias)"),),
        error=("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",),
        log=(),
        en_title=("CUBLAS_STATUS_NOT_INITIALIZED at the first linear layer on {gpu}",),
        zh_title=("{gpu} 上第一个线性层报 CUBLAS_STATUS_NOT_INITIALIZED",),
        en_cause=("The GPU was already full when cuBLAS tried to allocate its workspace, so handle creation failed; "
                  "it is an out-of-memory in disguise.",),
        zh_cause=("cuBLAS 申请工作区时显存已被占满，句柄创建失败，本质上是显存不足。",),
        en_fix=("Free memory before the first matmul (smaller batch, no other process on the card), and check "
                "nvidia-smi for leftover processes.",),
        zh_fix=("在第一次矩阵乘之前释放显存（减小 batch、确保没有其他进程占卡），用 nvidia-smi 检查残留进程。",),
    ),
    Family(
        key="dataloader_bus", libs=("torch",),
        frames=(("torch/utils/data/dataloader.py", "_next_data", "idx, data = self._get_data()"),
                ("torch/utils/data/_utils/signal_handling.py", "handler", "_error_if_any_worker_fails()")),
        error=("RuntimeError: DataLoader worker (pid {pid}) is killed by signal: Bus error. It is possible that "
               "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",),
        log=(),
        en_title=("DataLoader worker killed by a bus error with num_workers={workers}",),
        zh_title=("num_workers={workers} 时 DataLoader worker 因 Bus error 退出",),
        en_cause=("Workers hand batches to the main process through /dev/shm; with {workers} workers and large "
                  "batches the container's shared memory filled up.",),
        zh_cause=("worker 通过 /dev/shm 把 batch 传回主进程，{workers} 个 worker 加上大 batch 把容器的共享内存占满了。",),
        en_fix=("Raise the container's shm size, or lower num_workers / prefetch_factor.",),
        zh_fix=("调大容器的 shm，或降低 num_workers / prefetch_factor。",),
    ),
    Family(
        key="safetensors_header", libs=("safetensors", "git-lfs"),
        frames=(("safetensors/torch.py", "load_file", "with safe_open(filename, framework=\"pt\", device=device) as f:"),),
        error=("safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge",),
        log=(),
        en_title=("HeaderTooLarge when loading model.safetensors of {model}",),
        zh_title=("加载 {model} 的 model.safetensors 报 HeaderTooLarge",),
        en_cause=("The safetensors file is a Git LFS pointer; its first eight bytes ('version ') are read as a "
                  "header length of several petabytes.",),
        zh_cause=("safetensors 文件其实是 Git LFS 指针，前 8 个字节 'version ' 被当作头部长度读成了几 PB。",),
        en_fix=("Fetch the real file with git lfs pull (or huggingface-cli download) and compare its size with the "
                "hub listing.",),
        zh_fix=("用 git lfs pull（或 huggingface-cli download）取回真实文件，并与 hub 上的大小核对。",),
    ),
)
