"""The report a Slack conversation holds: message text (code blocks included) and text-file snippets.

Slack sends message text with its own markup (`<@U123>` mentions, `<url|label>` links, `&lt;` escapes, ```
fences); the matcher wants the plain text a user pasted, so that markup is undone here. Files are fetched with the
bot token (`files.info`, then the private download URL), and only when they are text.
"""
from __future__ import annotations

import logging
import re
import urllib.request
from dataclasses import dataclass, field

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from kb.report_input import cap_report, decode_report

log = logging.getLogger(__name__)

TEXT_FILETYPES = {
    "text", "log", "python", "shell", "bash", "json", "yaml", "markdown", "diff", "c", "cpp", "cuda", "javascript",
    "typescript", "go", "rust", "java", "toml", "ini", "csv", "xml", "html", "sql",
}
DOWNLOAD_TIMEOUT_S = 20

_MENTION = re.compile(r"<[@!][^>]*>")
_CHANNEL = re.compile(r"<#[A-Z0-9]+\|([^>]*)>")
_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")


def plain_text(mrkdwn: str) -> str:
    """Slack message text as the user typed it: mentions dropped, links and escapes undone, fences removed."""
    text = _MENTION.sub("", mrkdwn)
    text = _CHANNEL.sub(lambda m: "#" + m.group(1), text)
    text = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = text.replace("```", "\n")
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").strip()


@dataclass
class Report:
    text: str = ""
    files_used: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)   # "name: why"

    def add(self, text: str) -> None:
        if text.strip():
            self.text = f"{self.text}\n\n{text}" if self.text else text


def text_report(mrkdwn: str, max_bytes: int) -> Report:
    """The report in a slash command's text (which Slack escapes like message text)."""
    return Report(text=cap_report(plain_text(mrkdwn), max_bytes))


def is_text_file(info: dict) -> bool:
    return (info.get("mode") == "snippet" or str(info.get("mimetype", "")).startswith("text/")
            or info.get("filetype") in TEXT_FILETYPES)


class ReportReader:
    """Collects the report from messages, fetching their files through the Web API with the bot token."""

    def __init__(self, client: WebClient, max_bytes: int):
        self.client = client
        self.max_bytes = max_bytes

    def read(self, messages: list[dict], skip_user: str | None = None, skip_bot: str | None = None) -> Report:
        """Messages in thread order; those written by our own bot (skip_user / skip_bot) are left out."""
        report = Report()
        for msg in messages:
            if (skip_user and msg.get("user") == skip_user) or (skip_bot and msg.get("bot_id") == skip_bot):
                continue
            report.add(plain_text(msg.get("text", "")))
            for f in msg.get("files", []):
                self._add_file(report, f)
        report.text = cap_report(report.text, self.max_bytes)
        return report

    def _add_file(self, report: Report, file: dict) -> None:
        name = file.get("name") or file.get("id", "file")
        try:
            info = self.client.files_info(file=file["id"])["file"]
        except SlackApiError as exc:
            log.warning("files.info %s failed: %s", file.get("id"), exc.response.get("error"))
            report.files_skipped.append(f"{name}: Slack refused to share it ({exc.response.get('error')})")
            return
        name = info.get("name") or name
        if not is_text_file(info):
            report.files_skipped.append(f"{name}: not a text file")
            return
        if int(info.get("size") or 0) > 4 * self.max_bytes:
            report.files_skipped.append(f"{name}: too large ({info.get('size')} bytes)")
            return
        url = info.get("url_private_download") or info.get("url_private")
        if not url:
            report.files_skipped.append(f"{name}: no download address")
            return
        try:
            content_type, data = self._download(url)
        except OSError as exc:
            log.warning("download of %s failed: %s", name, exc)
            report.files_skipped.append(f"{name}: download failed")
            return
        if content_type.startswith("text/html") and info.get("mimetype") != "text/html":
            # What Slack serves instead of a file when the token may not read it.
            report.files_skipped.append(f"{name}: Slack sent a sign-in page instead (does the app have files:read?)")
            return
        text, problem = decode_report(data, self.max_bytes)
        if problem:
            report.files_skipped.append(f"{name}: {problem}")
            return
        report.add(text)
        report.files_used.append(name)

    def _download(self, url: str) -> tuple[str, bytes]:
        """(content type, bytes) of a file's private URL, fetched with the bot token."""
        request = urllib.request.Request(url)
        # Unredirected: the token goes to the address Slack gave, never on to wherever that redirects.
        request.add_unredirected_header("Authorization", f"Bearer {self.client.token}")
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_S) as resp:  # noqa: S310 - Slack's own URL
            return resp.headers.get("Content-Type", ""), resp.read(4 * self.max_bytes + 1)
