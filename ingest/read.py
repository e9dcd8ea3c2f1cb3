"""Find postmortem files and read them into decoded text: `discover` and `read_path`.

Reading never raises for a bad file: binary, empty, oversized or undecodable files come back as `Skipped` with a
one-line reason, so one bad file cannot stop an ingest run. HTML pages and GitHub issue exports are turned into
Markdown-like text here, so that every later step sees one kind of input.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any, Literal

from kb.decoding import decode_bytes
from kb.errors import BadInput

Format = Literal["txt", "md", "html", "github_issue", "entry"]


@dataclass(frozen=True)
class RawDocument:
    """One readable file: decoded text with normalised newlines, its format and the sha256 of its raw bytes."""

    path: Path
    text: str
    format: Format
    content_hash: str
    encoding: str = "utf-8"
    notes: tuple[str, ...] = ()      # what reading it took (NUL bytes dropped), for the ingest report


@dataclass(frozen=True)
class Skipped:
    """A file that was not read, and why (one line, for the ingest report)."""

    path: Path
    reason: str


# ---------------------------------------------------------------------------------------------------------------
# discover
# ---------------------------------------------------------------------------------------------------------------

def discover(paths: list[Path]) -> list[tuple[Path, str]]:
    """List the postmortem files under `paths`, sorted, each with its source name.

    Args:
        paths: files and folders. Folders are walked recursively (hidden files and folders are left out) for
            .txt/.md/.markdown/.html/.htm/.json files; a file argument is taken whatever its suffix.

    Returns:
        (file path, source) pairs; source is the path relative to the folder given, with forward slashes, or the
        file name for a file argument. A file reached twice is listed once.

    Raises:
        BadInput: a path does not exist.
    """
    out: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    for given in paths:
        given = Path(given)
        if not given.exists():
            raise BadInput(f"No such file or folder: {given}. Check the path given to ingest.")
        if given.is_file():
            found = [(given, given.name)]
        else:
            found = []
            for f in given.rglob("*"):
                rel = f.relative_to(given)
                if any(part.startswith(".") for part in rel.parts):
                    continue
                if f.suffix.lower() in SUFFIXES and f.is_file():
                    found.append((f, rel.as_posix()))
            found.sort(key=lambda pair: pair[1])
        for f, source in found:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                out.append((f, source))
    return out


# ---------------------------------------------------------------------------------------------------------------
# decoding
# ---------------------------------------------------------------------------------------------------------------

# Zero-width characters and other invisible marks scraped pages carry.
_INVISIBLE = re.compile(r"[\u200b-\u200d\u2060\ufeff\u00ad]")


def normalise_text(text: str) -> str:
    """Unix newlines, no invisible characters, no-break spaces as plain spaces."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE.sub("", text)
    return text.replace("\u00a0", " ")


# ---------------------------------------------------------------------------------------------------------------
# read_path
# ---------------------------------------------------------------------------------------------------------------

# An entry opens with `---` and a YAML key (`id: ...`); a closing `---` is checked by the entry parser, so that a
# broken entry is reported instead of being read as plain Markdown.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:[ \t]*(?:#.*)?\n)*[A-Za-z_][\w-]*[ \t]*:(?:[ \t]|$)", re.M)
_HTML_SNIFF = re.compile(r"\A\s*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])", re.I)


def read_path(path: Path, max_bytes: int) -> RawDocument | Skipped:
    """Read one file into a `RawDocument`, or say why it was skipped.

    Args:
        path: the file.
        max_bytes: files larger than this are skipped.

    Returns:
        RawDocument with decoded text (normalised newlines) and its format, or Skipped with a one-line reason
        (binary, empty, too large, undecodable, unreadable, JSON that is not an issue export). Never raises for a
        bad file.
    """
    path = Path(path)
    try:
        if not path.is_file():
            return Skipped(path, "not a regular file")
        size = path.stat().st_size
        if size > max_bytes:
            return Skipped(path, f"too large: {size} bytes (limit {max_bytes})")
        data = path.read_bytes()
    except OSError as exc:
        return Skipped(path, f"unreadable: {exc.strerror or exc.__class__.__name__}")
    if len(data) > max_bytes:        # the file grew between stat and read
        return Skipped(path, f"too large: {len(data)} bytes (limit {max_bytes})")
    if not data.strip():
        return Skipped(path, "empty file")
    decoded = decode_bytes(data)     # the decoder `diagnose` uses: UTF-8/16/32, GB18030, stray NULs, binary
    if not decoded.ok:
        return Skipped(path, decoded.problem)
    encoding, notes = decoded.encoding, decoded.notes
    text = normalise_text(decoded.text)
    if not text.strip():
        return Skipped(path, "empty file (whitespace only)")
    digest = hashlib.sha256(data).hexdigest()

    read = READERS.get(path.suffix.lower(), _read_unknown)
    got = read(text)
    if isinstance(got, str):
        return Skipped(path, got)
    converted, fmt = got
    return RawDocument(path, converted, fmt, digest, encoding, notes)


# ---------------------------------------------------------------------------------------------------------------
# readers: decoded text -> (text every later step reads, its format), or the reason it is skipped
# ---------------------------------------------------------------------------------------------------------------

def _read_issue_export(text: str) -> tuple[str, Format] | str:
    try:
        obj = json.loads(text)
    except ValueError as exc:
        return f"invalid JSON: {exc.msg} at line {exc.lineno}"
    issue = github_issue_to_markdown(obj)
    if issue is None:
        return "JSON that is not a GitHub issue export (needs an object with 'title' and 'body')"
    return issue, "github_issue"


def _read_html(text: str) -> tuple[str, Format] | str:
    converted = html_to_text(text)
    return (converted, "html") if converted.strip() else "HTML page without text"


def _read_markdown(text: str) -> tuple[str, Format]:
    return text, ("entry" if _FRONT_MATTER.match(text.lstrip("\n")) else "md")


def _read_unknown(text: str) -> tuple[str, Format] | str:
    """A .txt file, or a file given by name whatever its suffix: an HTML page saved under another name is read as
    one."""
    return _read_html(text) if _HTML_SNIFF.match(text) else (text, "txt")


# By suffix; a folder is searched for these, and a file given by name with another suffix is read as text.
READERS: dict[str, Callable[[str], tuple[str, Format] | str]] = {
    ".txt": _read_unknown,
    ".md": _read_markdown,
    ".markdown": _read_markdown,
    ".html": _read_html,
    ".htm": _read_html,
    ".json": _read_issue_export,
}
SUFFIXES = tuple(READERS)


# ---------------------------------------------------------------------------------------------------------------
# GitHub issue export (REST API shape)
# ---------------------------------------------------------------------------------------------------------------

_MAINTAINER_ROLES = {"OWNER", "MEMBER", "COLLABORATOR"}
_ISSUE_URL = re.compile(r"https://(?:api\.)?github\.com/(?:repos/)?([\w.-]+/[\w.-]+)/(?:issues|pull|pulls)/(\d+)")


def _login(obj: Any) -> str:
    user = obj.get("user") if isinstance(obj, dict) else None
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def github_issue_to_markdown(obj: Any) -> str | None:
    """Render a GitHub issue export as Markdown: `# title`, the issue reference, body, then each comment.

    Accepts the REST API issue object (`title`, `body`, optional `comments` list with `body` and `user.login`), or
    `{"issue": {...}, "comments": [...]}`. Returns None when `obj` has another shape.
    """
    comments: Any = None
    if isinstance(obj, dict) and isinstance(obj.get("issue"), dict):
        comments = obj.get("comments")
        obj = obj["issue"]
    if not isinstance(obj, dict) or not isinstance(obj.get("title"), str) or "body" not in obj:
        return None
    if comments is None:
        comments = obj.get("comments")
    author = _login(obj)
    lines = [f"# {obj['title'].strip()}", ""]
    url = obj.get("html_url") or obj.get("url") or ""
    m = _ISSUE_URL.match(str(url))
    about = [f"reported by @{author}"] if author else []
    if obj.get("state"):
        about.append(str(obj["state"]))
    if m or about:
        where = f"{m.group(1)}#{m.group(2)}" if m else "GitHub issue"
        lines += [f"Source: {where}" + (f" ({', '.join(about)})" if about else ""), ""]
    lines += [str(obj.get("body") or "").strip(), ""]
    if isinstance(comments, list):
        for c in comments:
            if not isinstance(c, dict) or not str(c.get("body") or "").strip():
                continue
            login = _login(c) or "unknown"
            role = ""
            if c.get("author_association") in _MAINTAINER_ROLES:
                role = " (maintainer)"
            elif author and login == author:
                role = " (reporter)"
            lines += [f"## Comment by @{login}{role}", "", str(c["body"]).strip(), ""]
    return normalise_text("\n".join(lines)).strip() + "\n"


# ---------------------------------------------------------------------------------------------------------------
# HTML pages
# ---------------------------------------------------------------------------------------------------------------

# Page chrome: dropped with everything inside.
_DROP_TAGS = ("script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "button",
              "iframe", "svg", "canvas", "select", "dialog")
# class/id words that mark chrome on sites that use plain <div>s (breadcrumbs, share bars, related lists, ads).
_CHROME_ATTR = re.compile(
    r"(?:^|[\s_-])(?:breadcrumbs?|crumbs?|navbar|nav|sidebar|side-bar|footer|header|menu|share|social|"
    r"related|recommend(?:ed|ations?)?|advert(?:isement)?|ads?|cookie|login|signin|subscribe|newsletter|"
    r"toolbar|pagination|comment-form)(?:$|[\s_-])", re.I)
_BLOCK_TAGS = {"p", "div", "section", "article", "main", "blockquote", "ul", "ol", "dl", "dt", "dd", "table",
               "tr", "figure", "figcaption", "details", "summary", "body", "html", "hr", "li", "pre",
               "h1", "h2", "h3", "h4", "h5", "h6"}


def _is_chrome(tag: Any) -> bool:
    attrs = getattr(tag, "attrs", None)
    if not attrs:
        return False
    if str(attrs.get("role", "")).lower() in ("navigation", "banner", "contentinfo", "complementary"):
        return True
    words = " ".join([*(attrs.get("class") or []), str(attrs.get("id") or "")])
    return bool(words.strip()) and _CHROME_ATTR.search(words) is not None


def html_to_text(html: str) -> str:
    """Turn an HTML page into Markdown-like text.

    Scripts, styles and page chrome (nav, header, footer, aside, elements whose class/id says breadcrumb,
    sidebar, share, related, ...) are dropped; when the page has a single <article> or <main>, only that is
    kept (plus the page's <h1>/<title> as heading if the article has none). Headings become `#` lines, list items
    `- ` lines, <pre> blocks fenced code kept verbatim, inline <code> backticked.
    """
    from bs4 import BeautifulSoup, NavigableString, Tag

    soup = BeautifulSoup(html, "html.parser")
    page_title = ""
    h1 = soup.find("h1")
    if h1 is not None:
        page_title = h1.get_text(" ", strip=True)
    elif soup.title is not None:
        page_title = soup.title.get_text(" ", strip=True)
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    for tag in soup.find_all(True):
        if tag.__dict__.get("_decomposed"):     # not `tag.decomposed`: on a live Tag it searches the subtree
            continue
        if tag.name not in ("html", "body", "article", "main", "pre", "code") and _is_chrome(tag):
            tag.decompose()
    root: Any = soup.body or soup
    for name in ("article", "main"):
        found = soup.find_all(name)
        if len(found) == 1:
            root = found[0]
            break

    out: list[str] = []
    blocks: list[str] = []          # <pre> contents, put back verbatim after the whitespace cleanup

    def newline(n: int = 1) -> None:
        have = 0
        for piece in reversed(out):
            stripped = piece.rstrip("\n")
            have += len(piece) - len(stripped)
            if stripped:
                break
        else:
            return                  # nothing written yet
        if have < n:
            out.append("\n" * (n - have))

    def walk(node: Any, in_list: bool = False) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if type(child).__name__ in ("Comment", "Doctype", "Declaration", "ProcessingInstruction", "CData"):
                    continue
                piece = re.sub(r"\s+", " ", str(child))
                if piece == " " and (not out or out[-1].endswith("\n")):
                    continue         # whitespace between block elements
                out.append(piece)
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name
            if name == "pre":
                blocks.append(child.get_text().strip("\n"))
                newline(2)
                out.append(f"\x00{len(blocks) - 1}\x00")
                newline(2)
            elif name == "code":
                out.append("`" + child.get_text() + "`")
            elif name == "br":
                out.append("\n")
            elif name in ("h1", "h2", "h3", "h4", "h5", "h6"):
                newline(2)
                out.append("#" * int(name[1]) + " " + child.get_text(" ", strip=True))
                newline(2)
            elif name == "li":
                newline(1)
                out.append("- ")
                walk(child, True)
                newline(1)
            elif name in ("td", "th"):
                walk(child, in_list)
                out.append(" | ")
            elif name in _BLOCK_TAGS:
                newline(1 if in_list else 2)
                walk(child, in_list)
                newline(1 if in_list else 2)
            else:
                walk(child, in_list)

    try:
        walk(root)
    except RecursionError:           # absurdly deep markup: fall back to plain text, one line per block
        out[:] = [root.get_text("\n")]
    lines = [ln.strip() for ln in "".join(out).split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    text = re.sub(r"\x00(\d+)\x00", lambda m: "```\n" + blocks[int(m.group(1))] + "\n```", text)
    if page_title and not re.search(r"^# ", text, re.M):
        text = f"# {page_title}\n\n" + text.lstrip("\n")
    return normalise_text(text).strip() + "\n"

