"""What an entry's `affected`/`fixed_in` say about the versions a report shows: "fixed in transformers 4.47.1; you
run 4.46.0".

An entry writes `fixed_in` as `transformers 4.47.1` or `transformers==4.47.1` (several joined by `,`/`;`) and
`affected` as a specifier (`transformers>=4.46,<4.47.1`); the report's versions come from its environment lines
(`Report.env`: package -> version). Nothing is said when the report does not show the package's version, or when a
version cannot be read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from kb.messages import msg

_FIXED = re.compile(r"(?P<pkg>[A-Za-z][\w.-]*)\s*(?:==|\s)\s*v?(?P<ver>\d+(?:\.\d+)*(?:[\w.+-]*\w)?)")
_AFFECTED = re.compile(r"(?P<pkg>[A-Za-z][\w.-]*)\s*(?P<spec>(?:[<>=!~]=?\s*[\w.*+-]+\s*,?\s*)+)")


@dataclass(frozen=True)
class VersionNote:
    package: str
    running: str
    fixed_in: str | None      # the release that fixed it, when the entry names one
    affected: bool | None     # whether the running version is inside the entry's affected range (None: no range)

    @property
    def upgrade_fixes(self) -> bool:
        """The report runs a version older than the fix (or inside the affected range)."""
        return bool(self.fixed_in and _older(self.running, self.fixed_in)) or self.affected is True


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _older(running: str, fixed: str) -> bool:
    a, b = _version(running), _version(fixed)
    return a is not None and b is not None and a < b


def _once(matches) -> dict[str, re.Match]:
    """Packages named once. A package named twice ("torch 2.4 (Python 3.12), torch 2.6 (Python 3.13)") depends on
    something else the answer cannot see, so nothing is said of it."""
    seen: dict[str, list[re.Match]] = {}
    for m in matches:
        seen.setdefault(_norm(m.group("pkg")), []).append(m)
    return {pkg: ms[0] for pkg, ms in seen.items() if len(ms) == 1}


def version_notes(fixed_in: str | None, affected: str | None, report_versions: dict[str, str]) -> list[VersionNote]:
    """One note per package the entry's versions name and the report shows a version of."""
    running = {_norm(k): v for k, v in report_versions.items()}
    fixed = _once(_FIXED.finditer(fixed_in or ""))
    ranges = _once(_AFFECTED.finditer(affected or ""))
    notes: dict[str, VersionNote] = {}
    for pkg, m in fixed.items():
        if pkg in running and _version(running[pkg]) is not None and _version(m.group("ver")) is not None:
            notes[pkg] = VersionNote(pkg, running[pkg], m.group("ver"), None)
    for pkg, m in ranges.items():
        if pkg not in running or _version(running[pkg]) is None:
            continue
        try:
            inside = SpecifierSet(m.group("spec").replace(" ", "").rstrip(","), prereleases=True).contains(
                running[pkg])
        except InvalidSpecifier:
            continue
        old = notes.get(pkg)
        notes[pkg] = VersionNote(pkg, running[pkg], old.fixed_in if old else None, inside)
    return list(notes.values())


def version_lines(fixed_in: str | None, affected: str | None, report_versions: dict[str, str],
                  lang: str = "en") -> list[str]:
    """What the answer says of the report's versions, one line per package, in `lang`."""
    out = []
    for n in version_notes(fixed_in, affected, report_versions):
        if n.fixed_in:          # both versions read (version_notes keeps no other)
            key = "version_fixed" if _older(n.running, n.fixed_in) else "version_has_fix"
        elif n.affected is not None:
            key = "version_affected" if n.affected else "version_unaffected"
        else:
            continue
        out.append(msg(key, lang, package=n.package, fixed=n.fixed_in, running=n.running))
    return out
