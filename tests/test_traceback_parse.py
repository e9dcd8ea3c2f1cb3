"""Report parser, data-driven over tests/data/tracebacks/<case>.txt + <case>.json (ids from file names)."""
import json
import random
import time
from pathlib import Path

import pytest

from kb.traceback.parse import parse_report
from kb.traceback.signature import signature_of_event

DATA = Path(__file__).parent / "data" / "tracebacks"
CASES = sorted(p.stem for p in DATA.glob("*.json"))


def _load(case: str):
    text = (DATA / f"{case}.txt").read_text(encoding="utf-8")
    return parse_report(text), json.loads((DATA / f"{case}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=CASES)
def test_case(case):
    report, exp = _load(case)
    prim = report.primary
    want = exp["primary"]
    assert prim is not None, report.notes
    assert prim.role == "primary"
    assert prim.kind == want["kind"]
    if "type" in want:
        assert prim.type == want["type"]
    assert prim.message.startswith(want["message_prefix"]), prim.message
    if "origin" in want:
        assert prim.origin == want["origin"]
    if "frames_count" in want:
        assert len(prim.frames) == want["frames_count"]
    for lib in want.get("libraries", []):
        assert lib in {f.library for f in prim.frames}
    if "last_frame_module" in want:
        assert prim.frames[-1].module == want["last_frame_module"]
    if "last_frame_code" in want:
        assert prim.frames[-1].code == want["last_frame_code"]
    if "ranks" in want:
        assert prim.ranks == want["ranks"]
    if "message_lines" in exp:
        assert len(prim.message.splitlines()) == exp["message_lines"]
    if "chain_length" in exp:
        assert len(report.chain()) == exp["chain_length"]
    for role, n in exp.get("roles", {}).items():
        assert sum(e.role == role for e in report.events) == n, [(e.role, e.type, e.message[:40]) for e in report.events]
    for kind, n in exp.get("event_count", {}).items():
        assert sum(e.kind == kind for e in report.events) == n
    if "event_total" in exp:
        assert len(report.events) == exp["event_total"], [(e.kind, e.message[:60]) for e in report.events]
    for t in exp.get("event_types", []):
        assert t in {e.type for e in report.events}
    for text in exp.get("event_messages_contain", []):
        assert any(text in e.message for e in report.events)
    sig = signature_of_event(prim)
    for name, value in exp.get("primary_facts", {}).items():
        assert sig.facts.get(name) == value, (name, sig.facts)
    for name in exp.get("primary_facts_absent", []):
        assert name not in sig.facts
    if "template_contains" in exp:
        assert exp["template_contains"] in sig.template, sig.template
    for k, v in exp.get("env", {}).items():
        assert report.env.get(k) == v, report.env
    for note in exp.get("notes_contain", []):
        assert any(note in n for n in report.notes), report.notes
    for line in exp.get("error_lines_contain", []):
        assert line in report.error_lines
    for line in exp.get("error_lines_excludes", []):
        assert all(line not in e for e in report.error_lines)
    for text in exp.get("prose_contains", []):
        assert text in report.prose, report.prose
    for text in exp.get("prose_excludes", []):
        assert text not in report.prose, report.prose
    if "truncated" in exp:
        assert report.truncated is exp["truncated"]


def test_every_case_has_both_files():
    assert sorted(p.stem for p in DATA.glob("*.txt")) == CASES


@pytest.mark.parametrize(
    "text",
    ["", "   \n\n\t", "\x00\x01\x02" * 1000, bytes(range(256)).decode("latin-1") * 500],
    ids=["empty", "blank", "control", "latin1"],
)
def test_empty_and_binary_input(text):
    report = parse_report(text)
    assert report.events == [] or report.primary is not None
    assert report.notes


def test_random_binary_junk_does_not_blow_up():
    rng = random.Random(7)
    junk = "".join(chr(rng.randrange(0, 0x3000)) for _ in range(300_000))
    start = time.perf_counter()
    parse_report(junk)
    assert time.perf_counter() - start < 10


def test_huge_log_is_cut_and_fast():
    line = "2024-01-01 00:00:00,000 - INFO - step {} loss 1.234 lr 2e-5 grad_norm 0.88\n"
    body = "".join(line.format(i) for i in range(700_000))               # ~55 MB
    tail = ("Traceback (most recent call last):\n  File \"/w/train.py\", line 9, in <module>\n    step()\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n")
    text = body + tail
    assert len(text) > 50_000_000
    start = time.perf_counter()
    report = parse_report(text)
    elapsed = time.perf_counter() - start
    assert elapsed < 20, elapsed
    assert report.truncated
    assert any("input cut" in n for n in report.notes)
    assert report.primary is not None and report.primary.type == "torch.OutOfMemoryError"


def test_long_line_without_newlines():
    text = "RuntimeError: " + "x" * 3_000_000
    start = time.perf_counter()
    report = parse_report(text)
    assert time.perf_counter() - start < 10
    assert report.primary is not None


def test_adversarial_regex_inputs_are_linear():
    nasty = [
        "File \"" + "a" * 100_000,
        "[rank1]:" * 50_000,
        "size mismatch for " + "a." * 50_000,
        "`" * 100_000,
        "/" * 200_000,
        "Error: " + "(" * 100_000,
        "torch.Size([" + "1, " * 50_000,
        ("A" * 80 + ".") * 5000 + "Error: x",
    ]
    for text in nasty:
        start = time.perf_counter()
        parse_report(text)
        assert time.perf_counter() - start < 5, text[:40]


def test_report_is_serializable():
    report, _ = _load("ranks_interleaved_oom")
    again = type(report).model_validate_json(report.model_dump_json())
    assert again == report


DEV = Path("/work/shared/eval/dev/queries")


@pytest.mark.skipif(not DEV.is_dir(), reason="dev queries not present")
def test_dev_queries_parse():
    """Smoke test over the real dev reports: no crash, and nearly every report yields a primary event."""
    files = sorted(DEV.glob("*.txt"))
    reports = [parse_report(f.read_text(encoding="utf-8")) for f in files]
    with_primary = sum(r.primary is not None for r in reports)
    assert with_primary >= len(files) - 2
    for r in reports:
        if r.primary is not None:
            assert r.primary.role == "primary"
            assert sum(e.role == "primary" for e in r.events) == 1


def test_a_prose_sentence_naming_a_failure_in_plain_words_becomes_the_event():
    rep = parse_report("Fine-tuning on 8 GPUs, the run goes out of GPU memory after 10 steps.\nAny advice?")
    assert [e.origin for e in rep.events] == ["prose"]
    assert "out of GPU memory" in rep.events[0].message


def test_tab_indented_source_lines_stay_with_their_frames():
    text = ('Traceback (most recent call last):\n  File "/x/train.py", line 3, in <module>\n'
            '\tmodel.load_state_dict(sd)\nKeyError: \'lm_head.weight\'\n')
    rep = parse_report(text)
    assert rep.primary.frames[-1].code == "model.load_state_dict(sd)"
    assert "load_state_dict" not in rep.prose


def test_an_error_quoted_in_a_reporter_sentence_counts_when_the_whole_paste_is_one_code_block():
    text = ("```\nI am loading the model with device_map and I met `RuntimeError: Expected all tensors to be on the "
            "same device, but found at least two devices, cuda:0 and cpu!` when generating\n```")
    rep = parse_report(text)
    assert rep.primary is not None and rep.primary.type == "RuntimeError"
    assert rep.primary.origin == "inline"


def test_a_warning_is_no_primary_when_the_traceback_after_it_is_cut_before_its_first_frame():
    warning = ("/opt/venv/lib/python3.11/site-packages/foo/bar.py:88: FutureWarning: `use_cache` was not set. It "
               "will default to True.\n  warnings.warn(\n")
    cut = parse_report("running my script gives\n```\n" + warning + "Traceback (most recent call last):\n```\n")
    assert cut.primary is None and [e.role for e in cut.events] == ["secondary"]
    assert any("cut before its first frame" in n for n in cut.notes)
    # the same warning alone, or before a traceback that shows its error, is read as before
    alone = parse_report(warning)
    assert alone.primary is not None and alone.primary.kind == "warning"
    full = parse_report(warning + "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
                        "    main()\nValueError: bad config\n")
    assert full.primary is not None and full.primary.type == "ValueError"
    framed = parse_report(warning + "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\n"
                          "    main()\n")
    assert framed.primary is not None and framed.primary.origin == "frame"


def test_the_source_line_echoed_under_a_warning_is_not_part_of_it():
    report = parse_report("C:\\env\\lib\\site-packages\\bnb\\cuda_setup\\main.py:145: UserWarning: WARNING: the "
                          "following directories were found to be non-existent: {WindowsPath('D')}\n  warn(msg)\n"
                          "/x/tokenization_utils_base.py:1602: FutureWarning: `clean_up_tokenization_spaces` was not "
                          "set.\n  warnings.warn(\n")
    assert [e.type for e in report.events] == ["UserWarning", "FutureWarning"]
    for e in report.events:
        assert "warn(" not in e.message and not any("warn(" in x for x in e.lines), e


def test_vllm_logger_prefixes_with_a_bracketed_location_are_stripped_and_keep_an_error_records_level():
    log = ("ERROR 04-06 20:46:48 [multiproc_worker_utils.py:238] Exception in worker VllmWorkerProcess while "
           "processing method init_device.\n"
           "ERROR 04-06 20:46:48 [multiproc_worker_utils.py:238] Traceback (most recent call last):\n"
           "ERROR 04-06 20:46:48 [multiproc_worker_utils.py:238]   File \"/x/vllm/worker.py\", line 10, in init\n"
           "ERROR 04-06 20:46:48 [multiproc_worker_utils.py:238]     init_dist()\n"
           "ERROR 04-06 20:46:48 [multiproc_worker_utils.py:238] torch.distributed.DistBackendError: NCCL error in: "
           "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled system error\n")
    report = parse_report(log)
    assert report.primary is not None and report.primary.type == "torch.distributed.DistBackendError"
    assert [e.role for e in report.events if e.message.startswith("Exception in worker")] == ["wrapper"]
    # what is left when the reporter cut the level and the time
    cut = parse_report("[serving_chat.py:885] Traceback (most recent call last):\n"
                       "[serving_chat.py:885]   File \"/x/vllm/client.py\", line 667, in _process_request\n"
                       "[serving_chat.py:885]     raise request_output\n"
                       "[serving_chat.py:885] RuntimeError: Failed to apply the processor on data\n")
    assert cut.primary is not None and cut.primary.type == "RuntimeError"
    assert not any("serving_chat" in e.message for e in cut.events)
    # a record the logger marked ERROR is an error line even in words no pattern knows; an INFO one is not
    said = parse_report("INFO 03-05 00:25:44 [core.py:90] Loading weights took 3.2 seconds\n"
                        "ERROR 03-05 00:25:45 [core.py:1094] Invocation of collective_rpc method failed\n")
    assert [e.message for e in said.events] == ["Invocation of collective_rpc method failed"]


def test_a_vllm_worker_line_that_carries_the_error_is_no_wrapper():
    report = parse_report("Exception in worker VllmWorkerProcess while processing method init_device: Cannot "
                          "re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
                          "'spawn' start method\n")
    assert report.primary is not None and report.primary.role == "primary"
    assert "re-initialize CUDA" in report.primary.message


def test_a_fence_line_at_any_indentation_ends_a_message():
    # a fenced block pasted inside an indented one: its closing fence is Markdown, not the message's last line
    text = ("```\n    `smallkF` is not supported because:\n        xFormers wasn't build with CUDA support\n"
            "        unsupported embed per head: 40\n        ```\n```\n")
    (event,) = parse_report(text).events
    assert "```" not in event.message and event.message.endswith("unsupported embed per head: 40")
