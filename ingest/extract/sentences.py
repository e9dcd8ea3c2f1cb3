"""Sentences and the cue words that say what a sentence is about (a cause, a consequence, a fix): used for
combined sections ("根本原因与修复") and documents without headings."""
from __future__ import annotations

import re

from kb.traceback.lines import classify_line

from ingest.extract.blocks import split_blocks, strip_marker
from ingest.sections import fence_mask

CAUSE_CUE = re.compile(
    r"原因是|原因在于|根本原因|根因|根源|由于|源于|是因为|因为|问题出在|问题在于|归因于|导致的|所致|本质上|原来|"
    r"(?:排查|查|定位|检查|确认)(?:了一下|之后|后)?发现|发现(?:是|原来)|罪魁祸首|"
    r"\bbecause\b|\bcaused by\b|\bdue to\b|\broot cause\b|\bthe (?:real |actual )?(?:reason|cause|culprit)\b|"
    r"\bstems? from\b|\bresults? from\b|\bturn(?:s|ed) out\b|\b(?:it|this|that) was an? (?:problem|issue) (?:of|with)\b|"
    r"\bthe (?:problem|issue) (?:was|is) (?:that|with)\b", re.I)
# A sentence that says what followed from what: the mechanism, when no sentence names the cause.
CONSEQUENCE = re.compile(r"所以|因此|于是|以致|导致|使得|意味着|也就是说|\bthis means\b|\bin other words\b|, so\b|\bwhich is why\b|\bthat is why\b|\bhence\b|"
                         r"\bso that\b|\bwhich (?:means|made|makes|caused|left)\b", re.I)
# A sentence that names a mismatch, a limit or something missing: how most causes are put when no sentence says
# "because" (`the image ships CUDA 12.1, newer than the driver supports`, `两边的版本不匹配`). The last
# resort for a document's cause, after cue words, consequences and a conclusion.
MECHANISM = re.compile(
    r"对不上|不匹配|不一致|不兼容|不支持|不再支持|超过了?|超出了?|上限|缺少|缺失|没有(?:安装|编译|装)|"
    r"过旧|太旧|太老|过新|\bmismatch(?:ed|es)?\b|\b(?:did|does|do) not match\b|\bdoesn't match\b|\bdidn't match\b|"
    r"\bincompatible\b|\bnot compatible\b|\bnot supported\b|\bunsupported\b|\bno longer\b|\boutdated\b|"
    r"\b(?:older|newer) than\b|\bexceed(?:s|ed|ing)?\b|\blarger than\b|\bmore than\b|\blimit\b|"
    r"\bwithout\b|\bmissing\b|\blacks?\b|"
    r"\bhas no\b|\bhave no\b|\bnot (?:built|compiled|installed)\b", re.I)
# Words of a fix. FIX_CUE also takes words that only set a scene for one ("设置", "install", "set"); FIX_ACT only
# what was done about it ("the installed torch" states a cause, "reinstalling torch" a fix).
_DONE = (r"解决|修复|规避|绕过|改为|改成|改用|升级|降级|即可|\bfix(?:ed|es)?\b|\bsolution\b|\bresolv\w+|\bworkaround\b|"
         r"\bupgrad\w+|\bdowngrad\w+|\binstead\b")
FIX_CUE = re.compile(_DONE + r"|设置|安装|添加|加上|建议|\binstall\w*|\bset(?:ting)?\b|\bswitch(?:ing)? to\b|\bavoid\b", re.I)
FIX_ACT = re.compile(_DONE + r"|重新|\breinstall\w*|\bswitch(?:ed|ing)? to\b", re.I)


def split_sentences(text: str) -> list[str]:
    """Sentences of prose: split after 。！？!? and after a full stop followed by a space, and at line breaks."""
    parts = re.split(r"(?<=[。！？!?])|(?<=\.)\s+|\n+", text)
    return [p.strip() for p in parts if p and p.strip()]


def join_sentences(sents: list[str]) -> str:
    """Sentences back into one paragraph (no space after Chinese punctuation); code blocks on their own lines."""
    out = ""
    for sent in sents:
        if sent.startswith(("```", "~~~")) or (out and out.endswith(("```", "~~~"))):
            out += ("\n" if out else "") + sent
        elif not out or re.search(r"[\u3000-\u303f\uff00-\uffef]$", out):
            out += sent
        else:
            out += " " + sent
    return out


def route_sentences(text: str, kinds: list[str]) -> dict[str, list[str]]:
    """Distribute a combined section's sentences ("根本原因与修复") over its kinds by cue words; a code block
    goes with the sentence before it."""
    out: dict[str, list[str]] = {k: [] for k in kinds}
    last = kinds[0]
    for kind_of_block, block in split_blocks(text):
        if kind_of_block == "code":
            out[last].append(block)
            continue
        for sent in split_sentences(strip_marker(block) if kind_of_block == "item" else block):
            fixy = FIX_CUE.search(sent) and not CAUSE_CUE.search(sent)
            if "fix" in out and fixy:
                last = "fix"
            elif "workaround" in out and fixy:
                last = "workaround"
            elif "root_cause" in out and CAUSE_CUE.search(sent):
                last = "root_cause"
            else:
                last = kinds[0]
            out[last].append(sent)
    return out


def cue_sentences(text: str, cue: re.Pattern[str], limit: int, exclude: re.Pattern[str] | None = None) -> list[str]:
    found = []
    lines = text.split("\n")
    code = fence_mask(lines)
    readable = "\n".join(ln for ln, c in zip(lines, code) if not c and classify_line(ln) is None)
    clauses = [c for sent in split_sentences(readable) for c in re.split(r"(?<=[；;])\s*", sent) if c.strip()]
    for sent in clauses:
        if cue.search(sent) and not (exclude and exclude.search(sent)) and len(sent) >= 8:
            found.append(sent)
            if len(found) >= limit:
                break
    return found
