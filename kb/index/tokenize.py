"""Bilingual, code-aware tokenizer for the BM25 index.

`tokenize(text)` returns lowercased terms:

* Han runs are segmented with jieba in search mode (long words also yield their sub-words: 梯度累积 -> 梯度, 累积,
  梯度累积), with a few training-infrastructure words added to its dictionary.
* Identifiers are kept whole and split: `model.embed_tokens.weight` -> model.embed_tokens.weight, model,
  embed_tokens, embed, tokens, weight; `FusedLinearCrossEntropy` -> fusedlinearcrossentropy, fused, linear, cross,
  entropy; `CUBLAS_STATUS_NOT_INITIALIZED` -> the whole and its parts; `fp16` -> fp16, fp, 16.
* Numbers up to 8 digits are terms; versions also give their major.minor (4.37.2 -> 4.37.2, 4.37); longer numbers
  and hex ids (addresses, hashes) are dropped, with any compound containing them.
* English and Chinese stop words are dropped; single Latin letters too.

Text is NFKC-normalised first, so full-width letters, digits and punctuation read as ASCII.
Pure Python with precompiled regexes. Han text is segmented as jieba does it, silently: from a table of jieba's
words on disk (kb.index.han) in a process that segments little, from jieba's dictionary (0.8 s to load) past that.
"""
from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
import threading
import time
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Final

__all__ = ["TOKENIZER_VERSION", "STOP_WORDS", "use_cache_dir", "tokenize", "tokenize_many"]

# Stored in an index's manifest; change it whenever tokenize() would give different terms for the same text.
TOKENIZER_VERSION = "zh-en-code-1"

# CJK ideographs: Extension A, URO, compatibility ideographs, Extensions B..H.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
# A "word character" that is not Han: Unicode letters/digits/underscore of any other script.
_W = rf"[^\W{_HAN}]"
_TOKEN_RE = re.compile(rf"(?P<han>[{_HAN}]+)|(?P<word>{_W}+(?:(?:\.|::|-){_W}+)*)")
_CONNECTOR_RE = re.compile(r"\.|::|-")
# camelCase / PascalCase / ACRONYMWord pieces; digits stay attached to the letters before them (Qwen2, fp16)
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+[a-z]*")
_STEM_DIGITS_RE = re.compile(r"([a-z]{2,})([0-9]+)")
_VERSION_RE = re.compile(r"v?([0-9]+)\.([0-9]+)(?:\.[0-9]+)*")
_HEXISH_RE = re.compile(r"(?:0x)?[0-9a-f]+")
_MAX_NUMBER_DIGITS = 8
_MIN_CAMEL_CHARS = 6  # camelCase is split only in words at least this long
_MAX_TERM_CHARS = 48
_MAX_HAN_RUN = 200  # Han runs are segmented in pieces of at most this many characters  # longer segments are blobs (base64, mangled names), not words

_EN_STOP = """
a about above after again against all also am an and any are aren as at be because been before being below
between both but by can cannot could couldn did didn do does doesn doing don down during each either else etc
even ever every few for from further had hadn has hasn have haven having he her here hers herself him himself
his how however i if in into is isn it its itself just let me more most much must mustn my myself neither no
nor not now of on once only onto or other ought our ours ourselves own per please same shall shan she should shouldn
since so some such than that the their theirs them themselves then there these they this those though through
thus to too under until upon us very via was wasn we were weren what when where whether which while who whom
whose why will with within without won would wouldn yet you your yours yourself yourselves
e.g i.e http https www
"""
_ZH_STOP = """
的 了 是 在 和 与 及 或 或者 就 都 而 也 还 又 把 被 让 给 对 从 到 向 于 以 为 之 其 此 这 那 这个 那个 这些 那些
这样 那样 一个 一些 一下 我 我们 你 你们 您 他 她 它 他们 她们 它们 咱们 自己 吗 呢 吧 啊 呀 哦 嗯 哈 着 过 得 地 很
更 最 太 非常 比较 有 没 没有 不 会 能 能够 可以 可能 应该 需要 如果 因为 所以 但是 但 然后 而且 并且 并 就是 只是
已经 正在 进行 以及 等 等等 之后 之前 时 时候 的话 后 中 里 上 下 个 些 么 什么 怎么 怎样 为什么 哪 哪里 哪个 这里
那里 其他 其它 另外 通过 关于 对于 由于 即 即使 虽然 还是 还有 只 只有 才 再 又 却 则 同时 一样 一直 总是 每 各
"""
STOP_WORDS: frozenset[str] = frozenset(_EN_STOP.split()) | frozenset(_ZH_STOP.split())

# Domain words jieba's general dictionary splits badly ("多机多卡" -> 多机/多卡, not 大多/机多卡).
_ZH_DOMAIN_WORDS = """
显存 内存 多机 多卡 单卡 单机 梯度 梯度累积 梯度裁剪 梯度爆炸 梯度消失 学习率 预热 混合精度 半精度 溢出 下溢 上溢
权重 检查点 断点续训 分片 切分 并行 数据并行 张量并行 模型并行 流水线并行 序列并行 专家并行 通信 超时 死锁 卡住 挂起
报错 算子 编译 算力 吞吐 推理 训练 微调 预训练 量化 反量化 精度 损失 收敛 发散 优化器 调度器 分词器 词表 词嵌入
注意力 长上下文 显卡 驱动 容器 镜像 环境变量 依赖 版本 回退 升级 降级 复现 根因 修复 规避 绕过 日志 堆栈 节点 进程
线程 死机 重启 保存 加载 合并 转换 导出 评测 数据集 数据加载 采样 填充 截断 掩码
"""

_jieba = None
_jieba_lock = threading.Lock()
_jieba_cache_dir: Path | None = None


JIEBA_FOLDER: Final = "jieba"     # under the cache dir: jieba's prefix-dictionary cache and our word table


def use_cache_dir(cache_dir: Path | str | None) -> None:
    """Keep jieba's prefix-dictionary cache and our word table in the `jieba` folder of this cache dir (the
    settings' TRIAGE_CACHE_DIR; default: our user cache dir if writable, else the temp dir).

    Call before the first tokenize() of Han text; later calls have no effect on a segmenter or table in use.
    """
    global _jieba_cache_dir
    _jieba_cache_dir = Path(cache_dir) / JIEBA_FOLDER if cache_dir is not None else None


def _writable_dir(candidates: Iterable[Path]) -> str | None:
    for d in candidates:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(d, os.W_OK | os.X_OK):
            return str(d)
    return None


def _jieba_dir() -> str | None:
    """Where jieba's prefix-dictionary cache and our word table live: the first writable of the configured cache
    dir (else our user cache dir) and the temp dir (None: none is, and jieba falls back to the temp dir)."""
    candidates = []
    if _jieba_cache_dir is not None:
        candidates.append(_jieba_cache_dir)
    else:
        try:
            from kb.config import user_cache_dir

            candidates.append(user_cache_dir() / JIEBA_FOLDER)
        except Exception:  # pragma: no cover - config unavailable: the temp dir will do
            pass
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    candidates.append(Path(tempfile.gettempdir()) / f"triage-kb-jieba-{uid}")
    return _writable_dir(candidates)


def _import_jieba():
    # jieba logs "Building prefix dict ..." at DEBUG on a stderr handler of its own, and a failed cache write
    # at ERROR: quiet all of it, before the import can emit anything.
    log = logging.getLogger("jieba")
    log.setLevel(logging.CRITICAL + 1)
    log.propagate = False
    import jieba

    jieba.setLogLevel(logging.CRITICAL + 1)
    return jieba


def _table_stamp(jieba) -> str:
    from kb.index import han

    return han.stamp(jieba.__version__, _ZH_DOMAIN_WORDS)


def _segmenter():
    """jieba with its dictionary loaded and our domain words added (~0.8 s); it (re)writes the word table that
    `_word_table` reads when that is missing or stale."""
    global _jieba
    if _jieba is not None:
        return _jieba
    with _jieba_lock:
        if _jieba is not None:
            return _jieba
        jieba = _import_jieba()
        seg = jieba.Tokenizer()
        seg.tmp_dir = _jieba_dir()  # None: jieba falls back to the temp dir and may fail quietly
        seg.cache_file = "jieba.cache"
        seg.initialize()
        for word in _ZH_DOMAIN_WORDS.split():
            seg.add_word(word)
        if seg.tmp_dir is not None and _word_table() is None:
            from kb.index import han

            try:
                han.write(Path(seg.tmp_dir) / han.TABLE, seg.FREQ, seg.total, _table_stamp(jieba))
            except OSError:                 # a full or read-only disk: the next process loads jieba again
                pass
        _jieba = seg
        return seg


_table = None                       # the word table (kb.index.han), False where there is none or it is stale
_table_seconds = 0.0                # time spent segmenting from it in this process
# After this long segmenting from the table, jieba's dictionary is loaded instead (it takes about as long to load
# and is faster per text): a one-shot command stays on the table, a bulk ingest pays the load once.
TABLE_BUDGET_S = 0.8


def _word_table():
    global _table
    if _table is None:
        from kb.index import han

        folder = _jieba_dir()
        try:
            if folder is None:
                raise OSError("no cache dir")
            _table = han.TableSegmenter(Path(folder) / han.TABLE, _table_stamp(_import_jieba()))
        except (OSError, ValueError, EOFError, KeyError, TypeError):
            _table = False
    return _table or None


def _cut_for_search(text: str) -> list[str]:
    """jieba's search-mode cut: from the word table while that is cheaper, else from jieba's dictionary (the same
    terms either way)."""
    global _table_seconds
    if _jieba is None and _table_seconds < TABLE_BUDGET_S:
        with _jieba_lock:
            table = _word_table()
        if table is not None:
            started = time.perf_counter()
            terms = table.lcut_for_search(text)
            _table_seconds += time.perf_counter() - started
            return terms
    return _segmenter().lcut_for_search(text)


def _is_id_like(part: str) -> bool:
    """Long numbers, hex addresses, hashes and blobs: unique per log line, useless as terms."""
    if len(part) > _MAX_TERM_CHARS:
        return True
    if part.isdigit():
        return len(part) > _MAX_NUMBER_DIGITS
    if _HEXISH_RE.fullmatch(part):
        if part.startswith("0x"):
            return len(part) > 6  # 0x7f3a2b1c9d00 goes, 0x80 / 0x1f stay
        return len(part) >= 8 and any(c.isdigit() for c in part)  # a3f9c2e1, 7f3a2b1c9d00
    return False


def _keep(term: str) -> bool:
    if len(term) == 1:
        return term.isdigit() or not term.isascii()
    return term not in STOP_WORDS and any(c.isalnum() for c in term)


def _segment_parts(segment: str) -> list[str]:
    """Sub-terms of one identifier segment (no connectors inside): snake_case and camelCase pieces, letter stems."""
    parts: list[str] = []
    for piece in segment.split("_"):
        if not piece:
            continue
        # Other scripts have no camel case; short mixed-case words are names, not compounds (NaN, ZeRO, LoRA, GiB).
        if not piece.isascii() or len(piece) < _MIN_CAMEL_CHARS:
            low = piece.lower()
            parts.append(low)
            m = _STEM_DIGITS_RE.fullmatch(low)
            if m:
                parts.extend(m.groups())
            continue
        for sub in _CAMEL_RE.findall(piece):
            low = sub.lower()
            parts.append(low)
            m = _STEM_DIGITS_RE.fullmatch(low)
            if m:
                parts.extend(m.groups())  # fp16 -> fp, 16; stage3 -> stage, 3
    return parts


@lru_cache(maxsize=1 << 16)
def _word_terms(word: str) -> tuple[str, ...]:
    """Terms of one compound (segments joined by '.', '::' or '-'); original case in, lowercase out."""
    low = word.lower()
    version = _VERSION_RE.fullmatch(low)
    if version:  # 4.37.2 -> 4.37.2, 4.37 ; v2.1 -> 2.1
        if any(len(s) > _MAX_NUMBER_DIGITS for s in low.lstrip("v").split(".")):
            return ()
        out = [low.lstrip("v"), f"{version.group(1)}.{version.group(2)}"]
    else:
        segments = [s for s in _CONNECTOR_RE.split(word) if s]
        if any(_is_id_like(s.lower().strip("_")) for s in segments):
            return ()
        out = [low] if len(segments) > 1 else []
        for seg in segments:
            seg_low = seg.lower().strip("_") or seg.lower()
            out.append(seg_low)
            subs = _segment_parts(seg)
            if subs != [seg_low]:
                out.extend(subs)
    seen: set[str] = set()
    terms = []
    for t in out:
        if t not in seen and _keep(t):
            seen.add(t)
            terms.append(t)
    return tuple(terms)


def _han_terms(run: str) -> list[str]:
    terms: list[str] = []
    # jieba's HMM pass is quadratic on long runs of unknown characters; sentences are far shorter than this
    for start in range(0, len(run), _MAX_HAN_RUN):
        terms.extend(t for t in _cut_for_search(run[start : start + _MAX_HAN_RUN])
                     if t.strip() and t not in STOP_WORDS)
    return terms


def tokenize(text: str) -> list[str]:
    """Lowercased BM25 terms of `text` (Chinese, English, code, logs), stop words dropped.

    Terms never contain whitespace, so a list of them round-trips through " ".join / str.split.
    """
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text)
    terms: list[str] = []
    for m in _TOKEN_RE.finditer(text):
        han = m.group("han")
        if han is not None:
            terms.extend(_han_terms(han))
        else:
            terms.extend(_word_terms(m.group("word")))
    # The same term recurs across a KB's chunks: one string object for each (a 10,000-issue import holds ~10M terms).
    return list(map(sys.intern, terms))


def tokenize_many(texts: Iterable[str]) -> list[list[str]]:
    return [tokenize(t) for t in texts]
