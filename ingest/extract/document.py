"""`extract_document`: one read file -> a `Document`, every field from its own module."""
from __future__ import annotations

import re

from kb.lang import detect_langs
from kb.models import Document, Fix, Section
from kb.traceback.lines import find_error_lines

from ingest.clean import clean_text
from ingest.extract.error_lines import find_all_error_lines, symptom_output
from ingest.extract.fields import fields_from_sections
from ingest.extract.fixes import make_fixes, verified_by
from ingest.extract.libraries import find_libraries
from ingest.extract.references import find_references
from ingest.extract.sentences import (CAUSE_CUE, CONSEQUENCE, FIX_ACT, FIX_CUE, MECHANISM, cue_sentences,
                                      split_sentences)
from ingest.extract.title import doc_id_from_source, split_title
from ingest.extract.tracebacks import find_tracebacks
from ingest.extract.versions import find_versions
from ingest.frontmatter import parse_entry
from ingest.read import RawDocument
from ingest.sections import CONCLUSION, heading_text, split_sections


def extract_document(raw: RawDocument, source: str, boilerplate: set[str] | frozenset[str] = frozenset()) -> Document:
    """Extract a `Document` from one read file.

    Args:
        raw: the file as read by `ingest.read.read_path`.
        source: its path relative to the ingested folder (drives the doc_id).
        boilerplate: corpus boilerplate keys from `ingest.clean.find_boilerplate`.

    Returns:
        The Document; entries with front matter take their structured fields from it.

    Raises:
        BadInput: an entry's front matter is malformed.
    """
    if raw.format == "entry":
        return parse_entry(raw, source)
    body = clean_text(raw.text, boilerplate).text
    title, rest = split_title(body)
    sections = split_sections(rest)
    fields = fields_from_sections(sections)
    error_lines = find_all_error_lines(rest) or symptom_output(sections)   # the title paraphrases the error
    if not title:
        title = error_lines[0][:150] if error_lines else re.sub(r"[_-]+", " ", doc_id_from_source(source))

    root_cause = fields.root_cause
    if not root_cause:
        root_cause = " ".join(cue_sentences(rest, CAUSE_CUE, 3)
                              or cue_sentences(rest, CONSEQUENCE, 2, exclude=FIX_CUE)
                              or conclusion(sections)
                              or cue_sentences(rest, MECHANISM, 2, exclude=FIX_ACT))
    fixes = make_fixes(fields.fix_texts)
    if not fixes:
        cues = cue_sentences(rest, FIX_CUE, 3, exclude=CAUSE_CUE)
        doc_status, _ = verified_by(rest)
        for sent in cues:
            own, negated = verified_by(sent)
            fixes.append(Fix(text=sent, verified_by=own if own != "none" or negated else doc_status))
    symptoms = fields.symptoms
    if not symptoms:
        paras = [p for p in re.split(r"\n\s*\n", rest) if find_error_lines(p)]
        symptoms = "\n\n".join(paras)[:1500].strip()

    references = find_references(body)
    libraries = find_libraries(body)
    for ref in references:                 # huggingface/peft#2415 names peft even if the text does not
        repo = ref.split("#")[0].split("/")[-1] if "#" in ref else ""
        for name in find_libraries(repo.replace("-", " ")):
            if name not in libraries:
                libraries.append(name)
    return Document(
        doc_id=doc_id_from_source(source),
        source=source,
        content_hash=raw.content_hash,
        title=title,
        langs=detect_langs(body),
        libraries=libraries,
        symptoms=symptoms,
        error_lines=error_lines,
        tracebacks=find_tracebacks(body),
        root_cause=root_cause,
        fixes=fixes,
        versions=find_versions(body),
        references=references,
        sections=sections,
        body=body,
    )


def conclusion(sections: list[Section]) -> list[str]:
    """The first sentences of a conclusion section ("结论", "Conclusion"): where a write-up without a cause heading or
    cue word says what went wrong."""
    for sec in sections:
        if heading_text(sec.heading).lower() in CONCLUSION:
            sents = [x for x in split_sentences(sec.text) if not x.startswith(("```", "~~~")) and len(x) >= 8]
            return sents[:2]
    return []
