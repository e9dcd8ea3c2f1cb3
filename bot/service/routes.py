"""The JSON API: /v1/diagnose, /v1/search, /v1/entries, and /healthz."""
from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, ValidationError

from bot.service.errors import ServiceError, error_responses
from bot.service.jsonbody import parse_json
from bot.service.state import ServiceState, service_state
from kb.models import Answer, Document
from kb.report_input import cap_report, decode_report

router = APIRouter()
State = Annotated[ServiceState, Depends(service_state)]


class DiagnoseRequest(BaseModel):
    text: str = Field(description="The report: a traceback, a log excerpt, an issue body")
    top: int = Field(3, ge=1, le=20, description="At most this many matches")
    name: str = Field("<request>", max_length=200, description="A name for the input, echoed as `input`")
    lang: Literal["auto", "en", "zh"] | None = Field(
        None, description="Language of the answer: en, zh, or auto (the report's); default: TRIAGE_LANG")


class SearchHit(BaseModel):
    doc_id: str
    chunk_id: str
    source: str
    section: str
    text: str
    score: float
    dense: float
    bm25: float


class EntrySummary(BaseModel):
    entry_id: str
    title: str
    source: str
    langs: list[str]
    libraries: list[str]


class Health(BaseModel):
    ok: bool
    status: str
    entries: int | None = None
    kb: str | None = None
    error: str | None = None     # why loading failed (one line), when it did


_DIAGNOSE_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": DiagnoseRequest.model_json_schema()},
            "multipart/form-data": {
                "schema": {"type": "object", "required": ["file"],
                           "properties": {"file": {"type": "string", "format": "binary"},
                                          "top": {"type": "integer", "default": 3},
                                          "lang": {"type": "string", "enum": ["auto", "en", "zh"]}}}
            },
            "text/plain": {"schema": {"type": "string"}},
        },
    }
}


async def _read_diagnose_request(request: Request, max_report_bytes: int) -> DiagnoseRequest:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype == "multipart/form-data":
        form = await request.form()
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise ServiceError(422, "invalid_request", "file: send the report as a form field named 'file'")
        name = upload.filename or "<upload>"
        fields = {"text": _decoded(await upload.read(), max_report_bytes, name), "name": name,
                  "top": form.get("top", 3), "lang": form.get("lang")}
    elif ctype == "text/plain":
        fields = {"text": _decoded(await request.body(), max_report_bytes, "body")}
    elif ctype in ("application/json", ""):
        try:
            fields = parse_json(await request.body())
        except ValueError as exc:
            raise ServiceError(400, "bad_request", f"The body cannot be read: {exc}.") from None
    else:
        raise ServiceError(415, "unsupported_media_type",
                           "Send JSON {\"text\": ...}, a multipart form with a 'file' field, or text/plain.")
    try:
        return DiagnoseRequest.model_validate(fields)
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]) from None


def _decoded(data: bytes, max_report_bytes: int, what: str) -> str:
    text, problem = decode_report(data, max_report_bytes)
    if problem:
        raise ServiceError(400, "bad_input", f"{what}: {problem}")
    return text


@router.post("/v1/diagnose", response_model=Answer, openapi_extra=_DIAGNOSE_BODY,
             responses=error_responses(400, 413, 415, 422, 503),
             summary="Diagnose a report (the object `diagnose --json` prints, byte for byte)")
async def diagnose(request: Request, state: State) -> Response:
    state.require_ready()
    body = await _read_diagnose_request(request, state.settings.max_report_bytes)
    text = cap_report(body.text, state.settings.max_report_bytes)
    diag = await run_in_threadpool(state.diagnose, text, body.name, body.top, lang=body.lang)
    from kb.diagnose import answer_json          # loaded with the KB, not with the app

    # Written by the same function as `diagnose --json`, so the two stay the same bytes (with the KB they name).
    return Response(answer_json(diag, state.kb_identity) + "\n", media_type="application/json")


@router.get("/v1/search", response_model=list[SearchHit], responses=error_responses(422, 503), summary="Hybrid (dense + BM25) search")
async def search(state: State, q: Annotated[str, Query(min_length=1, max_length=10_000)],
                 top: Annotated[int, Query(ge=1, le=100)] = 5) -> list[SearchHit]:
    results = await run_in_threadpool(state.search, q, top)
    return [SearchHit(**r.__dict__) for r in results]


@router.get("/v1/entries", response_model=list[EntrySummary], responses=error_responses(503), summary="Every entry of the knowledge base")
async def entries(state: State) -> list[EntrySummary]:
    state.require_ready()
    return [EntrySummary(entry_id=d.doc_id, title=d.title, source=d.source, langs=d.langs, libraries=d.libraries)
            for d in state.kb.documents().values()]


@router.get("/v1/entries/{entry_id}", response_model=Document, responses=error_responses(404, 503), summary="One entry with all extracted fields")
async def entry(entry_id: str, state: State) -> Document:
    state.require_ready()
    doc = state.kb.documents().get(entry_id)
    if doc is None:
        raise ServiceError(404, "not_found", f"No entry {entry_id!r} in this knowledge base (see /v1/entries).")
    return doc


@router.get("/healthz", response_model=Health, response_model_exclude_none=True, responses={503: {"model": Health, "description": "Not ready"}}, summary="200 once the knowledge base is loaded, else 503")
async def healthz(state: State):
    if state.ready:
        return Health(ok=True, status="ready", entries=len(state.kb.documents()), kb=str(state.kb.path))
    status = "failed" if state.load_error else "loading"
    return JSONResponse(Health(ok=False, status=status, error=state.load_error).model_dump(), status_code=503)
