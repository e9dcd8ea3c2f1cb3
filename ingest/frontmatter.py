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

The bundled entries are written in both languages: `title_en` / `title_zh`, `root_cause_en` / `root_cause_zh`,
and each fix `{text_en, text_zh, verified_by}`, with `lang: [en, zh]`. Such an entry must give every one of these
texts in each language it is written in (its `lang`, else the languages its fields use); an entry bundled with
triage-kb (kb/data/entries) must be written in both. An entry of your own may use either form, or the `_en` / `_zh`
fields of one language.

`parse_entry` takes these fields as they are instead of extracting them; the body's headings give the sections.
"""
from __future__ import annotations

import difflib
import re
from typing import Any

import yaml

from kb.errors import BadInput
from kb.lang import LANGS, detect_langs, main_lang
from kb.models import Document, Fix, LocalText
from kb.starter import ENTRIES_DIR

from ingest.extract.fields import fields_from_sections
from ingest.extract.fixes import make_fixes
from ingest.extract.libraries import find_libraries
from ingest.extract.references import find_references
from ingest.extract.title import doc_id_from_source, split_title
from ingest.extract.tracebacks import find_tracebacks
from ingest.extract.versions import find_versions
from ingest.read import RawDocument
from ingest.sections import split_sections

FIELDS = ("id", "title", "lang", "libraries", "signatures", "root_cause", "fixes", "affected", "fixed_in",
          "references", "repro", "title_en", "title_zh", "root_cause_en", "root_cause_zh")
LOCALIZED = ("title", "root_cause")      # fields written per language as <field>_en / <field>_zh
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


def _fixes(data: dict[str, Any], source: str, langs: list[str] | None = None) -> list[tuple[dict[str, str], str]]:
    """Each fix as ({"": text} or {lang: text, ...}, verified_by). `langs`: the languages the entry is written in
    (None: the one-language form, `text`); each fix must then give `text_<lang>` for every one of them."""
    value = data.get("fixes")
    if value is None:
        return []
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, list):
        raise _bad(source, "fixes", f"must be a list of {{text, verified_by}}, got {type(value).__name__}")
    keys = ["text"] if langs is None else [f"text_{lang}" for lang in langs]
    allowed = {"text", "verified_by"} | {f"text_{lang}" for lang in LANGS}
    out = []
    for n, item in enumerate(value, 1):
        if isinstance(item, str) and langs is None:
            item = {"text": item}
        if not isinstance(item, dict):
            raise _bad(source, "fixes", f"item {n} must be a mapping with {', '.join(map(repr, keys))} and 'verified_by'")
        unknown = set(item) - allowed
        if unknown:
            raise _bad(source, "fixes", f"item {n} has unknown keys: {', '.join(sorted(map(str, unknown)))}")
        texts: dict[str, str] = {}
        for key in keys:
            text = item.get(key)
            if not isinstance(text, str) or not text.strip():
                why = "" if langs is None else f" (the entry is written in {' and '.join(langs)})"
                raise _bad(source, "fixes", f"item {n} needs a non-empty '{key}'{why}")
            texts[key[5:]] = text.strip()
        extra = [k for k in item if k.startswith("text") and k not in keys]
        if extra:
            form = ("the one-language 'text'" if langs is None
                    else f"'{', '.join(keys)}' (the entry is written in {' and '.join(langs)})")
            raise _bad(source, "fixes", f"item {n} has '{extra[0]}' beside {form}; use one form")
        verified = item.get("verified_by", "none")
        if verified is None or verified is False:
            verified = "none"
        if verified not in VERIFIED:
            raise _bad(source, "fixes", f"item {n} has verified_by={verified!r}; use one of {', '.join(VERIFIED)}")
        out.append((texts, verified))
    return out


def _written_langs(data: dict[str, Any], source: str, bundled: bool) -> list[str] | None:
    """The languages an entry in the `_en` / `_zh` form is written in (None: the one-language form).

    Its `lang` when given, else the languages its fields use; a bundled entry must be written in both. Every
    localized field the entry gives must be given in each of these languages (checked here for title and root
    cause, by `_fixes` for the fixes)."""
    used = {lang for lang in LANGS for f in LOCALIZED if data.get(f"{f}_{lang}") is not None}
    fixes = data.get("fixes")
    for item in fixes if isinstance(fixes, list) else [fixes] if isinstance(fixes, dict) else []:
        if isinstance(item, dict):
            used |= {lang for lang in LANGS if f"text_{lang}" in item}
    for f in LOCALIZED:
        both = [f"{f}_{lang}" for lang in LANGS if data.get(f"{f}_{lang}") is not None]
        if data.get(f) is not None and both:
            raise _bad(source, f, f"is given beside '{both[0]}'; use one form: '{f}' or '{f}_en' / '{f}_zh'")
    if not used:
        if bundled:
            raise _bad(source, "title_en",
                       "is missing: a bundled entry is written in both languages (title_en, title_zh, "
                       "root_cause_en, root_cause_zh, fixes with text_en and text_zh)")
        return None
    for f in LOCALIZED:
        if data.get(f) is not None:
            raise _bad(source, f, f"is in the one-language form in an entry written with _en / _zh fields; use "
                                  f"'{f}_en' / '{f}_zh'")
    declared = _langs(data, source)
    langs = [lang for lang in LANGS if lang in declared] if declared else [lang for lang in LANGS if lang in used]
    if bundled and langs != list(LANGS):
        raise _bad(source, "lang", f"is {langs}: a bundled entry is written in both languages, lang: [en, zh]")
    stray = sorted(used - set(langs))
    if stray:
        raise _bad(source, "lang", f"is [{', '.join(langs)}] but the entry has {stray[0]} fields; add {stray[0]} "
                                   f"to lang or remove them")
    for lang in langs:
        if not _text(data, f"title_{lang}", source):
            raise _bad(source, f"title_{lang}", f"is missing (the entry is written in {' and '.join(langs)})")
    if any(data.get(f"root_cause_{lang}") is not None for lang in LANGS) or bundled:
        for lang in langs:
            if not _text(data, f"root_cause_{lang}", source):
                raise _bad(source, f"root_cause_{lang}",
                           f"is missing (the entry is written in {' and '.join(langs)})")
    return langs


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
    bundled = _is_bundled(raw)
    for key in data:
        # extra fields (sources, tags, ...) are allowed; a near miss of a known one is a typo worth stopping for
        near = difflib.get_close_matches(str(key), FIELDS, n=1, cutoff=0.8)
        if key not in FIELDS and near:
            raise BadInput(f"{source}: unknown front matter field '{key}'; did you mean '{near[0]}'?")
    doc_id = _text(data, "id", source) or doc_id_from_source(source)
    if not _ID.match(doc_id):
        raise _bad(source, "id", f"is {doc_id!r}; use letters, digits, '.', '_' or '-'")
    body = body.strip("\n") + "\n" if body.strip() else ""
    written = _written_langs(data, source, bundled)
    # Which language's title, root cause and fixes the index reads: the entry's only one, or the language its body
    # is written in (the bundled entries' bodies keep the language they were first written in).
    primary = None if written is None else written[0] if len(written) == 1 else main_lang(body)
    title = _text(data, "title" if primary is None else f"title_{primary}", source)
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

    root_cause = _text(data, "root_cause" if primary is None else f"root_cause_{primary}", source) or derived.root_cause
    given = _fixes(data, source, written)
    fixes = ([Fix(text=texts["" if primary is None else primary], verified_by=v) for texts, v in given]
             or make_fixes(derived.fix_texts))
    texts = {}
    if written is not None and len(written) > 1:
        texts = {lang: LocalText(title=_text(data, f"title_{lang}", source) or "",
                                 root_cause=_text(data, f"root_cause_{lang}", source) or root_cause,
                                 fixes=[t[lang] for t, _ in given] or [f.text for f in fixes])
                 for lang in written}
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
        langs=_langs(data, source) or written or detect_langs(f"{title}\n{root_cause}\n{body}"),
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
        texts=texts,
    )


def _is_bundled(raw: RawDocument) -> bool:
    """Whether the entry is one of those bundled with triage-kb (kb/data/entries), which must be bilingual."""
    try:
        return raw.path.resolve().parent == ENTRIES_DIR.resolve()
    except (OSError, AttributeError):
        return False
