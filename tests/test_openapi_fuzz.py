"""The service against a schema fuzzer: schemathesis reads /openapi.json from a live service (uvicorn on 127.0.0.1,
a real KB) and sends generated requests to every operation. Whatever it sends, the service never answers 5xx, and
every answer it gives is one its OpenAPI document declares (status code, content type, body schema)."""
from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is a test extra (pip install -e .[test])")

from hypothesis import HealthCheck, given, settings  # noqa: E402

from bot.service.app import create_app  # noqa: E402
from kb.config import Settings  # noqa: E402
from tests.fakes.slack_api import FakeSlack  # noqa: E402
from tests.service_support import LiveServer, small_kb  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(cache_dir, tmp_path_factory):
    """Every surface switched on (so a 503 would be a fault): GitHub and Slack secrets set, Slack's API faked."""
    kb_dir = small_kb(cache_dir, tmp_path_factory.mktemp("fuzz") / "kb")
    with FakeSlack(bot_token="xoxb-fuzz", app_token="xapp-fuzz") as slack:
        settings = Settings(cache_dir=cache_dir, kb=kb_dir, github_webhook_secret="fuzz-secret",
                            github_token="fuzz-token", github_api_url="http://127.0.0.1:9", slack_signing_secret="s",
                            slack_bot_token="xoxb-fuzz", slack_api_url=slack.api_url)
        with LiveServer(create_app(settings)) as srv:
            yield srv


def test_no_request_the_schema_allows_gets_a_server_error_or_an_undeclared_answer(live):
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                                   status_code_conformance)

    schema = schemathesis.openapi.from_url(f"{live.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {op.path for op in operations} >= {"/v1/diagnose", "/github/webhook", "/slack/events"}
    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    for op in operations:
        @given(case=op.as_strategy())
        @settings(max_examples=25, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def fuzz(case):
            case.call_and_validate(checks=checks)

        fuzz()
