"""A bilingual (English / Chinese) glossary of training-infrastructure terms, for retrieval across languages.

Postmortems and reports mix languages: an English traceback with "tensor parallel ... not divisible" must find a
Chinese postmortem that says 张量并行 ... 整除. The dense model bridges languages only loosely; BM25 not at all.
`expand_query(text)` returns the terms of the *other* language's names for every glossary concept the text
mentions, so a query is expanded and documents (and their stored token lists) stay as they were: no re-index.
`gloss(text)` names the same concepts in the other language, as a prefix for the dense query.

Each concept is one line: English names | Chinese names, variants separated by commas. English names match as
whole words, case-insensitively, with an optional plural/verb ending (-s, -es, -ed, -ing) and with `-`, `_` or a
space between their words; Chinese names match as substrings.
"""
from __future__ import annotations

import re
from functools import lru_cache

from kb.index.tokenize import tokenize

_CONCEPTS = """
out of memory, oom, memory usage, gpu memory, vram                    | 显存, 爆显存, 显存不足, 内存不足, 显存占用
host memory, cpu memory, ram                                          | 内存, 主机内存
memory fragmentation, fragmentation                                   | 显存碎片, 碎片
allocator                                                             | 分配器
activation checkpointing, gradient checkpointing, recompute           | 激活检查点, 梯度检查点, 重计算, 重算
activation, activations                                               | 激活, 激活值
backward, backward pass, backpropagation                              | 反向传播, 反向
forward, forward pass                                                 | 前向, 前向传播
batch size, micro batch, micro-batch, batch                           | 批大小, 批次, 批量
gradient accumulation                                                 | 梯度累积
gradient clipping                                                     | 梯度裁剪
gradient, grad                                                        | 梯度
fine tune, finetune, fine-tuning, sft                                 | 微调
pretrain, pre-training                                                | 预训练
inference, serving, generate                                          | 推理, 生成
evaluation, eval                                                      | 评估, 评测
learning rate, lr                                                     | 学习率
optimizer, optimizer state                                            | 优化器, 优化器状态
scheduler                                                             | 调度器
loss                                                                  | 损失
nan, overflow, loss scale                                             | 溢出, 损失缩放
mixed precision, amp, autocast                                        | 混合精度
half precision, fp16, float16                                         | 半精度
bf16, bfloat16                                                        | 半精度
fp32, float32, full precision                                         | 单精度, 全精度
precision, dtype                                                      | 精度, 数据类型
quantization, quantize, int8, int4, 4-bit, 8-bit                      | 量化
tensor parallel, tensor parallelism, tp size, tp_size, tp             | 张量并行, 张量并行度
pipeline parallel, pipeline parallelism, pp                           | 流水线并行
data parallel, data parallelism, ddp                                  | 数据并行
sequence parallel, sequence parallelism                               | 序列并行
expert parallel, expert parallelism                                   | 专家并行
model parallel, model parallelism                                     | 模型并行
parallel, parallelism, distributed                                    | 并行, 分布式
shard, sharding, sharded, partition, partitioned                      | 分片, 切分, 切片, 分区
divisible, divide evenly, evenly, multiple of                         | 整除, 均匀, 倍数
pad, padding, padded                                                  | 填充, 补齐, 对齐
vocab, vocabulary, vocab size, vocab_size                             | 词表, 词汇表, 词表大小, 词汇表大小
embedding, embeddings, embed_tokens                                   | 词嵌入, 嵌入, 嵌入层
tokenizer                                                             | 分词器
token, tokens                                                         | 词元
special token, added token, add tokens, new tokens                    | 特殊token, 新增token, 新词
pad token, pad_token                                                  | 填充符, 填充token
attention                                                             | 注意力
weight, weights, parameter, parameters, param                         | 权重, 参数
checkpoint, checkpoints, ckpt                                         | 检查点, 权重文件, 断点
save, saving, saved                                                   | 保存
load, loading, loaded                                                 | 加载, 载入
resume, resuming                                                      | 续训, 断点续训, 恢复训练
merge, merging, merged                                                | 合并
convert, conversion                                                   | 转换
export                                                                | 导出
shape, size mismatch, mismatch                                        | 形状, 维度, 不匹配, 尺寸
dimension, dim                                                        | 维度
placeholder, empty tensor                                             | 占位, 空张量
tensor, tensors                                                       | 张量
device, devices                                                       | 设备
move to device, to device, device placement, device map, device_map   | 设备搬运, 搬到, 移动到, 设备映射
offload, offloading, cpu offload                                      | 卸载, 卸载到
multi gpu, multi-gpu, multi node, multi-node                          | 多卡, 多机, 多机多卡
single gpu, single-gpu                                                | 单卡
gpu, graphics card                                                    | 显卡
driver                                                                | 驱动
kernel                                                                | 算子, 内核
compile, compilation                                                  | 编译
communication, collective                                             | 通信, 集合通信
timeout, timed out, time out                                          | 超时
hang, hangs, stuck, deadlock                                          | 卡住, 挂起, 死锁, 卡死
process, processes, rank, worker                                      | 进程
node, nodes, host                                                     | 节点
container, docker                                                     | 容器
container image, docker image                                         | 镜像
environment variable, env var                                         | 环境变量
upgrade                                                               | 升级
downgrade, roll back, rollback                                        | 降级, 回退
dependency, dependencies                                              | 依赖
install, installation                                                 | 安装
download, downloaded                                                  | 下载
pointer file, lfs pointer, git lfs, git-lfs                           | 指针文件
config, configuration                                                 | 配置, 配置文件
warning, warnings                                                     | 警告, 告警
mixture of experts, moe, expert, experts                              | 混合专家, 专家
preprocessing, data loading, dataloader                               | 预处理, 数据加载
dataset                                                               | 数据集
long sequence, sequence length, context length, max length            | 序列长度, 长序列, 上下文长度, 最大长度
lm head, lm_head, output layer                                        | 输出层
tied, tie, tied weights, weight tying                                 | 权重共享, 绑定权重
frozen, freeze                                                        | 冻结
trainable                                                             | 可训练
adapter, lora                                                         | 适配器
value head, reward model                                              | 价值头, 奖励模型
shared memory, /dev/shm, shm                                          | 共享内存
network interface, nic, infiniband                                    | 网卡, 网络接口
watchdog                                                              | 看门狗
all reduce, allreduce, all gather, allgather                          | 全规约, 全收集
segmentation fault, segfault, core dump                               | 段错误, 核心转储
throughput                                                            | 吞吐, 吞吐量
latency                                                               | 延迟, 时延
slow, slowdown                                                        | 变慢, 太慢
cache, kv cache                                                       | 缓存
position embedding, position ids, positional                          | 位置编码, 位置嵌入
rotary, rope                                                          | 旋转位置编码
chat template, prompt template                                        | 对话模板, 提示词模板
diverge, divergence, loss spike                                       | 发散, 尖峰
converge, convergence                                                 | 收敛
accuracy, metric                                                      | 准确率, 指标
checkpoint conversion, convert checkpoint                             | 权重转换
mirror, hf mirror                                                     | 镜像站
generator                                                             | 生成器
discriminator                                                         | 判别器
in-place, inplace, in place                                           | 原地, 就地, 原位
computation graph, autograd graph, graph                              | 计算图
hidden state, hidden states                                           | 隐藏状态, 隐状态
batch norm, batchnorm, batch normalization, syncbn, sync batchnorm    | 批归一化, 批量归一化, 同步BN
process group                                                         | 进程组
initialize, initialization, init                                      | 初始化
label, labels                                                         | 标签
classification, classifier                                            | 分类, 分类器
version, versions                                                     | 版本
missing, not found                                                    | 缺少, 缺失, 找不到, 未找到
truncated, incomplete, corrupted, corrupt                             | 截断, 不完整, 损坏
extension, extensions                                                 | 扩展
prebuilt, wheel, binary                                               | 预编译, 二进制
"""


class _Concept:
    """One line of the glossary: its English names (found by a regex compiled on first need: most reports name a
    few concepts, and compiling all of them cost a one-shot `diagnose` 0.1 s) and its Chinese names."""

    def __init__(self, en: list[str], zh: tuple[str, ...]) -> None:
        self.en, self.zh = en, zh
        pieces = [re.split(r"[\s_-]+", w) for w in en]
        # A name's first word, lower-cased, is in the lower-cased text whenever the regex can match (re.I folds
        # case as str.lower does, but for a few letters such as U+017F that no report of ours uses).
        self.keys = tuple(dict.fromkeys(p[0].lower() for p in pieces))
        self._pieces = pieces
        self._regex: re.Pattern | None = None

    def regex(self) -> re.Pattern:
        if self._regex is None:
            words = [r"[\s_-]?".join(re.escape(p) for p in w) for w in self._pieces]
            # Abbreviations (tp, pp, lr, oom) must stand alone: `zero_pp_rank` is no pipeline-parallel size.
            short = [w for w in words if len(w) <= 3]
            long = [w for w in words if len(w) > 3]
            alts = []
            if long:
                alts.append(r"(?<![a-z0-9])(?:" + "|".join(long) + r")(?:s|es|ed|ing)?(?![a-z0-9])")
            if short:
                alts.append(r"(?<![a-z0-9_])(?:" + "|".join(short) + r")s?(?![a-z0-9_])")
            self._regex = re.compile("|".join(alts), re.I)
        return self._regex

    def named_in_english(self, text: str, lowered: str) -> bool:
        return any(k in lowered for k in self.keys) and self.regex().search(text) is not None


@lru_cache(maxsize=1)
def _concepts() -> list[_Concept]:
    out = []
    for line in _CONCEPTS.strip().splitlines():
        en_part, zh_part = (p.strip() for p in line.split("|"))
        en = [w.strip() for w in en_part.split(",") if w.strip()]
        out.append(_Concept(en, tuple(w.strip() for w in zh_part.split(",") if w.strip())))
    return out


@lru_cache(maxsize=256)
def _mentioned(text: str) -> tuple[tuple[list[str], tuple[str, ...], bool], ...]:
    """(English names, Chinese names, named in English?) of each concept the text mentions in one language."""
    found = []
    lowered = text.lower()
    for c in _concepts():
        if c.named_in_english(text, lowered):
            found.append((c.en, c.zh, True))
        elif any(w in text for w in c.zh):
            found.append((c.en, c.zh, False))
    return tuple(found)


def expand_query(text: str) -> tuple[str, ...]:
    """Terms of the other language's names for each glossary concept that `text` mentions (each concept once)."""
    extra: list[str] = []
    for en, zh, in_english in _mentioned(text):
        extra.extend(_han_pieces(zh) if in_english else tokenize(" ".join(en)))
    return tuple(dict.fromkeys(extra))


@lru_cache(maxsize=512)
def _han_pieces(names: tuple[str, ...]) -> tuple[str, ...]:
    """Every piece of two or more characters of the Chinese names: the words jieba cuts a document into are among
    them (张量并行 → 张量, 并行, 张量并行), and a piece no document has is simply not in the index. Cutting the names
    with jieba itself would load its dictionary (most of a second) for every English report."""
    return tuple(dict.fromkeys(name[i:j] for name in names for i in range(len(name))
                               for j in range(i + 2, len(name) + 1)))


def gloss(text: str) -> str:
    """The other language's main name of each concept the text mentions: a prefix that lets a multilingual
    encoder (weak across languages on its own) place an English report near a Chinese postmortem and back."""
    return " ".join(dict.fromkeys((zh[0] if in_english else en[0]) for en, zh, in_english in _mentioned(text)))


def query_terms(text: str) -> list[str]:
    """BM25 terms of a query: its own, then the glossary's other-language terms it does not already contain (BM25
    adds up over terms, so a translated term weighs what the reporter's own word would)."""
    terms = tokenize(text)
    have = set(terms)
    return terms + [t for t in expand_query(text) if t not in have]
