"""A Diagnosis as the GitHub comment's Markdown. The hidden marker that starts it, and reading it back, are
bot.github.comment's; the parts and their order are bot.render.parts', as in the terminal and Slack."""
from __future__ import annotations

from bot.github.comment import Marker, marker
from bot.render.parts import environment, evidence_lines, fix_mark, issue_state, verified_first
from kb.messages import msg
from kb.models import Diagnosis, FixOut, IssueOut, MatchOut

EVIDENCE_MAX = 6


def render_match(diag: Diagnosis) -> str:
    best = diag.matches[0]
    lang = diag.lang            # labels from the message table (kb/data/messages.json), in the answer's language
    lines = [marker(best.entry_id, diag.query.signature),
             f"### {msg('gh_known', lang)}",
             "",
             f"**{_inline(best.title)}**",
             f"{msg('gh_confidence', lang, pct=f'{diag.confidence:.0%}')} · "
             f"{msg('gh_entry_source', lang, entry=best.entry_id, source=_inline(best.source))}",
             "",
             *_issue_lines(best.issue),
             f"**{msg('root_cause', lang)}**",
             "",
             _inline(best.root_cause) or msg("gh_not_recorded", lang),
             ""]
    if best.fixes:
        lines.extend([f"**{msg('fixes', lang)}**", ""])
        lines.extend(f"- {_fix_label(f, best, lang)}{_inline(f.text)}" for f in verified_first(best.fixes))
        lines.append("")
    if best.versions:
        lines.extend([f"**{msg('versions', lang)}**", ""])
        lines.extend(f"- {_inline(v)}" for v in best.versions)
        lines.append("")
    evidence = evidence_lines(best, EVIDENCE_MAX)
    if evidence:
        lines.extend([f"<details><summary>{msg('gh_why', lang)}</summary>", ""])
        # Quoted lines (yours, the entry's) as inline code; the rest is prose.
        lines.extend(f"- {e.label}`{e.text.replace('`', chr(39))}`" if e.quoted else f"- {_inline(e.text)}"
                     for e in evidence)
        lines.extend(["", "</details>", ""])
    env = environment(best, lang)
    if env:
        said = "; ".join(f"{p.label}: " + ", ".join(f"`{_inline(v)}`" if p.code else _inline(v) for v in p.values)
                         for p in env)
        lines.extend([f"**{msg('environment', lang)}.** {said}", ""])
    others = diag.matches[1:]
    if others:
        lines.append(f"{msg('also_possible_cap', lang)}: "
                     + "; ".join(f"`{m.entry_id}` {_inline(m.title)}" for m in others))
        lines.append("")
    lines.extend(["---", f"<sub>{msg('gh_feedback_help', lang)}</sub>"])
    return "\n".join(lines)


def render_no_match(diag: Diagnosis, previous: Marker | None = None, why: str = "it no longer applies") -> str:
    """The short comment for a report no postmortem fits (or no longer fits, after an edit or `/triage wrong`)."""
    lang = diag.lang
    lines = [marker("", diag.query.signature), f"### {msg('gh_no_fit', lang)}", ""]
    if previous and previous.entry_id:
        lines.extend([msg("gh_earlier", lang, entry=previous.entry_id, why=_inline(why)), ""])
    if diag.reason:
        lines.extend([_inline(diag.reason), ""])
    if diag.related:
        lines.append(msg("gh_nearest", lang))
        # (Named by entry id, even an issue thread, as tests/test_github_import.py pins; the terminal and Slack name
        # a thread by its issue.)
        lines.extend(f"- `{m.entry_id}` {_inline(m.title)}" + (f" ({_inline(m.reason)})" if m.reason else "")
                     for m in diag.related)
        lines.append("")
    lines.extend(["---", f"<sub>{msg('gh_never_closes', lang)}</sub>"])
    return "\n".join(lines)


def _issue_lines(issue: IssueOut | None) -> list[str]:
    """For an imported issue thread: "This looks like #N (closed, fixed by #M)", its link and who resolved it.
    (A reference only: the bot never closes the new issue nor marks it as a duplicate.)"""
    if issue is None:
        return []
    state = issue_state(issue, qualified=True)        # GitHub shows #M within the same repository
    ref = f"{issue.repo}#{issue.number}"
    line = f"This looks like {ref} ({state})"
    if issue.url:
        line = f"This looks like [{ref}]({issue.url}) ({state})"
    res = issue.resolution
    if res is not None:
        who = {"maintainer": f"a maintainer ({res.author_association or '?'})", "reporter": "the reporter",
               "pull_request": "the closing pull request", "commit": "the closing commit"}[res.kind]
        line += f"; resolution from {who}"
    return [line + ".", ""]


def _fix_label(fix: FixOut, match: MatchOut, lang: str) -> str:
    mark = fix_mark(fix, match, lang)
    recipe = f" `{mark.recipe}`" if mark.recipe else ""
    if mark.pending:
        return msg("repro_pending", lang, recipe=recipe)
    if mark.verified and mark.by_repro:
        ran = msg("ran_on", lang, env=_inline(mark.ran_on)) if mark.ran_on else ""
        return msg("gh_verified_repro", lang) + recipe + ran + ("：" if lang == "zh" else ": ")
    if mark.verified:
        return msg("gh_verified_by", lang, who=mark.who)
    return ""


def _inline(text: str) -> str:
    """One line, with nothing that could close our marker, start HTML, or @-mention someone."""
    return " ".join((text or "").split()).replace("<", "&lt;").replace("@", "@\u200b")
