"""Symptoms, root cause and fix texts gathered from a document's sections by their kind."""
from __future__ import annotations

import re
from typing import NamedTuple

from kb.models import Section

from ingest.extract.sentences import join_sentences, route_sentences
from ingest.sections import heading_kinds

_ADVICE = re.compile(r"建议|最佳实践|实践|对策|预防|recommend|best practice|advice|prevention|tips", re.I)


class SectionFields(NamedTuple):
    symptoms: str
    root_cause: str
    fix_texts: list[str]          # texts of fix/workaround sections (or advice sections when there are none)


def fields_from_sections(sections: list[Section]) -> SectionFields:
    """symptoms, root_cause and fix texts gathered from sections by kind (combined headings split by cue words)."""
    parts: dict[str, list[str]] = {"symptoms": [], "root_cause": [], "fix": []}
    advice: list[str] = []
    for sec in sections:
        kinds = heading_kinds(sec.heading) if sec.heading else []
        if not kinds or sec.kind not in kinds:
            kinds = [sec.kind]
        kinds = list(dict.fromkeys("fix" if k == "workaround" else k for k in kinds))
        if len(kinds) > 1:
            for kind, sents in route_sentences(sec.text, kinds).items():
                if kind in parts and sents:
                    parts[kind].append(join_sentences(sents))
        elif kinds[0] in parts:
            parts[kinds[0]].append(sec.text)
        elif kinds[0] == "notes" and _ADVICE.search(sec.heading):
            advice.append(sec.text)
    return SectionFields(
        symptoms="\n\n".join(parts["symptoms"]).strip(),
        root_cause="\n\n".join(parts["root_cause"]).strip(),
        fix_texts=parts["fix"] or advice,
    )
