"""Another message of the same kind: the report's error agrees with an entry on a hard fact (the same missing
package, a CPU-only torch) in other words. Like a symptom with many causes, it needs the rest of the report.

Own postmortems in `tests/data/corpus_kin/`, ingested into a real KB.
"""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CORPUS = Path(__file__).resolve().parent / "data" / "corpus_kin"
SENTENCEPIECE = ("ValueError: Couldn't instantiate the backend tokenizer from one of:\n"
                 "(1) a `tokenizers` library serialization file,\n"
                 "(2) a slow tokenizer instance to convert or\n"
                 "(3) an equivalent slow tokenizer class to instantiate and convert.\n"
                 "You need to have sentencepiece installed to convert a slow tokenizer to a fast one.\n")
XFORMERS_CPU = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
                "    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.3.0+cpu)\n"
                "    Python  3.11.9 (you have 3.11.9)\n"
                "  Please reinstall xformers\n")


@pytest.fixture(scope="module")
def diagnoser(corpus_diagnoser):
    return corpus_diagnoser(CORPUS)


def test_the_same_missing_package_in_other_words_with_a_report_that_points_there(diagnoser):
    text = ("A brand-new virtualenv built from requirements.txt; loading the LLaMA tokenizer (tokenizer.model is in the "
            "checkpoint folder) fails:\n\n" + SENTENCEPIECE)
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "match", diag.reason
    assert diag.matches[0].source == "sentencepiece_not_installed_en.md"
    assert diag.confidence <= 0.9


def test_the_same_missing_package_alone_is_not_enough(diagnoser):
    diag = diagnoser.diagnose(SENTENCEPIECE)
    assert diag.verdict == "no_match", diag.reason
    spm = next(m for m in diag.related if m.source == "sentencepiece_not_installed_en.md")
    assert "import.module=sentencepiece" in spm.reason
    # The other missing package is no answer either way.
    proto = next(m for m in diag.related if m.source == "protobuf_missing_for_converter_zh.md")
    assert "protobuf" in proto.reason


def test_an_entry_that_agrees_on_the_fact_the_top_one_conflicts_on_takes_over(diagnoser):
    # The xFormers entry has the report's very warning, but for a CUDA torch of another release; the report's torch
    # is a CPU build, which is what the CPU-wheel entry is about.
    text = XFORMERS_CPU + ("\n`pip install -r requirements.txt` pulled torch from PyPI, so torch.__version__ shows the "
                           "+cpu build and torch.cuda.is_available() is False although the GPU and the driver work.")
    diag = diagnoser.diagnose(text)
    assert diag.verdict == "match", diag.reason
    assert diag.matches[0].source == "cpu_wheel_installed_zh.md"
