"""Starter-KB entries: Markdown with YAML front matter holding the structured fields.

    ---
    id: zero3-embed-size-mismatch
    title: ZeRO-3 leaves embeddings empty when loading a checkpoint
    lang: en                      # zh | en (or a list of both)
    libraries: [deepspeed, transformers]
    signatures:                   # verbatim error / warning lines → Document.error_lines
      - "size mismatch for model.embed_tokens.weight: copying a param with shape ..."
    root_cause: ...
    fixes:
      - text: Load the model inside deepspeed.zero.Init ...
        verified_by: maintainer   # repro | maintainer | reporter | none
    affected: "deepspeed>=0.14"
    fixed_in: "transformers 4.45"
    references: [huggingface/transformers#12345]
    repro: repro/zero3_embed.py
    ---
    ## Symptom
    ... the postmortem prose ...

`parse_entry` takes these fields as they are instead of extracting them; the body's headings give the sections.
"""
from __future__ import annotations

import difflib
import re
from typing import Any

import yaml

from kb.errors import BadInput
from kb.models import Document, Fix

from ingest.extract import (
    detect_langs,
    doc_id_from_source,
    fields_from_sections,
    find_libraries,
    find_references,
    find_tracebacks,
    find_versions,
    make_fixes,
    split_title,
)
from ingest.read import RawDocument
from ingest.sections import split_sections

FIELDS = ("id", "title", "lang", "libraries", "signatures", "root_cause", "fixes", "affected", "fixed_in",
          "references", "repro")
VERIFIED = ("repro", "maintainer", "reporter", "none")
_SPLIT = re.compile(r"\A\ufeff?\n*---[ \t]*\n(?P<yaml>.*?)(?:\n|^)(?:---|\.\.\.)[ \t]*(?:\n|\Z)(?P<body>.*)\Z",
                    re.S | re.M)
_ID = re.compile(r"^[\w][\w.-]{0,199}$")


def split_front_matter(text: str, source: str) -> tuple[dict[str, Any], str]:
    """(front matter mapping, body) of an entry.

    Raises:
        BadInput: no closing `---`, invalid YAML, or YAML that is not a mapping.
    """
    if not re.match(r"\A\ufeff?\n*---[ \t]*\n", text):
        raise BadInput(f"{source}: no front matter: an entry must start with a '---' line")
    m = _SPLIT.match(text)
    if not m:
        raise BadInput(f"{source}: front matter is not closed: add a '---' line after the YAML fields")
    try:
        data = yaml.safe_load(m.group("yaml"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or exc.__class__.__name__
        raise BadInput(f"{source}: front matter is not valid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise BadInput(f"{source}: front matter must be a mapping of fields (id, title, ...), "
                       f"got a {type(data).__name__}")
    return data, m.group("body")


def _bad(source: str, field: str, problem: str) -> BadInput:
    return BadInput(f"{source}: front matter field '{field}' {problem}")


def _text(data: dict[str, Any], field: str, source: str) -> str | None:
    value = data.get(field)
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip()
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return ", ".join(str(v).strip() for v in value)
    raise _bad(source, field, f"must be text, got {type(value).__name__}")


def _text_list(data: dict[str, Any], field: str, source: str) -> list[str]:
    value = data.get(field)
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise _bad(source, field, f"must be a list of text, got {type(value).__name__}")
    out = []
    for n, v in enumerate(value, 1):
        if not isinstance(v, (str, int, float)) or isinstance(v, bool):
            raise _bad(source, field, f"item {n} must be text, got {type(v).__name__}")
        if str(v).strip():
            out.append(str(v).rstrip("\n") if field == "signatures" else str(v).strip())
    return out


def _fixes(data: dict[str, Any], source: str) -> list[Fix]:
    value = data.get("fixes")
    if value is None:
        return []
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, list):
        raise _bad(source, "fixes", f"must be a list of {{text, verified_by}}, got {type(value).__name__}")
    out = []
    for n, item in enumerate(value, 1):
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict):
            raise _bad(source, "fixes", f"item {n} must be a mapping with 'text' and 'verified_by'")
        unknown = set(item) - {"text", "verified_by"}
        if unknown:
            raise _bad(source, "fixes", f"item {n} has unknown keys: {', '.join(sorted(map(str, unknown)))}")
        text = item.get("text")
        if not isinstance(text, str) or not text.strip():
            raise _bad(source, "fixes", f"item {n} needs a non-empty 'text'")
        verified = item.get("verified_by", "none")
        if verified is None or verified is False:
            verified = "none"
        if verified not in VERIFIED:
            raise _bad(source, "fixes", f"item {n} has verified_by={verified!r}; use one of {', '.join(VERIFIED)}")
        out.append(Fix(text=text.strip(), verified_by=verified))
    return out


def _langs(data: dict[str, Any], source: str) -> list[str]:
    value = data.get("lang")
    if value is None:
        return []
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _bad(source, "lang", "must be 'zh' or 'en' (or a list of them)")
    out = []
    for v in values:
        v = v.strip().lower()
        v = {"cn": "zh", "zh-cn": "zh", "chinese": "zh", "english": "en"}.get(v, v)
        if v not in ("zh", "en"):
            raise _bad(source, "lang", f"is {v!r}; use 'zh' or 'en'")
        out.append(v)
    return list(dict.fromkeys(out))


def parse_entry(raw: RawDocument, source: str) -> Document:
    """Build a Document from an entry: structured fields from its front matter, sections from its body.

    Fields the front matter leaves out (title, lang, root_cause, fixes, libraries) are extracted from the body
    the same way as for other postmortems.

    Args:
        raw: the entry as read (format "entry").
        source: its path relative to the ingested folder.

    Returns:
        The Document; doc_id is the front matter's `id`.

    Raises:
        BadInput: the front matter is malformed; the message names the file and the problem.
    """
    data, body = split_front_matter(raw.text, source)
    for key in data:
        # extra fields (sources, tags, ...) are allowed; a near miss of a known one is a typo worth stopping for
        near = difflib.get_close_matches(str(key), FIELDS, n=1, cutoff=0.8)
        if key not in FIELDS and near:
            raise BadInput(f"{source}: unknown front matter field '{key}'; did you mean '{near[0]}'?")
    doc_id = _text(data, "id", source) or doc_id_from_source(source)
    if not _ID.match(doc_id):
        raise _bad(source, "id", f"is {doc_id!r}; use letters, digits, '.', '_' or '-'")
    body = body.strip("\n") + "\n" if body.strip() else ""
    title = _text(data, "title", source)
    if title:
        # the body may repeat the title as a `# ` heading; its other headings are sections
        first = body.lstrip("\n").split("\n", 1)
        rest = first[1] if len(first) > 1 and re.match(r"^#\s", first[0]) else body
    else:
        title, rest = split_title(body) if body else ("", "")
    if not title:
        raise _bad(source, "title", "is missing and the body has no heading to take it from")
    sections = split_sections(rest) if rest.strip() else []
    derived = fields_from_sections(sections)

    root_cause = _text(data, "root_cause", source) or derived.root_cause
    fixes = _fixes(data, source) or make_fixes(derived.fix_texts)
    libraries = [x.lower() for x in _text_list(data, "libraries", source)] or find_libraries(body)
    references = list(dict.fromkeys(_text_list(data, "references", source) + find_references(body)))
    affected = _text(data, "affected", source)
    fixed_in = _text(data, "fixed_in", source)
    versions = find_versions("\n".join(x for x in (affected, fixed_in, body) if x))
    return Document(
        curated=True,
        doc_id=doc_id,
        source=source,
        content_hash=raw.content_hash,
        title=title,
        langs=_langs(data, source) or detect_langs(f"{title}\n{root_cause}\n{body}"),
        libraries=list(dict.fromkeys(libraries)),
        symptoms=derived.symptoms,
        error_lines=_text_list(data, "signatures", source),
        tracebacks=find_tracebacks(body),
        root_cause=root_cause,
        fixes=fixes,
        versions=versions,
        references=references,
        sections=sections,
        body=body,
        affected=affected,
        fixed_in=fixed_in,
        repro=_text(data, "repro", source),
    )
