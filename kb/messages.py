"""The labels answers are written with, in English and Chinese: a table kept as data (kb/data/messages.json)."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from kb.lang import LANGS

MESSAGES = Path(__file__).parent / "data" / "messages.json"


@cache
def table() -> dict[str, dict[str, str]]:
    data = json.loads(MESSAGES.read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def msg(key: str, lang: str = "en", **fields: object) -> str:
    """The label `key` in `lang` ("en" or "zh"; English for any other), its {fields} filled in."""
    entry = table()[key]
    text = entry.get(lang if lang in LANGS else "en") or entry["en"]
    return text.format(**fields) if fields else text
