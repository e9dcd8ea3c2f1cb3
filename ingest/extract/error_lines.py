"""The error lines of a document: what the rules find, and what a symptom's code block shows last."""
from __future__ import annotations

from kb.models import Section
from kb.traceback.lines import embedded_errors, find_error_lines, output_message, quoted_output

from ingest.sections import fence_mask


def find_all_error_lines(text: str) -> list[str]:
    """`find_error_lines`, plus exception headers embedded in the middle of Chinese sentences and failures said in
    words inside a code block of tool output (`Could not load ... library`), in text order."""
    found = find_error_lines(text)
    lines = text.split("\n")
    code = fence_mask(lines)
    extra: list[str] = []
    for line, c in zip(lines, code):
        cands = [out] if (out := quoted_output(line, c)) else [] if c else embedded_errors(line)
        for cand in cands:
            if not any(cand in f or f in cand for f in found + extra):
                extra.append(cand)
    if not extra:
        return found
    return sorted(found + extra, key=lambda e: (text.find(e) if text.find(e) >= 0 else len(text)))


def symptom_output(sections: list[Section]) -> list[str]:
    """When no rule finds an error line in a postmortem, what its symptom section shows in a code block is what
    failed, even when it is said without an error word (`... is larger than the maximum number of tokens ...`,
    `Lock file exists in build directory: ...`): per block, its last line that reads as a message (a program prints
    its failure last; commands, code and settings are not messages)."""
    out: list[str] = []
    for sec in sections:
        if sec.kind != "symptoms":
            continue
        lines = sec.text.split("\n")
        last = None
        for line, in_code in zip(lines, fence_mask(lines)):
            if not in_code or line.lstrip().startswith(("```", "~~~")):     # outside a block, or its fence
                if last and last not in out:
                    out.append(last)
                last = None
            elif (msg := output_message(line)) is not None:
                last = msg
        if last and last not in out:
            out.append(last)
    return out[:3]
