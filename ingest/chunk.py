"""Cut a `Document` into retrieval `Chunk`s, section by section.

Chunk 0 gathers the title and the error lines (what a pasted traceback matches best). Each section's text is then
packed into chunks of at most `max_chars`, prefixed with the title and the section heading for context. A code
block or a run of traceback lines is never split: one longer than the limit becomes a chunk of its own.
"""
from __future__ import annotations

import re

from kb.lang import lang_shares
from kb.models import Chunk, Document, Section
from kb.traceback.lines import classify_line

from ingest.extract.sentences import split_sentences
from ingest.extract.title import tidy_title
from ingest.sections import fence_mask


def chunk_lang(text: str, default: str) -> str:
    """"zh", "en" or "mixed" for one chunk's text; `default` when it has no prose (code only)."""
    han, en = lang_shares(text)
    total = 3 * han + en
    if total < 15:
        return default
    zh = han >= 5 and 3 * han >= 0.2 * total
    eng = en >= 20 and en >= 0.2 * total
    if zh and eng:
        return "mixed"
    if zh or eng:
        return "zh" if zh else "en"
    return "zh" if 3 * han >= en else "en"


# Unfenced code in plain-text articles: indented lines, `x = Call(` openers, lone closing brackets, statements.
_CODE_LINE = re.compile(
    r"^(?:\s{4,}\S|\t\S|\s*[\w.\[\]'\"]+\s*=\s*[^=\s].*[(\[{,]\s*(?:#.*)?$|\s*[)\]}]+[,;)]*\s*$|"
    r"\s*(?:import|from|def|class|return|with|for|while|if|elif|else|try|except)\b[^\u4e00-\u9fff]*:?\s*$|"
    r"\s*(?:pip|python\d?|torchrun|deepspeed|accelerate|export|git|conda)\s+\S[^\u4e00-\u9fff]*$)")


def _code_run(lines: list[str], code: list[bool], i: int) -> int:
    """End (exclusive) of a run of at least two unfenced code lines starting at i, or i when there is none."""
    j = i
    while j < len(lines) and not code[j] and lines[j].strip() and _CODE_LINE.match(lines[j]):
        j += 1
    return j if j - i >= 2 else i


def _units(text: str) -> list[tuple[str, bool]]:
    """(text, atomic) units of a section: fenced code blocks and runs of error/traceback lines are atomic;
    prose is split into paragraphs."""
    lines = text.split("\n")
    code = fence_mask(lines)
    out: list[tuple[str, bool]] = []
    para: list[str] = []

    def flush() -> None:
        if any(ln.strip() for ln in para):
            out.append(("\n".join(para).strip("\n"), False))
        para.clear()

    i = 0
    while i < len(lines):
        if code[i]:
            flush()
            j = i + 1
            while j < len(lines) and code[j] and not re.match(r"^\s{0,3}(`{3,}|~{3,})\s*$", lines[j]):
                j += 1
            out.append(("\n".join(lines[i:j + 1]), True))
            i = j + 1
            continue
        if classify_line(lines[i]) is not None:
            j = i
            while j < len(lines) and not code[j] and (
                    classify_line(lines[j]) is not None
                    or (lines[j].startswith((" ", "\t")) and lines[j].strip() and j > i)):
                j += 1
            if j - i >= 2:
                flush()
                out.append(("\n".join(lines[i:j]), True))
                i = j
                continue
        end = _code_run(lines, code, i)
        if end > i:
            flush()
            out.append(("\n".join(lines[i:end]), True))
            i = end
            continue
        if not lines[i].strip():
            flush()
        else:
            para.append(lines[i])
        i += 1
    flush()
    return out


def _split_long(text: str, budget: int) -> list[str]:
    """Prose longer than `budget`: by sentences, and a sentence longer than that by characters."""
    pieces: list[str] = []
    cur = ""
    for sent in split_sentences(text):
        while len(sent) > budget:
            if cur:
                pieces.append(cur)
                cur = ""
            pieces.append(sent[:budget])
            sent = sent[budget:]
        joiner = "" if re.search(r"[\u4e00-\u9fff]$", cur) else " "
        if cur and len(cur) + len(joiner) + len(sent) > budget:
            pieces.append(cur)
            cur = sent
        else:
            cur = f"{cur}{joiner}{sent}" if cur else sent
    if cur:
        pieces.append(cur)
    return pieces


def _pack(units: list[tuple[str, bool]], budget: int) -> list[str]:
    """Group units into pieces of at most `budget` characters; a longer atomic unit is a piece of its own, a
    longer prose unit is split by sentences."""
    pieces: list[str] = []
    cur: list[str] = []
    size = 0
    for unit, atomic in units:
        if len(unit) > budget:
            if cur:
                pieces.append("\n\n".join(cur))
                cur, size = [], 0
            pieces.extend([unit] if atomic else _split_long(unit, budget))
            continue
        if size and size + 2 + len(unit) > budget:
            pieces.append("\n\n".join(cur))
            cur, size = [], 0
        cur.append(unit)
        size += len(unit) + (2 if len(cur) > 1 else 0)
    if cur:
        pieces.append("\n\n".join(cur))
    return pieces


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text)


def chunk_document(doc: Document, max_chars: int = 1200) -> list[Chunk]:
    """Section-aware chunks of a document.

    Args:
        doc: an extracted Document.
        max_chars: the size a chunk's text should stay under; an unsplittable block (code, traceback) that is
            longer becomes a chunk of its own.

    Returns:
        Chunks with ids `f"{doc_id}#{i}"`: first the title with the error lines, then the sections in order; a
        root cause or fixes that no section holds (entries' front matter) get chunks of their own.
    """
    default = "mixed" if len(doc.langs) > 1 else (doc.langs[0] if doc.langs else "en")
    out: list[Chunk] = []

    def add(section: str, prefix: str, content: str) -> None:
        content = content.strip("\n")
        if not content.strip():
            return
        i = len(out)
        out.append(Chunk(chunk_id=f"{doc.doc_id}#{i}", doc_id=doc.doc_id, ordinal=i, section=section,
                         lang=chunk_lang(content, default), text=prefix + content))

    head = "\n".join([doc.title, *doc.error_lines]).strip()
    if head:
        out.append(Chunk(chunk_id=f"{doc.doc_id}#0", doc_id=doc.doc_id, ordinal=0, section="title",
                         lang=chunk_lang(head, default), text=head))

    sections = list(doc.sections)
    body = "\n".join(ln for ln in doc.body.split("\n") if tidy_title(ln) != doc.title or not ln.strip())
    if not sections and body.strip():
        sections = [Section(heading="", kind="body", text=body)]
    covered = _norm("\n".join(s.text for s in sections))
    if doc.root_cause and _norm(doc.root_cause)[:80] not in covered:
        sections.append(Section(heading="Root cause", kind="root_cause", text=doc.root_cause))
    missing = [f.text for f in doc.fixes if _norm(f.text)[:80] not in covered]
    if missing:
        sections.append(Section(heading="Fix", kind="fix", text="\n\n".join(f"- {t}" for t in missing)))

    for sec in sections:
        prefix = "\n".join(x for x in (doc.title, sec.heading) if x) + "\n"
        for piece in _pack(_units(sec.text), max(200, max_chars - len(prefix))):
            add(sec.kind, prefix, piece)
    # A bilingual entry is indexed in its other language too (title and root cause), so that a report written in
    # that language finds it by its words as well as by its error lines.
    for local in doc.texts.values():
        if (local.title or doc.title) != doc.title or (local.root_cause or doc.root_cause) != doc.root_cause:
            text = local.root_cause or local.title
            for piece in _pack(_units(text), max(200, max_chars - len(local.title or doc.title) - 1)):
                add("root_cause", (local.title or doc.title) + "\n", piece)
    return out
