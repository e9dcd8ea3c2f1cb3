"""The part of a reporter's words worth retrieving over.

People wrap an error in courtesy: "大家好，遇到了下面这个报错，网上搜了很久没找到答案，谢谢！", "I searched the
issues and found nothing similar, any help is appreciated". Such clauses name nothing about the failure, yet retrieval
over them is not neutral: BM25 relative to the best entry, or a dense vector, always ranks *some* entry first, and
that entry then looks corroborated by the report. `substance(prose)` keeps only the clauses that name something.
"""
from __future__ import annotations

import re

from kb.index.tokenize import tokenize

# Words of asking for help and pointing at the paste, and words every report of this domain uses ("training",
# "model", "error"): none of them tells one failure from another.
_TALK_WORDS = frozenset("""
hi hello hey dear guys everyone anyone someone somebody folks team thanks thank thx appreciate appreciated help helps
helping kindly please plz searched search searching issue issues similar anything nothing something idea ideas clue
solve solved solving solution solutions suggestion suggestions advice know knows known question questions ask asking
reply regards best cheers following follow below above here there error errors problem problems issue occur occurs
occurred occurring happen happens happened happening get gets got getting encounter encountered encountering face
faced facing see seeing saw seen meet met run running ran runs code script try tried trying work works working worked
previous directly same strange weird wrong happy first time still also again thing things way trouble case train
training trained model models use using used find found look looking
大家 大家好 各位 大佬 老师 你好 您好 请问 请教 求助 求教 帮忙 帮助 谢谢 感谢 多谢 麻烦 遇到 碰到
出现 发现 报错 错误 问题 解决 解决办法 办法 方法 怎么办 如何 网上 搜 搜索 搜了 查 查了 找 找到
没找到 答案 下面 以下 如下 一直 情况 看看 知道 原因 急 在线 在线等 求 大神 运行 代码 脚本 训练
模型 使用 用 时 久 很久 尝试 试 试了 结果 请 帮 看 一 下 问 好
""".split())
# Words that say how it failed are worth a clause by themselves ("it hangs", "一直卡住").
_FAILURE_WORDS = frozenset("""
hang hangs hanging hung stuck freeze freezes frozen deadlock crash crashes crashed segfault killed oom nan nans inf
timeout overflow underflow diverge diverges
卡住 卡死 挂起 死锁 崩溃 溢出 爆显存 显存不足 超时 发散
""".split())
# Clauses end at sentence and clause punctuation, in both languages.
_CLAUSE = re.compile(r"[。！？；，、\n!?;,]+|\.(?:\s+|$)")
# A term that is code-like (a digit, an underscore, a dot inside) names something by itself: `fp16`, `device_map`.
_CODE_TERM = re.compile(r"[0-9_.]")


def _weight(term: str) -> int:
    """What a term says about a failure: 2 for a failure word or a code-like term, 1 for another word of at least
    two Han or three Latin letters, 0 for talk."""
    if term in _TALK_WORDS:
        return 0
    if term in _FAILURE_WORDS or _CODE_TERM.search(term):
        return 2
    han = all("\u3400" <= ch <= "\u9fff" for ch in term)
    return 1 if len(term) >= (2 if han else 3) else 0


def substance(prose: str) -> str:
    """`prose` without the clauses that name nothing (fewer than two points by `_weight`)."""
    kept = [clause.strip() for clause in _CLAUSE.split(prose)
            if sum(_weight(t) for t in set(tokenize(clause))) >= 2]
    return ". ".join(kept)
