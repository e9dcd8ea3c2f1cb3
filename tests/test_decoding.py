"""One decoder (kb.decoding) for reports and postmortems: stray NULs are dropped with a note, UTF-16/32 are read
with or without a byte-order mark, and only real binary data is refused, by `diagnose` naming the file."""
from __future__ import annotations

import gzip
import io
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ingest.read import RawDocument, Skipped, read_path
from kb.decoding import decode_bytes
from kb.report_input import read_report_bytes

ROOT = Path(__file__).resolve().parents[1]
LOG = ("[rank0]: Traceback (most recent call last):\n"
       "[rank0]:   File \"train.py\", line 12, in <module>\n"
       "[rank0]: RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
       "显存不足，训练中断\n")


def _png() -> bytes:
    return b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02" + b"\x00" * 100)
    return buf.getvalue()


TEXTS = {
    "utf16_bom": LOG.encode("utf-16"),
    "utf16le_no_bom": LOG.encode("utf-16-le"),
    "utf16be_no_bom": LOG.encode("utf-16-be"),
    "utf16be_bom": b"\xfe\xff" + LOG.encode("utf-16-be"),
    "utf32_bom": LOG.encode("utf-32"),
    "utf32le_no_bom": LOG.encode("utf-32-le"),
    "utf32be_no_bom": LOG.encode("utf-32-be"),
    "utf8_bom": LOG.encode("utf-8-sig"),
    "gb18030": LOG.encode("gb18030"),
}
BINARIES = {
    "png": (_png(), "PNG"),
    "zip": (_zip(), "ZIP"),
    "elf": (b"\x7fELF\x02\x01\x01\x00" + bytes(200), "ELF"),
    "gzip": (gzip.compress(LOG.encode()), "gzip"),
    # records of (step, loss) as a program writes them: no magic number, zeros all through
    "scattered_nuls": (b"".join(struct.pack("<If", i, 2.5 - i * 1e-4) for i in range(2000)), "NUL"),
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_text_in_every_unicode_form_decodes(name):
    got = decode_bytes(TEXTS[name])
    assert got.ok, got.problem
    assert got.text == LOG


def test_a_stray_nul_is_dropped_with_a_note_not_refused():
    data = LOG.encode().replace(b"line 12", b"line 12\x00")
    got = decode_bytes(data)
    assert got.ok and got.text == LOG
    assert got.notes and "1 NUL byte dropped" in got.notes[0]
    # a log with a block of zeros where a crash cut it off, then the restart's output
    padded = LOG.encode() + b"\x00" * 50_000 + LOG.encode()
    got = decode_bytes(padded)
    assert got.ok and got.text == LOG + LOG and "50000 NUL bytes dropped" in got.notes[0]


@pytest.mark.parametrize("name", sorted(BINARIES))
def test_real_binary_is_refused_saying_what_it_is(name):
    data, word = BINARIES[name]
    got = decode_bytes(data)
    assert not got.ok and "binary" in got.problem and word in got.problem
    assert not read_report_bytes(data, 10_000).text


def test_reports_and_ingest_read_the_same_bytes_the_same_way(tmp_path):
    for name, data in [*TEXTS.items(), ("nul", LOG.encode().replace(b"RuntimeError", b"Runtime\x00Error"))]:
        p = tmp_path / f"{name}.txt"
        p.write_bytes(data)
        doc = read_path(p, 5_000_000)
        report = read_report_bytes(data, 5_000_000)
        assert isinstance(doc, RawDocument), (name, getattr(doc, "reason", None))
        assert report.problem is None and doc.text == report.text == LOG, name
        assert doc.notes == tuple(n for n in report.notes if not n.startswith("read as")), name
    for name, (data, _) in BINARIES.items():
        p = tmp_path / f"{name}.bin"
        p.write_bytes(data)
        got = read_path(p, 5_000_000)
        assert isinstance(got, Skipped) and got.reason == read_report_bytes(data, 5_000_000).problem


def test_a_cut_utf16_report_keeps_its_tail_intact():
    data = ("step 1 loss 2.0\n" * 5000 + LOG).encode("utf-16")
    got = read_report_bytes(data, 4000)
    assert got.text.endswith(LOG) and "bytes cut from the middle" in got.text


@pytest.mark.slow
def test_diagnose_reads_powershell_and_nul_logs_and_names_a_binary_file(tmp_path, cache_dir):
    from ingest.build import ingest
    from kb.config import Settings

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "oom.md").write_text("# CUDA out of memory at the first step\n\nRuntimeError: CUDA out of memory.\n\n"
                                   "## Root cause\n\nThe micro-batch was too large.\n\n## Fix\n\nHalve it.\n")
    (corpus / "ps.txt").write_bytes(("# 显存不足\n\n" + LOG).encode("utf-16"))   # ingest reads UTF-16 too
    kb_dir = tmp_path / "kb"
    report = ingest([corpus], kb_dir, Settings(cache_dir=cache_dir))
    assert report.documents == 2 and not report.skipped
    ps = tmp_path / "powershell.log"
    ps.write_bytes(LOG.encode("utf-16"))
    nul = tmp_path / "nul.log"
    nul.write_bytes(LOG.encode().replace(b"line 12", b"line 12\x00"))
    png = tmp_path / "screenshot.png"
    png.write_bytes(_png())
    env = {**os.environ, "TRIAGE_CACHE_DIR": str(cache_dir)}
    code = "import sys; from bot.cli import diagnose_main; sys.argv[0]='diagnose'; diagnose_main()"
    got = subprocess.run([sys.executable, "-c", code, "--json", str(ps), str(nul), str(png), "--kb", str(kb_dir)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert got.returncode == 2, got.stderr               # the PNG
    lines = got.stdout.splitlines()
    import json

    rows = [json.loads(line) for line in lines]
    assert [r["input"] for r in rows] == [str(ps), str(nul), str(png)]
    assert rows[0]["query"]["exception_type"] == "RuntimeError" and rows[1]["query"]["exception_type"] == "RuntimeError"
    assert rows[2]["ok"] is False
    assert f"error: {png}: binary file (a PNG image)" in got.stderr
    assert f"note: {nul}: 1 NUL byte dropped" in got.stderr
    assert "Traceback" not in got.stderr
