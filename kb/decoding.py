"""Bytes -> text, for every way text reaches us: `diagnose` files and standard input, the service, Slack, and the
postmortems `triage ingest` reads. One decoder, so a log that one surface reads is not refused by another.

What is text:

* a byte-order mark decides: UTF-8, UTF-16 or UTF-32 (PowerShell's `>` writes UTF-16);
* without one, the pattern of zero bytes gives UTF-16 and UTF-32 away (ASCII in UTF-16-LE is `R\\0u\\0n\\0...`);
* else strict UTF-8, then GB18030 when what it decodes to looks like Chinese text, then charset-normalizer's guess;
* a few stray NUL bytes (a log written while a process died, a copy from a terminal) are dropped, with a note.

What is not: a file that starts with the magic number of a known binary format (PNG, JPEG, ZIP and so torch
checkpoints, ELF executables and core dumps, gzip/xz/zstd/bzip2, PDF, pickle, NumPy, SQLite, tar), NUL bytes spread
all through the data, or text that decodes to many control characters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# (prefix, what it is)
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive (a torch checkpoint, a wheel, an Office document)"),
    (b"PK\x05\x06", "a ZIP archive"),
    (b"\x7fELF", "an ELF executable or core dump"),
    (b"\x1f\x8b", "gzip-compressed; unpack it first"),
    (b"\xfd7zXZ\x00", "xz-compressed; unpack it first"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed; unpack it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"%PDF-", "a PDF document"),
    (b"\x93NUMPY", "a NumPy array"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x80\x02", "a Python pickle"),
    (b"\x80\x03", "a Python pickle"),
    (b"\x80\x04\x95", "a Python pickle"),
    (b"\x80\x05\x95", "a Python pickle"),
)
_BZIP2 = re.compile(rb"\ABZh[1-9]1AY&SY")

# Checked in this order: UTF-32-LE's mark begins with UTF-16-LE's.
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)

# Characters no text carries: C0 and C1 controls other than tab, newline, carriage return, form feed and ESC (ANSI
# colours are text), and the replacement character a wrong decoding leaves.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f-\x9f\ufffd]")
# What a correct GB18030 decoding of Chinese text consists of: ASCII, CJK ideographs, CJK and full-width
# punctuation, common symbols. A wrong guess (Big5, Shift-JIS, Latin-1 bytes) scatters into rarer ranges.
_GB_COMMON = re.compile(r"[\x00-\x7f\u00b7\u2010-\u203f\u2190-\u21ff\u2460-\u24ff\u2500-\u257f\u25a0-\u26ff"
                        r"\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_NUL_RUN = re.compile(rb"\x00+")
# NUL bytes in this many separate places, and this share of the data, mean the data is not text with a few
# stray NULs but a binary format (a log with a block of zeros where a crash cut it off is one place).
SCATTERED_NUL_RUNS = 8
SCATTERED_NUL_SHARE = 0.01


@dataclass(frozen=True)
class Decoded:
    """Decoded text, or why the bytes are not text (`problem`: one line, without the file's name)."""

    text: str
    encoding: str
    problem: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.problem is None


def binary_kind(data: bytes) -> str | None:
    """What binary format `data` starts with, or None."""
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    if _BZIP2.match(data):
        return "bzip2-compressed; unpack it first"
    if len(data) > 262 and data[257:262] == b"ustar":
        return "a tar archive"
    return None


def _wide_encoding(data: bytes) -> str | None:
    """UTF-16 or UTF-32 without a byte-order mark, told by where the zero bytes fall; None for anything else."""
    sample = data[:8192]
    n4 = len(sample) // 4 * 4
    if n4 >= 8:
        zeros = [sample[k:n4:4].count(0) / (n4 // 4) for k in range(4)]
        if zeros[2] > 0.95 and zeros[3] > 0.95 and zeros[0] < 0.2:
            return "utf-32-le"
        if zeros[0] > 0.95 and zeros[1] > 0.95 and zeros[3] < 0.2:
            return "utf-32-be"
    n2 = len(sample) // 2 * 2
    if n2 >= 4:
        even = sample[0:n2:2].count(0) / (n2 // 2)
        odd = sample[1:n2:2].count(0) / (n2 // 2)
        if odd > 0.3 and even < 0.02:
            return "utf-16-le"
        if even > 0.3 and odd < 0.02:
            return "utf-16-be"
    return None


def _too_many_controls(text: str) -> bool:
    return len(_CONTROL.findall(text)) > max(2, 0.02 * len(text))


def _guess(data: bytes) -> tuple[str, str] | None:
    """(text, encoding) of 8-bit data: strict UTF-8, GB18030 that reads as Chinese, then charset-normalizer."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
        if len(_GB_COMMON.findall(text)) >= 0.97 * len(text):
            return text, "gb18030"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        return None
    return str(best), best.encoding


def decode_bytes(data: bytes, *, lenient: bool = False) -> Decoded:
    """Decode `data`, or say why it is not text.

    Args:
        data: the raw bytes.
        lenient: for reports: bytes no encoding explains are shown as U+FFFD instead of refusing the whole text
            (ingest is strict: a postmortem it cannot decode is skipped, not indexed as mojibake).
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom):].decode(encoding)
            except UnicodeDecodeError:
                if not lenient:
                    return Decoded("", "", f"undecodable: starts with a {encoding.upper()} byte-order mark but is "
                                           f"not valid {encoding.upper()}")
                text = data[len(bom):].decode(encoding, errors="replace")
            return _checked(text, encoding, ())
    kind = binary_kind(data)
    if kind:
        return Decoded("", "", f"binary file ({kind})")
    wide = _wide_encoding(data)
    if wide:
        try:
            return _checked(data.decode(wide), wide, ())
        except UnicodeDecodeError:
            pass                     # the zeros fell that way by chance: treat as 8-bit data
    notes: tuple[str, ...] = ()
    nuls = data.count(0)
    if nuls:
        runs = len(_NUL_RUN.findall(data))
        if runs >= SCATTERED_NUL_RUNS and nuls > SCATTERED_NUL_SHARE * len(data):
            return Decoded("", "", f"binary file ({nuls} NUL bytes in {runs} places)")
        data = data.replace(b"\x00", b"")
        notes = (f"{nuls} NUL byte{'s' if nuls > 1 else ''} dropped (not text; the rest was read)",)
    guessed = _guess(data)
    if guessed is None:
        if not lenient:
            return Decoded("", "", "undecodable: not UTF-8, GB18030 or another recognisable text encoding", notes)
        text = data.decode("utf-8", errors="replace")
        if _too_many_controls(text.replace("\ufffd", "")):
            return Decoded("", "", "binary file (undecodable, with many control characters)", notes)
        return Decoded(text, "utf-8", None, notes + ("bytes that are not UTF-8 are shown as \ufffd",))
    return _checked(*guessed, notes)


def _checked(text: str, encoding: str, notes: tuple[str, ...]) -> Decoded:
    if _too_many_controls(text):
        return Decoded("", "", f"binary or undecodable: too many control characters after decoding as {encoding}",
                       notes)
    return Decoded(text, encoding, None, notes)
