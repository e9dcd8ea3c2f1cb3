"""Error lines that have no exception prefix, in postmortems: tool output that says a failure in words, library
messages quoted inline, warnings.warn lines that read like sentences, the dynamic loader, logger prefixes. And
`triage eval-extract` on the labelled extraction set (tests/data/extraction)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ingest.extract.error_lines import find_all_error_lines
from kb.traceback.lines import classify_line, clean_line, output_failure

EXTRACTION = Path(__file__).resolve().parent / "data" / "extraction"

LOG_BLOCK = """The import failed like this:

```
WARNING: BNB_CUDA_VERSION=124 environment variable detected; loading libbitsandbytes_cuda124.so.
If you use the manual override make sure the right libcudart.so is in your LD_LIBRARY_PATH

Could not find the bitsandbytes CUDA binary at PosixPath('/opt/bnb/libbitsandbytes_cuda124.so')
CUDA kernel errors might be asynchronously reported at some other API call
- This IS NOT expected if you are initializing the model from a checkpoint of another architecture
pip install bitsandbytes --no-binary
config = dict(load_in_4bit=True, fails=None)
```

We checked the wheel first.
"""


def test_a_failure_said_in_words_inside_a_code_block_is_an_error_line():
    lines = find_all_error_lines(LOG_BLOCK)
    assert "Could not find the bitsandbytes CUDA binary at PosixPath('/opt/bnb/libbitsandbytes_cuda124.so')" in lines
    # advice, boilerplate, a continuation, a command and code are not
    assert not any(l.startswith(("If you use", "CUDA kernel errors", "- This", "pip ", "config")) for l in lines), lines


def test_an_indented_log_line_in_plain_text_counts_but_a_wrapped_sentence_does_not():
    text = ("the script dies on import:\n\n"
            "  CUDA Setup failed despite GPU being available. Run the diagnostics command for details.\n\n"
            "The maintainer replied\n  that this error usually means the cards cannot talk to each other and the "
            "routing needs fixing.\n")
    lines = find_all_error_lines(text)
    assert lines == ["CUDA Setup failed despite GPU being available. Run the diagnostics command for details."]


def test_output_failure_needs_a_failure_word_and_words():
    assert output_failure("Could not load bitsandbytes native library: libbitsandbytes_cpu.so") is not None
    assert output_failure("Loading checkpoint shards from /data/model") is None
    assert output_failure("/usr/lib/x86_64-linux-gnu/libcuda.so") is None          # a path
    assert output_failure("Please run python -m bitsandbytes to get more information") is None


def test_a_library_message_quoted_inline_is_an_error_line():
    text = ("Everyone running the PPO example meets `Asking to pad but the tokenizer does not have a padding token.` "
            "at the first batch; set `tokenizer.pad_token = tokenizer.eos_token` before building the trainer.")
    assert find_all_error_lines(text) == ["Asking to pad but the tokenizer does not have a padding token."]


@pytest.mark.parametrize("line,kind", [
    ("/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:124: UserWarning: CUDA initialization: The "
     "NVIDIA driver on your system is too old (found version 11000). Please update your GPU driver by downloading "
     "and installing a new version from the URL", "warning"),          # a warnings.warn line that reads like prose
    ("flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi", "log"),
    ("libnccl.so.2: cannot open shared object file: No such file or directory", "log"),
    ("ERROR 09-27 06:46:46 engine.py:157] RuntimeError: CUDA error: an illegal memory access was encountered",
     "cuda"),
    ("vllm_1   | RuntimeError: CUDA error: no kernel image is available for execution on the device", "cuda"),
])
def test_lines_without_a_usual_prefix(line, kind):
    assert classify_line(line) == kind


def test_logger_and_compose_prefixes_are_stripped():
    assert clean_line("ERROR 09-27 06:46:46 engine.py:157] For debugging consider passing CUDA_LAUNCH_BLOCKING=1") \
        == "For debugging consider passing CUDA_LAUNCH_BLOCKING=1"
    assert clean_line("api-1  | ValueError: bad") == "ValueError: bad"
    assert clean_line("| a | b |") == "| a | b |"                      # a table row keeps its bars


def test_a_demangled_symbol_name_is_not_an_error():
    assert classify_line("c10::cuda::SetDevice(int)") is None
    assert classify_line("terminate called after throwing an instance of 'c10::Error'") == "cpp"


def test_eval_extract_on_the_labelled_set_meets_its_targets():
    from bot.cli import main

    result = CliRunner().invoke(main, ["eval-extract", str(EXTRACTION), "--json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.output)
    assert got["documents"] >= 60
    # Targets of the matcher issue (a training figure: ingest was improved on this set; its README has the blind one)
    assert got["error_lines"]["recall"] >= 0.95
    assert got["error_lines"]["precision"] >= 0.90
    missed = [m for d in got["docs"] for m in d["missed"]]
    assert len(missed) <= 0.05 * got["error_lines"]["labelled"]


def test_eval_extract_refuses_a_folder_without_labels(tmp_path):
    from bot.cli import main

    result = CliRunner().invoke(main, ["eval-extract", str(tmp_path)])
    assert result.exit_code == 2
    assert "labels.jsonl" in result.output


def test_a_cause_said_without_a_heading_or_cue_word_is_found_by_what_followed_from_what():
    from ingest.extract.document import extract_document
    from ingest.read import RawDocument

    text = ("# Tokenization job killed\n\nThe job dies after a few minutes with an OOM from the memory monitor.\n\n"
            "Ray scheduled one task per CPU and each task held a whole shard in memory, so 32 parallel tasks pushed "
            "the node past the threshold.\n\nRequesting 4 CPUs per task fixed it.\n")
    raw = RawDocument(path=Path("runbook.md"), text=text, format="md", content_hash="x")
    doc = extract_document(raw, "runbook.md")
    assert doc.root_cause.startswith("Ray scheduled one task per CPU")
    assert "fixed" not in doc.root_cause


@pytest.mark.parametrize("text,cause", [
    ("# Serving image will not start\n\n```\nRuntimeError: CUDA driver version is insufficient for CUDA runtime "
     "version\n```\n\nWe lost an afternoon on this. The image ships CUDA 12.1, newer than the 11.8 the hosts' "
     "driver supports.\n\nReinstalling the image built for 11.8 made it start.\n",
     "The image ships CUDA 12.1, newer than the 11.8 the hosts' driver supports."),
    ("# 评测脚本读不了新模型\n\n```\nKeyError: 'qwen3'\n```\n\n"
     "折腾了一上午。镜像里的 transformers 版本和模型要求的版本不匹配。\n\n重新构建镜像。\n",
     "镜像里的 transformers 版本和模型要求的版本不匹配。"),
])
def test_a_cause_put_as_a_mismatch_is_found_when_nothing_else_names_one(text, cause):
    from ingest.extract.document import extract_document
    from ingest.read import RawDocument

    raw = RawDocument(path=Path("notes.md"), text=text, format="md", content_hash="x")
    doc = extract_document(raw, "notes.md")
    assert cause in doc.root_cause
    assert "Reinstalling" not in doc.root_cause and "重新" not in doc.root_cause


def test_a_mismatch_does_not_displace_a_cause_said_with_a_cue_word():
    from ingest.extract.document import extract_document
    from ingest.read import RawDocument

    text = ("# Wrong wheel\n\nThe wheel does not match the driver on one node. It failed because the job image "
            "pinned an old NCCL.\n")
    doc = extract_document(RawDocument(path=Path("n.md"), text=text, format="md", content_hash="x"), "n.md")
    assert doc.root_cause == "It failed because the job image pinned an old NCCL."


def test_eval_extract_counts_rank_copies_of_a_line_once(tmp_path):
    from bot.cli import main

    (tmp_path / "docs").mkdir()
    ranks = [f"[rank{r}]:[E1206 18:44:1{r}.71{r}298746 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught "
             f"collective operation timeout: WorkNCCL(SeqNum=7) ran for 60006{r} milliseconds" for r in range(3)]
    (tmp_path / "docs" / "a.md").write_text("# Hang\n\n```\n" + "\n".join(ranks) + "\n```\n", encoding="utf-8")
    (tmp_path / "labels.jsonl").write_text(json.dumps({"doc": "docs/a.md", "error_lines": ranks,
                                                       "root_cause": None, "fix": None}) + "\n", encoding="utf-8")
    got = json.loads(CliRunner().invoke(main, ["eval-extract", str(tmp_path), "--json"]).output)
    assert got["error_lines"] == {"labelled": 1, "extracted": 1, "recall": 1.0, "precision": 1.0}


def test_launcher_summaries_and_build_tool_chatter_are_not_error_lines():
    for line in ["============================================================",
                 "Root Cause (first observed failure):", "pretrain_gpt.py FAILED",
                 "ninja: build stopped: subcommand failed.", "ninja: no work to do."]:
        assert classify_line(line) is None, line
    # the linker's line is an error line (a pattern knows it, so it needs no reading as words)
    assert classify_line("/usr/bin/ld: cannot find -lcurand: No such file or directory") == "cpp"


def test_a_cut_tracebacks_source_line_is_no_error_line_of_a_document_that_prints_its_error():
    from kb.traceback.parse import documents_error, parse_report

    block = ('Traceback (most recent call last):\n  File "/usr/bin/torchrun", line 8, in <module>\n'
             '    sys.exit(main())\n')
    [ev] = [e for e in parse_report(block).events if e.origin != "prose"]
    assert not documents_error(ev, printed_elsewhere=True)
    assert documents_error(ev, printed_elsewhere=False)     # all the document has: keep it


def test_eval_extract_counts_a_traceback_event_and_its_printed_line_once(tmp_path):
    """The matcher keeps one signature of a traceback's exception and the same line found by the line rules, so the
    count of extracted lines does too: one right line, not two (which would also inflate precision)."""
    from bot.cli import main

    (tmp_path / "docs").mkdir()
    err = "ValueError: expected sequence of length 4 at dim 1 (got 3)"
    (tmp_path / "docs" / "a.md").write_text(
        "# Collate fails\n\n```\nTraceback (most recent call last):\n  File \"/x/collate.py\", line 3, in f\n"
        f"    return torch.tensor(batch)\n{err}\n```\n\nThe batches were not padded.\n", encoding="utf-8")
    (tmp_path / "labels.jsonl").write_text(json.dumps({"doc": "docs/a.md", "error_lines": [err],
                                                       "root_cause": None, "fix": None}) + "\n", encoding="utf-8")
    got = json.loads(CliRunner().invoke(main, ["eval-extract", str(tmp_path), "--json"]).output)
    assert got["error_lines"] == {"labelled": 1, "extracted": 1, "recall": 1.0, "precision": 1.0}


def test_the_header_of_a_c10_backtrace_is_structure_not_part_of_the_message():
    from kb.traceback.parse import parse_report

    text = ("terminate called after throwing an instance of 'c10::DistBackendError'\n"
            "  what():  [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLGATHER) "
            "ran for 1800216 milliseconds before timing out.\n"
            "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:565 "
            "(most recent call first):\n"
            "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f1d in /x/libc10.so)\n")
    assert classify_line(text.split("\n")[2]) == "frame"
    assert all("Exception raised from" not in ev.message for ev in parse_report(text).events)
