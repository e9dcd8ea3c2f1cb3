"""Settings: one table, read from environment variables with the prefix TRIAGE_.

Read once at the edge (CLI, server) and passed down; library code never reads os.environ itself.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

ENV_PREFIX = "TRIAGE_"

DEFAULT_MODEL = "multilingual-e5-small"


def user_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("triage-kb", appauthor=False))


def user_cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("triage-kb", appauthor=False))


class Settings(BaseModel):
    """Each field from `TRIAGE_<NAME>` (any case), unless given as an argument. A plain pydantic model: the settings
    library it replaced cost a tenth of a second of every `diagnose` to import."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _environment(cls, given: Any) -> Any:
        if not isinstance(given, dict):
            return given
        env = {k[len(ENV_PREFIX):].lower(): v for k, v in os.environ.items() if k.upper().startswith(ENV_PREFIX)}
        return {**{k: v for k, v in env.items() if k in cls.model_fields}, **given}

    kb: Path | None = Field(None, description="Knowledge-base folder; default: the bundled starter KB")
    cache_dir: Path = Field(default_factory=user_cache_dir, description="Unpacked models and built default KB")
    model: str = Field(
        DEFAULT_MODEL,
        description="Embedding model: the bundled multilingual-e5-small, or a sentence-transformers path/name",
    )
    encoder: Literal["auto", "onnx-int8", "torch"] = Field(
        "auto",
        description="Runtime of the bundled model: onnx-int8 (exported and quantized locally at first use), torch "
                    "(float32), or auto: onnx-int8 when it agrees with float32 on the check texts, else torch")
    device: Literal["auto", "cpu", "cuda"] = Field(
        "auto",
        description="Where ingest embeds: cuda (the torch runtime in float16 on the first CUDA GPU), cpu, or auto: "
                    "cuda when a CUDA GPU is usable here, which then takes the place of onnx-int8 for new KBs")
    max_file_bytes: int = Field(5_000_000, description="Files larger than this are skipped by ingest")
    max_report_bytes: int = Field(2_000_000, description="Reports are cut to this size before parsing")
    lang: Literal["auto", "en", "zh"] = Field(
        "auto", description="Language of the answers: auto (the report's: Chinese when the reporter writes mostly "
                            "Chinese), en or zh")

    # Service (`triage serve`)
    workers: int | None = Field(
        None, ge=0, description="Diagnosis worker processes of `triage serve` (default: one per core); 0: diagnose "
                                "in the service process, one at a time")
    max_request_bytes: int = Field(2_000_000, description="Larger HTTP request bodies are refused with 413")
    # Shared state (deliveries, feedback, repro results): the KB folder's SQLite file, or PostgreSQL
    database_url: SecretStr | None = Field(
        None, description="postgresql://user:password@host:port/db: state shared by several replicas (default: "
                          "state.sqlite in the KB folder)")
    replica_id: str | None = Field(
        None, description="This replica's name in the deliveries it claims; unique per running replica "
                          "(default: the host name)")
    delivery_lease_s: float = Field(
        30.0, gt=0, description="How long a claimed delivery stays with its replica without a heartbeat; a "
                                "replica that died loses its deliveries to the others after this")
    kb_reload_s: float = Field(
        30.0, ge=0, description="How often the service looks for a new generation of its KB folder (a later "
                                "`triage ingest` or `triage import`) and switches to it once loaded; 0: never")
    # GitHub issue auto-commenter
    github_webhook_secret: SecretStr | None = Field(None, description="Secret of the webhook (X-Hub-Signature-256)")
    github_token: SecretStr | None = Field(None, description="Token the bot comments and labels with")
    github_api_url: str = Field("https://api.github.com", description="GitHub API base (tests, GitHub Enterprise)")
    github_label: str = Field("triage:known-issue", description="Label added to issues with a known cause")
    github_comment_no_match: bool = Field(False, description="Also comment when no postmortem fits")
    github_retry_attempts: int = Field(5, ge=1, description="Tries per GitHub API call (5xx, 429, rate limits)")
    github_retry_backoff_s: float = Field(1.0, ge=0, description="First retry delay; doubles per try")
    github_retry_max_wait_s: float = Field(60.0, ge=0, description="Longest wait between tries (Retry-After capped)")
    github_feedback_roles: str = Field(
        "OWNER,MEMBER,COLLABORATOR",
        description="author_association values whose `/triage wrong|fixed` counts (comma-separated); the issue's "
                    "author always counts on their own issue")
    github_bot_login: str | None = Field(
        None, description="Login the bot comments as; default: asked once (GET /user, or the App's `slug[bot]`)")
    github_app_id: str | None = Field(
        None, description="GitHub App mode: the App's id (or client id); API calls then use installation tokens "
                          "minted with TRIAGE_GITHUB_APP_PRIVATE_KEY instead of TRIAGE_GITHUB_TOKEN")
    github_app_private_key: SecretStr | None = Field(
        None, description="GitHub App mode: the App's private key, a path to its .pem file or the PEM itself")
    # Slack bot
    slack_signing_secret: SecretStr | None = Field(None, description="Slack app signing secret")
    slack_bot_token: SecretStr | None = Field(None, description="Slack bot token (xoxb-...)")
    slack_app_token: SecretStr | None = Field(None, description="Slack app-level token for Socket Mode (xapp-...)")
    slack_api_url: str = Field("https://slack.com/api/", description="Slack Web API base (tests point it elsewhere)")
    slack_response_type: str = Field("in_channel", description="Slash command answers: in_channel or ephemeral")
    # Feedback from either surface
    feedback_veto_scope: Literal["repository", "global"] = Field(
        "repository", description="Where a 'wrong' vote keeps an entry out of answers: its own repository or "
                                  "Slack workspace, or everywhere")
    # Repro-runner
    ray_address: str | None = Field(None, description="Ray cluster for `repro run --backend ray` (default: local)")

    def feedback_roles(self) -> set[str]:
        return {r.strip().upper() for r in self.github_feedback_roles.split(",") if r.strip()}

    def default_kb_dir(self) -> Path:
        return user_data_dir() / "kb"



def _expected_form(name: str, error: dict) -> str:
    """What the value of setting `name` must look like, from pydantic's error about it."""
    kind = error["type"]
    if kind.startswith("int"):
        return "a whole number of bytes, such as 5000000 (no unit)" if name.endswith("_bytes") else "a whole number"
    if kind.startswith("float"):
        return "a number, such as 1.5"
    if kind.startswith("bool"):
        return "true or false"
    if kind in ("greater_than_equal", "greater_than"):
        bound = error.get("ctx", {})
        return f"a number of at least {bound.get('ge', bound.get('gt'))}"
    return str(error.get("msg", "another value")).lower()


def load_settings(**overrides) -> Settings:
    """Settings from the environment; a bad value is a ConfigError of one line naming the variable and the form its
    value takes (never pydantic's multi-line report)."""
    from pydantic import ValidationError

    from kb.errors import ConfigError

    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            name = str(error["loc"][0]) if error.get("loc") else "?"
            secret = any(word in name for word in ("secret", "token", "key"))
            value = "" if secret else f"={error.get('input')}"
            problems.append(f"TRIAGE_{name.upper()}{value}: expected {_expected_form(name, error)}")
        raise ConfigError("bad setting " + "; ".join(problems)) from None
