"""The README's settings table lists every setting, by its environment variable."""
from __future__ import annotations

import re
from pathlib import Path

from kb.config import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_setting_is_documented_and_nothing_else():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Settings"):]
    section = section[: section.index("\n## ", 3)]
    documented = set(re.findall(r"^\| `(TRIAGE_[A-Z0-9_]+)` \|", section, re.M))
    expected = {f"TRIAGE_{name.upper()}" for name in Settings.model_fields}
    assert documented == expected, (sorted(expected - documented), sorted(documented - expected))
