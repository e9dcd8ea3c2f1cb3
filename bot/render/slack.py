"""A Diagnosis as Slack blocks: the parts of bot.render.parts, in the order of the terminal and GitHub, each cut to
its own budget so that the whole stays well inside Slack's limits (bot.slack.blocks)."""
from __future__ import annotations

from bot.render.parts import (environment, evidence_lines, fix_mark, issue_label, report_said, verified_first,
                              where)
from bot.slack.blocks import code_block, context, cut, escape, feedback_actions, fit, header, section
from kb.messages import msg
from kb.models import Diagnosis, IssueOut, MatchOut

FALLBACK_MAX = 300          # the notification text: a summary, never the report

# Budgets for the parts of an answer (characters of mrkdwn, after escaping).
ROOT_CAUSE_MAX = 2000
FIXES_MAX = 2500
EVIDENCE_MAX = 1500
LINE_MAX = 300
EVIDENCE_LINES = 8
ALSO_POSSIBLE = 3


def fallback_text(diag: Diagnosis) -> str:
    if diag.verdict == "match":
        best = diag.matches[0]
        return cut(f"{msg('known_issue', diag.lang, title=best.title)} ({msg('confidence', diag.lang)} "
                   f"{diag.confidence:.2f})", FALLBACK_MAX)
    return cut(msg("no_fit_reason", diag.lang, reason=diag.reason), FALLBACK_MAX)


def diagnosis_blocks(diag: Diagnosis) -> list[dict]:
    """The answer; a match carries the feedback buttons."""
    blocks = _match_blocks(diag) if diag.verdict == "match" else _no_match_blocks(diag)
    report = _report_line(diag)
    if report:
        blocks.append(context(report))
    if diag.verdict == "match":
        blocks.append(feedback_actions(diag.matches[0].entry_id, diag.query.signature, lang=diag.lang))
    return fit(blocks)


def _match_blocks(diag: Diagnosis) -> list[dict]:
    best = diag.matches[0]
    lang = diag.lang            # labels from the message table (kb/data/messages.json), in the answer's language
    blocks = [
        header(msg("known_issue", lang, title=best.title or best.entry_id)),
        context(f"*{msg('confidence_cap', lang)}* {diag.confidence:.2f}",
                f"*{msg('entry_cap', lang)}* `{escape(best.entry_id)}`",
                f"*{msg('source_cap', lang)}* {_source(best.source)}"),
    ]
    if best.issue is not None:
        blocks.append(context(_issue(best.issue)))
    blocks.append(section(f"*{msg('root_cause', lang)}*\n"
                          + cut(escape(best.root_cause or msg("no_root_cause", lang)), ROOT_CAUSE_MAX)))
    if best.fixes:
        blocks.append(section(f"*{msg('fixes', lang)}*\n" + _fixes(best, lang)))
    if best.versions:
        blocks.append(section(f"*{msg('versions', lang)}*\n" + "\n".join(escape(cut(v, LINE_MAX))
                                                                         for v in best.versions)))
    evidence = evidence_lines(best, EVIDENCE_LINES)
    if evidence:
        text = "\n".join(cut(line.label + line.text, LINE_MAX) for line in evidence)
        blocks.append(section(f"*{msg('evidence', lang)}*\n" + code_block(text, EVIDENCE_MAX)))
    env = environment(best, lang)
    if env:
        said = "\n".join(f"{escape(p.label)}: " + ", ".join(f"`{escape(cut(v, LINE_MAX))}`" if p.code
                                                             else escape(cut(v, LINE_MAX)) for v in p.values)
                         for p in env)
        blocks.append(section(f"*{msg('environment', lang)}*\n" + cut(said, FIXES_MAX)))
    others = diag.matches[1:1 + ALSO_POSSIBLE]
    if others:
        blocks.append(context(*(f"{msg('also_possible_cap', lang)}: {escape(cut(o.title, LINE_MAX))} "
                                f"(`{escape(o.entry_id)}`)" for o in others)))
    return blocks


def _no_match_blocks(diag: Diagnosis) -> list[dict]:
    blocks = [
        header(msg("no_fit", diag.lang)),
        section(cut(escape(diag.reason or msg("nothing_explains", diag.lang)), ROOT_CAUSE_MAX)),
    ]
    if diag.related:
        lines = [_related_line(r) for r in diag.related]
        blocks.append(section(f"*{msg('nearest', diag.lang)}*\n" + cut("\n".join(lines), FIXES_MAX)))
    return blocks


def _fixes(best: MatchOut, lang: str = "en") -> str:
    lines = []
    for fix in verified_first(best.fixes):
        text = escape(cut(fix.text, LINE_MAX * 2))
        mark = fix_mark(fix, best, lang)
        recipe = f" `{escape(cut(mark.recipe, LINE_MAX))}`" if mark.recipe else ""
        if mark.pending:
            lines.append(f"• {msg('repro_pending', lang, recipe=recipe)}{text}")
        elif mark.verified:
            ran = escape(msg("ran_on", lang, env=mark.ran_on)) if mark.ran_on else ""
            lines.append(f":white_check_mark: *{msg('verified', lang)}* ({escape(mark.who)}{recipe}{ran}): {text}")
        else:
            lines.append(f"• {text}")
    return cut("\n".join(lines), FIXES_MAX)


def _related_line(rel: MatchOut) -> str:
    why = f": {escape(cut(rel.reason, LINE_MAX))}" if rel.reason else ""
    title = escape(cut(rel.title or rel.entry_id, LINE_MAX))
    return f"• {title} (`{escape(where(rel))}`){why}"


def _issue(issue: IssueOut) -> str:
    """The issue thread a match comes from, linked when it has an address Slack can show."""
    label = escape(issue_label(issue))
    if issue.url and _linkable(issue.url):
        label = f"<{escape(issue.url)}|{label}>"
    return f"{label} {escape(cut(issue.title, LINE_MAX))}"


def _source(source: str) -> str:
    if _linkable(source):
        return f"<{escape(source)}|{escape(source)}>"
    return f"`{escape(cut(source, LINE_MAX))}`"


def _linkable(url: str) -> bool:
    return url.startswith(("http://", "https://")) and len(url) <= LINE_MAX and not set("|<> ") & set(url)


def _report_line(diag: Diagnosis) -> str:
    said = " ".join(report_said(diag.query).split()).replace("`", "'")   # one line of inline code: no newlines
    return f"{msg('report', diag.lang)}: `{escape(cut(said, LINE_MAX))}`" if said else ""
