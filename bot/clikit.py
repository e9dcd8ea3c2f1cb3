"""What every command of the CLI shares: errors of ours as one line with an exit code (`guarded`), Ctrl-C as 130, the
`--debug`, `--version` and `--kb` options, and the settings read once per invocation. Command modules import it;
it imports no command (bot.cli registers them).
"""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

import click

from kb import __version__
from kb.config import Settings, load_settings
from kb.errors import BadInput, ConfigError, KBError

_debug = False
INTERRUPTED = 130          # what a shell reports for a program stopped by Ctrl-C (128 + SIGINT)


def _fail(message: str, code: int) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _exit_code(exc: KBError) -> int:
    return 2 if isinstance(exc, (BadInput, ConfigError)) else 1


def guarded(fn):
    """Turn our errors into one line and an exit code; anything unexpected too, unless --debug."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except KBError as exc:
            _fail(exc.user_message, _exit_code(exc))
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except Exception as exc:  # noqa: BLE001 - the edge of the program
            if _debug:
                raise
            _fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)", 1)

    return wrapper


class _Edges:
    """What every command shares at its edge, whichever way it was started (`triage X`, or `diagnose` alone):
    Ctrl-C ends it with one line and exit code 130, and an error of ours raised outside `guarded` (a bad TRIAGE_*
    setting read by a command's first line) is one line too."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            if _debug:
                import traceback

                traceback.print_exc()
            click.echo("interrupted", err=True)
            sys.exit(INTERRUPTED)
        except KBError as exc:
            _fail(exc.user_message, _exit_code(exc))


class TriageGroup(_Edges, click.Group):
    pass


class TriageCommand(_Edges, click.Command):
    pass


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    global _debug
    _debug = _debug or value


def debug_option(fn):
    return click.option("--debug", is_flag=True, expose_value=False, is_eager=True, callback=_set_debug,
                        help="Show the full traceback of an unexpected error.")(fn)


def version_option(fn):
    return click.version_option(__version__, "--version", prog_name="triage-kb",
                                message="%(prog)s %(version)s")(fn)


def settings_from(ctx: click.Context) -> Settings:
    """The settings (TRIAGE_* variables), read on first use; a bad value is a one-line ConfigError."""
    obj = ctx.ensure_object(dict)
    if "settings" not in obj:
        settings = load_settings()
        from kb.index.tokenize import use_cache_dir

        use_cache_dir(settings.cache_dir)
        obj["settings"] = settings
    return obj["settings"]


def kb_option(fn):
    return click.option(
        "--kb", "kb_dir", type=click.Path(path_type=Path), default=None,
        help="Knowledge-base folder (default: $TRIAGE_KB, else your own KB if you built one, else the bundled starter KB).",
    )(fn)


CONTEXT = {"help_option_names": ["-h", "--help"]}
