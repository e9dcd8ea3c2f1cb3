"""GitHub App mode: the App's JWT, one installation access token per installation (kept, and replaced before it
runs out), and the login the App comments as.

What GitHub asks: a JWT signed RS256 with the App's private key, `iss` the App's id (or client id), `iat` set back a
minute against clock drift and `exp` no more than ten minutes after it. With that JWT, POST
/app/installations/{id}/access_tokens gives a token that acts for that installation for an hour; we take a new one
once less than REFRESH_MARGIN_S is left. GET /app (with the JWT) gives the App's slug; its comments are written by
`<slug>[bot]`.

Every failure is a GitHubAppError of one line that names what to check; the key's text never appears in it.
"""
from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx
from pydantic import SecretStr

from bot.github.errors import GitHubAPIError, GitHubAppError
from kb.config import Settings

JWT_BACKDATE_S = 60        # iat this far in the past: GitHub's clock may be behind ours
JWT_LIFETIME_S = 540       # exp this far after now: 10 minutes after iat, GitHub's limit
REFRESH_MARGIN_S = 300     # take a new installation token when less than this is left on the one we hold
FALLBACK_TOKEN_S = 600     # how long to trust a token whose answer has no readable expires_at
KEY_SETTING = "TRIAGE_GITHUB_APP_PRIVATE_KEY"
ID_SETTING = "TRIAGE_GITHUB_APP_ID"

Request = Callable[..., httpx.Response]


@dataclass
class _Held:
    token: str
    expires_at: float      # on our clock


class GitHubApp:
    def __init__(self, app_id: str | None, private_key: SecretStr | None, request: Request,
                 clock: Callable[[], float] = time.time):
        """`request`: the client's request (method, path, auth=...), with its retries."""
        self.app_id = (app_id or "").strip()
        self._key_setting = private_key.get_secret_value().strip() if private_key is not None else ""
        self._request = request
        self.clock = clock
        self._key = None
        self._tokens: dict[int, _Held] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, request: Request, clock: Callable[[], float] = time.time
                      ) -> GitHubApp | None:
        """The App when either of its settings is given (a half-configured App says what is missing when used);
        None in the static-token mode."""
        key = settings.github_app_private_key
        if not (settings.github_app_id or "").strip() and not (key and key.get_secret_value().strip()):
            return None
        return cls(settings.github_app_id, key, request, clock)

    # --- the App's own credentials ---------------------------------------------------------------------------
    def check(self) -> None:
        """Raise GitHubAppError when the settings cannot work (missing, or a key that cannot be read)."""
        self._private_key()

    def _private_key(self):
        if self._key is not None:
            return self._key
        if not self.app_id:
            raise GitHubAppError(f"GitHub App mode: {KEY_SETTING} is set but {ID_SETTING} is not")
        if not self._key_setting:
            raise GitHubAppError(f"GitHub App mode: {ID_SETTING} is set but {KEY_SETTING} is not")
        missing = [name for name, module in (("PyJWT", "jwt"), ("cryptography", "cryptography"))
                   if importlib.util.find_spec(module) is None]
        if missing:
            raise GitHubAppError(f"GitHub App mode needs {' and '.join(missing)}: pip install 'triage-kb[github-app]'")
        self._key = load_private_key(self._key_setting)
        return self._key

    def jwt(self) -> str:
        """A fresh JWT for the App's own endpoints."""
        key = self._private_key()
        import jwt

        now = int(self.clock())
        claims = {"iat": now - JWT_BACKDATE_S, "exp": now + JWT_LIFETIME_S, "iss": self.app_id}
        return jwt.encode(claims, key, algorithm="RS256")

    def login(self) -> str:
        """`<slug>[bot]`, the login the App's comments carry (GET /app)."""
        resp = self._app_call("GET", "/app", "the App's identity")
        body = _json_object(resp)
        slug = body.get("slug")
        if not isinstance(slug, str) or not slug:
            raise GitHubAppError("GitHub App mode: GET /app answered without the App's slug")
        return f"{slug}[bot]"

    # --- installation tokens ---------------------------------------------------------------------------------
    def installation_token(self, installation_id: int) -> str:
        """The token for this installation: the one held while it has more than REFRESH_MARGIN_S left, else a
        new one."""
        with self._lock:
            held = self._tokens.get(installation_id)
            if held is not None and held.expires_at - self.clock() > REFRESH_MARGIN_S:
                return held.token
            held = self._mint(installation_id)
            self._tokens[installation_id] = held
            return held.token

    def forget(self, installation_id: int, token: str) -> None:
        """GitHub refused this token (revoked, or expired early): the next call takes a new one."""
        with self._lock:
            held = self._tokens.get(installation_id)
            if held is not None and held.token == token:
                del self._tokens[installation_id]

    def _mint(self, installation_id: int) -> _Held:
        asked_at = self.clock()
        resp = self._app_call("POST", f"/app/installations/{installation_id}/access_tokens",
                              f"an access token for installation {installation_id}")
        body = _json_object(resp)
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise GitHubAppError(f"GitHub App mode: no token in the answer for installation {installation_id}")
        return _Held(token, asked_at + _lifetime(resp, body.get("expires_at"), asked_at))

    def _app_call(self, method: str, path: str, what: str) -> httpx.Response:
        try:
            return self._request(method, path, auth=f"Bearer {self.jwt()}")
        except GitHubAppError:
            raise
        except GitHubAPIError as exc:
            hint = {401: f"; is {KEY_SETTING} this App's key and {ID_SETTING} its id?",
                    404: "; is the App installed there (and the id right)?"}.get(exc.status or 0, "")
            raise GitHubAppError(f"GitHub App mode: could not get {what}: {exc}{hint}", retryable=exc.retryable,
                                 status=exc.status, wait=exc.wait) from None


def load_private_key(value: str):
    """The RSA private key in `value`: the PEM itself (literal `\\n`s allowed, as some secret stores write them),
    or the path of a .pem file."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    if "-----BEGIN" in value:
        data, where = value.replace("\\n", "\n").encode(), f"the PEM in {KEY_SETTING}"
    else:
        shown = value if len(value) <= 300 and "\n" not in value else "(its value)"
        path = Path(value).expanduser()
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise GitHubAppError(f"GitHub App mode: {KEY_SETTING} is neither a PEM nor a file that can be read: "
                                 f"{shown}: {exc.strerror or type(exc).__name__}") from None
        where = f"{KEY_SETTING} file {shown}"
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise GitHubAppError(f"GitHub App mode: {where} is encrypted; give the key GitHub generated, without a "
                             "password") from None
    except (ValueError, UnsupportedAlgorithm):
        raise GitHubAppError(f"GitHub App mode: {where} is not a readable PEM private key") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise GitHubAppError(f"GitHub App mode: {where} is not an RSA key (GitHub signs Apps with RSA)")
    return key


def _json_object(resp: httpx.Response) -> dict:
    try:
        body = resp.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise GitHubAppError(f"GitHub App mode: {resp.request.method} {resp.request.url.path} did not answer a "
                             "JSON object")
    return body


def _lifetime(resp: httpx.Response, expires_at: object, fallback_now: float) -> float:
    """Seconds the token lasts: GitHub's `expires_at` less GitHub's own time (the answer's Date header), so a clock
    of ours that is off does not make a token look fresher than it is."""
    if isinstance(expires_at, str):
        try:
            ends = datetime.fromisoformat(expires_at.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return FALLBACK_TOKEN_S
        try:
            now = parsedate_to_datetime(resp.headers["date"]).timestamp()
        except (KeyError, TypeError, ValueError, IndexError):
            now = fallback_now
        return max(0.0, ends - now)
    return FALLBACK_TOKEN_S
