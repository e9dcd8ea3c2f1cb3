"""`triage import github`: a fake GitHub REST API on 127.0.0.1 (tests/fakes/github_issues.py), the real importer,
the real ingest build and embedding model, the real matcher.

The threads cover a maintainer's diagnosis, a reporter's confirmation, a closing pull request, a Chinese thread, a
stale close, a duplicate, and a pull request among the issues (skipped).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.config import Settings
from kb.index import store
from kb.index.hybrid import KnowledgeBase
from kb.models import SCHEMA_VERSION
from tests.conftest import BACKGROUND
from tests.fakes.github_issues import FakeIssuesAPI
from tests.service_support import REPORTS

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
REPO = "acme/trainer"

ZERO3 = """\
Loading the checkpoint after `deepspeed.initialize` with ZeRO stage 3 fails:

```
Traceback (most recent call last):
  File "/home/alice/train.py", line 88, in <module>
    model.load_state_dict(torch.load("ckpt/pytorch_model.bin"))
  File "/usr/lib/python3.10/site-packages/torch/nn/modules/module.py", line 2041, in load_state_dict
    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(
RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:
	size mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([32000, 4096]) from checkpoint, the shape in current model is torch.Size([0]).
```

deepspeed==0.12.3, transformers==4.36.2, torch 2.1.0
"""

LFS = """\
```
Traceback (most recent call last):
  File "/data/run/finetune.py", line 12, in <module>
    state = torch.load("weights/model.bin")
  File "/opt/conda/lib/python3.9/site-packages/torch/serialization.py", line 1028, in load
    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)
_pickle.UnpicklingError: invalid load key, 'v'.
```
torch 2.0.1
"""

PAD = f"```\n{(REPORTS / 'pad_token_collate.txt').read_text(encoding='utf-8')}```\ntransformers==4.40.0\n"

SHM_ZH = """\
在 Docker 容器里用 8 卡跑 torchrun 训练，一开始就报错：

```
torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1
ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.
Last error:
Error while creating shared memory segment /dev/shm/nccl-7f3a2b (size 9637888)
```

环境：torch 2.1.2，CUDA 12.1
"""

DORA = """\
Fine-tuning with DoRA enabled:

```
  File "/home/gus/ft/lora.py", line 31, in build
    config = LoraConfig(r=16, lora_alpha=32, use_dora=True, target_modules=["q_proj", "v_proj"])
TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'
```
"""


def populate(fake: FakeIssuesAPI) -> None:
    fake.add_issue(REPO, 1, "size mismatch torch.Size([0]) when loading a checkpoint with ZeRO-3", ZERO3, "alice")
    fake.add_comment(REPO, 1, "Same here.", "bob")
    fake.add_comment(REPO, 1, "This is caused by ZeRO-3 partitioning: after `deepspeed.initialize` every parameter "
                              "is a placeholder of size 0 until it is gathered. Load the weights before "
                              "`deepspeed.initialize`, or inside `deepspeed.zero.GatheredParameters(...)`.",
                     "maint", "MEMBER")
    fake.close(REPO, 1)

    fake.add_issue(REPO, 2, "invalid load key 'v' when loading weights", LFS, "carol")
    fake.add_comment(REPO, 2, "The file is probably a Git LFS pointer, not the weights: run `git lfs install` and "
                              "`git lfs pull` in the clone.", "dave")
    fake.add_comment(REPO, 2, "Thanks, that fixed it, works now.", "carol")
    fake.close(REPO, 2)

    fake.add_issue(REPO, 3, "SFT collate fails: tokenizer has no padding token", PAD, "erin")
    fake.add_issue(REPO, 50, "Set pad_token to eos_token when the tokenizer has none", "Fixes #3", "maint",
                   pull_request=True, association="MEMBER")   # GitHub lists pull requests among issues
    fake.close_with_pr(REPO, 3, 50, "Set pad_token to eos_token when the tokenizer has none")

    fake.add_issue(REPO, 4, "Docker 中多卡训练 NCCL 报 unhandled system error", SHM_ZH, "fang")
    fake.add_comment(REPO, 4, "原因是 Docker 容器默认的 /dev/shm 只有 64MB，NCCL 需要更大的共享内存。"
                              "解决方法：docker run 时加上 --shm-size=16g 或者 --ipc=host。", "maint", "COLLABORATOR")
    fake.add_comment(REPO, 4, "加了 --shm-size=16g 之后解决了，谢谢！", "fang")
    fake.close(REPO, 4)

    fake.add_issue(REPO, 5, "LoraConfig rejects use_dora", DORA, "gus")
    fake.add_comment(REPO, 5, "+1", "hal")
    fake.add_comment(REPO, 5, "This issue has been automatically marked as stale because it has not had recent "
                              "activity. Closing.", "stale[bot]", "NONE", user_type="Bot")
    fake.close(REPO, 5, "not_planned")

    fake.add_issue(REPO, 6, "load_state_dict size mismatch with deepspeed", ZERO3.replace("alice", "ivy"), "ivy")
    fake.add_comment(REPO, 6, "Duplicate of #1", "maint", "MEMBER")
    fake.close(REPO, 6, "duplicate")


@pytest.fixture
def fake():
    with FakeIssuesAPI() as api:
        populate(api)
        yield api


def settings_for(fake: FakeIssuesAPI, cache_dir: Path) -> Settings:
    return Settings(cache_dir=cache_dir, github_api_url=fake.url, github_token=fake.token,
                    github_retry_backoff_s=0.001, github_retry_max_wait_s=0.01)


def env_for(fake: FakeIssuesAPI, cache_dir: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "TRIAGE_CACHE_DIR": str(cache_dir),
            "TRIAGE_GITHUB_API_URL": fake.url, "TRIAGE_GITHUB_TOKEN": fake.token,
            "TRIAGE_GITHUB_RETRY_BACKOFF_S": "0.001", "TRIAGE_GITHUB_RETRY_MAX_WAIT_S": "0.01"}


def cli(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], env=env, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def docs_by_number(kb_dir: Path, settings: Settings) -> dict[int, object]:
    kb = KnowledgeBase.open(kb_dir, settings)
    try:
        return {d.issue_number: d for d in kb.documents().values() if d.is_issue}
    finally:
        kb.close()


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """A KB of background postmortems plus the fake repository's threads, imported once for this module; the first
    import meets a secondary rate limit (403 with Retry-After), a 429 and a spent primary limit on the way."""
    from ingest.build import ingest
    from ingest.github_import import import_github

    cache = ROOT / ".cache" / "test"
    with FakeIssuesAPI() as fake:
        populate(fake)
        settings = settings_for(fake, cache)
        kb_dir = tmp_path_factory.mktemp("gh") / "kb"
        ingest(BACKGROUND, kb_dir, settings)
        fake.fail(r"/issues$", 403, headers={"Retry-After": "30"})
        fake.fail(r"/issues/2/comments$", 429, headers={"Retry-After": "30"})
        fake.fail(r"/issues/4/timeline$", 403, headers={"X-RateLimit-Remaining": "0",
                                                         "X-RateLimit-Reset": str(int(__import__("time").time()) + 600)})
        waits: list[float] = []
        report = import_github([REPO], kb_dir, settings, sleep=waits.append)
        yield fake, kb_dir, settings, report, waits


def test_each_thread_gets_the_right_resolution_and_source(imported):
    fake, kb_dir, settings, report, waits = imported
    assert report.as_dict() == {"fetched": 6, "added": 6, "updated": 0, "unchanged": 0, "resolved": 4,
                                "unresolved": 2, "skipped": {"pull request": 1}, "requests": report.requests,
                                "not_modified": 0}
    docs = docs_by_number(kb_dir, settings)
    assert sorted(docs) == [1, 2, 3, 4, 5, 6], "the pull request #50 is not a document"
    comments = {(n, c["user"]["login"]): c["id"] for (_, n), cs in fake.comments.items() for c in cs}

    one = docs[1]
    assert one.source == "github:acme/trainer#1" and one.url == "https://github.com/acme/trainer/issues/1"
    assert (one.resolution.kind, one.resolution.comment_id, one.resolution.author_association) == (
        "maintainer", comments[(1, "maint")], "MEMBER")
    assert "ZeRO-3 partitioning" in one.root_cause and one.fixes[0].verified_by == "maintainer"
    assert any("torch.Size([0])" in line for line in one.error_lines), "error lines come from the reporter's post"

    two = docs[2]
    assert (two.resolution.kind, two.resolution.comment_id) == ("reporter", comments[(2, "carol")])
    assert "git lfs pull" in two.resolution.text, "a bare 'that fixed it' carries the suggestion it answers"
    assert two.fixes[0].verified_by == "reporter"

    three = docs[3]
    assert (three.resolution.kind, three.resolution.pull_request) == ("pull_request", 50)
    assert three.resolution.text.startswith("Set pad_token to eos_token")

    four = docs[4]
    assert four.langs[0] == "zh" and four.resolution.kind == "maintainer"
    assert four.resolution.author_association == "COLLABORATOR" and "--shm-size" in four.resolution.text
    assert four.fixes[0].verified_by == "reporter", "the reporter said 解决了 after the maintainer's fix"

    five = docs[5]
    assert five.resolution is None and five.state_reason == "not_planned", "a stale close resolves nothing"
    six = docs[6]
    assert six.resolution is None and six.duplicate_of == "acme/trainer#1"


def test_rate_limits_are_waited_for_and_capped(imported):
    fake, kb_dir, settings, report, waits = imported
    assert [r.status for r in fake.requests_to(r"/issues$")][:2] == [403, 200]
    assert [r.status for r in fake.requests_to(r"/issues/2/comments$")] == [429, 200]
    assert [r.status for r in fake.requests_to(r"/issues/4/timeline$")] == [403, 200]
    # Retry-After 30 (twice) and a reset 600 s away: each waited for, capped by TRIAGE_GITHUB_RETRY_MAX_WAIT_S.
    assert len(waits) == 3 and all(0 < w <= settings.github_retry_max_wait_s for w in waits)
    assert report.requests == len(fake.requests)


def test_export_shows_source_url_state_and_resolution(imported):
    from bot.cli import main

    fake, kb_dir, settings, report, waits = imported
    out = CliRunner().invoke(main, ["export", "--kb", str(kb_dir)],
                             env={"TRIAGE_CACHE_DIR": str(settings.cache_dir)})
    assert out.exit_code == 0, out.output
    rows = {r["source"]: r for r in map(json.loads, out.output.splitlines())}
    three = rows["github:acme/trainer#3"]
    assert (three["url"], three["state"]) == ("https://github.com/acme/trainer/issues/3", "closed")
    assert three["resolution"] == {"text": three["resolution"]["text"], "kind": "pull_request", "comment_id": None,
                                   "author_association": None, "pull_request": 50, "commit": "a1b2c3d4e5f6"}
    assert rows["github:acme/trainer#5"]["resolution"] is None


def test_a_new_report_of_a_resolved_failure_is_answered_with_the_thread(imported):
    from bot.render.terminal import print_diagnosis
    from kb.diagnose import Diagnoser

    fake, kb_dir, settings, report, waits = imported
    text = QWEN          # thread #1's failure from another machine
    kb = KnowledgeBase.open(kb_dir, settings)
    try:
        diagnoser = Diagnoser(kb)
        diag = diagnoser.diagnose(text)
        assert diagnoser.last_ranking[0][0] == "gh__acme__trainer__1"
        assert diag.verdict == "match", diag.reason
        issue = diag.matches[0].issue
        assert (issue.number, issue.state, issue.url) == (1, "closed", "https://github.com/acme/trainer/issues/1")
        assert (issue.resolution.kind, issue.resolution.author_association) == ("maintainer", "MEMBER")
        from rich.console import Console

        import bot.render.terminal as render

        console = Console(record=True, width=200)
        old, render.console = render.console, console
        try:
            print_diagnosis(diag)
        finally:
            render.console = old
        shown = console.export_text()
        assert "acme/trainer#1 (closed)" in shown and "https://github.com/acme/trainer/issues/1" in shown
        assert "resolution (maintainer, MEMBER)" in shown

        # The auto-commenter's one comment cites the thread and the pull request that fixed it.
        from bot.render.markdown import render_match

        comment = render_match(diag)
        assert "This looks like [acme/trainer#1](https://github.com/acme/trainer/issues/1) (closed); resolution " \
               "from a maintainer (MEMBER)." in comment
        pad = diagnoser.diagnose('  File "/app/train_sft.py", line 77, in collate_fn\n' + PAD.splitlines()[3])
        assert pad.verdict == "match" and pad.matches[0].issue.pull_request == 50
        assert "(closed, fixed by acme/trainer#50)" in render_match(pad)

        # The stale thread #5 is the same failure as this report, but nobody resolved it: related, never the answer.
        dora = diagnoser.diagnose('  File "/srv/ft.py", line 9, in main\n    cfg = LoraConfig(r=8, use_dora=True)\n'
                                  "TypeError: LoraConfig.__init__() got an unexpected keyword argument 'use_dora'\n")
        assert dora.verdict == "no_match" and not dora.matches
        assert dora.related[0].entry_id == "gh__acme__trainer__5"
        assert dora.related[0].reason.startswith("an unresolved report of the same failure: #5")

        # The auto-commenter's case: the report is issue #1 itself, which is never proposed against itself.
        itself = diagnoser.diagnose(text, exclude=["github:acme/trainer#1"])
        assert all(m.entry_id != "gh__acme__trainer__1" for m in itself.matches + itself.related)
    finally:
        kb.close()


def test_a_second_import_asks_only_conditionally_and_embeds_nothing(imported):
    from ingest.github_import import import_github

    fake, kb_dir, settings, report, waits = imported
    gen = store.current_generation(kb_dir)
    fake.clear_requests()
    again = import_github([REPO], kb_dir, settings)
    assert fake.requests and all(r.if_none_match for r in fake.requests), "every request is conditional"
    assert again.not_modified == again.requests == len(fake.requests)
    assert (again.fetched, again.added, again.updated, again.embedded) == (0, 0, 0, 0)
    assert store.current_generation(kb_dir) == gen, "nothing changed: no generation written"

    # A maintainer answers the stale thread: the next import reads that thread only, and it is resolved now.
    fake.add_comment(REPO, 5, "DoRA came with peft 0.9.0; upgrade peft to fix this.", "maint", "OWNER")
    fake.clear_requests()
    third = import_github([REPO], kb_dir, settings)
    assert (third.fetched, third.updated, third.added) == (1, 1, 0) and third.embedded > 0
    assert {r.path for r in fake.requests if "/issues/" in r.path} == {
        "/repos/acme/trainer/issues/5/comments", "/repos/acme/trainer/issues/5/timeline"}
    # Its first page of comments did not change (304); the page the new comment opened was read.
    assert [r.status for r in fake.requests_to(r"/issues/5/comments$")] == [304, 200]
    assert fake.requests_to(r"/issues/5/timeline$")[0].status == 304, "its timeline did not change"
    assert docs_by_number(kb_dir, settings)[5].resolution.kind == "maintainer"


def test_a_sigkill_during_an_import_leaves_the_kb_loadable_and_the_next_run_resumes(tmp_path):
    from ingest.github_import import import_github

    cache = ROOT / ".cache" / "test"
    kb_dir = tmp_path / "kb"
    with FakeIssuesAPI() as fake:
        populate(fake)
        settings = settings_for(fake, cache)
        first = import_github([REPO], kb_dir, settings, limit=2)
        assert (first.added, sorted(docs_by_number(kb_dir, settings))) == (2, [1, 2])
        gen = store.current_generation(kb_dir)

        release = fake.hold(r"/issues/4/comments$")
        proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "import", "github", REPO, "--kb", str(kb_dir),
                                 "--json"], env=env_for(fake, cache), cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            assert fake.wait_for(r"/issues/4/comments$"), "the import reached thread #4"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == -signal.SIGKILL
        assert store.current_generation(kb_dir) == gen, "the killed run published nothing"
        assert sorted(docs_by_number(kb_dir, settings)) == [1, 2], "the previous KB loads as it was"
        assert fake.requests_to(r"/issues/3/timeline$"), "thread #3 was read before the kill"

        fake.clear_requests()
        resumed = import_github([REPO], kb_dir, settings)
        assert not fake.requests_to(r"/issues/3/"), "what the killed run read is not asked for again"
        assert resumed.added == 4 and sorted(docs_by_number(kb_dir, settings)) == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("case", ["bad name", "unknown repo", "bad token", "api down", "bad since"])
def test_every_failure_is_one_line_and_exit_2(case, tmp_path):
    from bot.cli import main

    with FakeIssuesAPI() as fake:
        populate(fake)
        env = {k: v for k, v in env_for(fake, ROOT / ".cache" / "test").items() if k.startswith("TRIAGE_")}
        args = ["import", "github", REPO, "--kb", str(tmp_path / "kb"), "--json"]
        if case == "bad name":
            args[2] = "acme"
        elif case == "unknown repo":
            args[2] = "acme/nothing"
        elif case == "bad token":
            env["TRIAGE_GITHUB_TOKEN"] = "wrong"
        elif case == "api down":
            env["TRIAGE_GITHUB_API_URL"] = "http://127.0.0.1:9"
        else:
            args += ["--since", "last tuesday"]
        out = CliRunner().invoke(main, args, env=env)
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out.output, out.output
    expected = {"bad name": "not a repository name", "unknown repo": "acme/nothing issues: not found (404)",
                "bad token": "refused the token (401", "api down": "cannot reach the GitHub API",
                "bad since": "--since 'last tuesday'"}[case]
    assert expected in lines[0]


# A report of thread #1's failure from another machine (other paths, line numbers, sizes and model).
QWEN = """Traceback (most recent call last):
  File "/mnt/jobs/qwen_sft/run.py", line 212, in main
    model.load_state_dict(sd, strict=False)
  File "/opt/conda/envs/py311/lib/python3.11/site-packages/torch/nn/modules/module.py", line 2153, in load_state_dict
RuntimeError: Error(s) in loading state_dict for Qwen2ForCausalLM:
	size mismatch for lm_head.weight: copying a param with shape torch.Size([152064, 3584]) from checkpoint, the shape in current model is torch.Size([0]).
"""


def _later(stamp: str, seconds: float) -> str:
    from datetime import datetime, timedelta

    t = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_the_same_authors_own_thread_of_the_same_hour_is_never_the_answer(imported):
    from kb.diagnose import Diagnoser, NotBy

    fake, kb_dir, settings, report, waits = imported
    opened = fake.issues[REPO][1]["created_at"]
    kb = KnowledgeBase.open(kb_dir, settings)
    try:
        one = kb.documents()["gh__acme__trainer__1"]
        assert (one.author, one.created_at) == ("alice", opened), "the opening post's author and time are kept"
        diagnoser = Diagnoser(kb)
        # alice files the same failure again 20 minutes after her own #1: #1 is not a known fix for her.
        diag = diagnoser.diagnose(QWEN, not_by=NotBy("Alice", _later(opened, 20 * 60)))
        assert all(m.entry_id != "gh__acme__trainer__1" for m in diag.matches)
        shown = {r.entry_id: r.reason for r in diag.related}
        assert shown.get("gh__acme__trainer__1", "").startswith("opened by @alice, who wrote this report, within an "
                                                                "hour of it"), diag.related
        assert all(m.issue is None or m.issue.number != 1 for m in diag.matches), \
            "nor through #6, the duplicate that points to #1"
        # Three hours later, or someone else within the hour: #1 is the answer.
        for not_by in (NotBy("alice", _later(opened, 3 * 3600)), NotBy("bob", _later(opened, 60))):
            diag = diagnoser.diagnose(QWEN, not_by=not_by)
            assert diag.verdict == "match" and diag.matches[0].entry_id == "gh__acme__trainer__1", not_by
    finally:
        kb.close()


def test_the_github_worker_does_not_answer_an_issue_with_its_authors_thread_of_the_same_hour(imported, tmp_path):
    import shutil

    from bot.service.app import create_app
    from tests.fakes.github_api import FakeGitHub
    from tests.service_support import LiveServer, issue_payload, post_webhook, wait_until

    issues, kb_dir, settings, report, waits = imported
    opened = issues.issues[REPO][1]["created_at"]
    kb_copy = tmp_path / "kb"
    shutil.copytree(kb_dir, kb_copy, ignore=shutil.ignore_patterns("state.sqlite*", ".lock", "github"))
    secret, token = "webhook-secret", "bot-token"
    with FakeGitHub(token=token) as gh:
        app_settings = Settings(cache_dir=settings.cache_dir, kb=kb_copy, github_webhook_secret=secret,
                                github_token=token, github_api_url=gh.url, github_retry_backoff_s=0.01,
                                github_retry_max_wait_s=0.05, github_comment_no_match=True)
        server = LiveServer(create_app(app_settings))
        with server:
            def deliver(number: int, author: str, created_at: str) -> str:
                payload = issue_payload(number, "ZeRO-3 checkpoint load fails again", QWEN, sender=author)
                payload["issue"]["created_at"] = created_at
                resp = post_webhook(server.url, "issues", payload, secret)
                assert resp.status_code == 202, resp.text
                assert wait_until(lambda: gh.bot_comments(REPO, number), 60), f"no comment on #{number}"
                return gh.bot_comments(REPO, number)[0]["body"]

            # alice, 20 minutes after opening #1, opens #7 with the same failure: not "this looks like #1".
            same_hour = deliver(7, "alice", _later(opened, 20 * 60))
            assert "This looks like" not in same_hour and "entry=gh__acme__trainer__1" not in same_hour
            # Listed as related, saying why (the login is written so that it does not notify alice).
            assert "- `gh__acme__trainer__1` size mismatch" in same_hour, same_hour
            assert "who wrote this report, within an hour of it: their own report of it, not a known fix" in same_hour
            assert "@alice" not in same_hour
            # The same report by alice a day later: #1 is the known fix.
            next_day = deliver(8, "alice", _later(opened, 24 * 3600))
            assert next_day.startswith("<!-- triage-kb entry=gh__acme__trainer__1 ")
            assert "This looks like [acme/trainer#1](https://github.com/acme/trainer/issues/1) (closed)" in next_day


def test_a_reopened_thread_is_unresolved_until_closed_again_with_a_new_resolution(tmp_path):
    from ingest.github_import import import_github
    from kb.diagnose import Diagnoser

    with FakeIssuesAPI() as fake:
        populate(fake)
        fake.add_issue(REPO, 7, "Open question about LoRA ranks", "What rank should I use?", "kim", state="open")
        settings = settings_for(fake, ROOT / ".cache" / "test")
        kb_dir = tmp_path / "kb"
        first = import_github([REPO], kb_dir, settings)
        assert first.skipped == {"pull request": 1, "open": 1}, "--state closed leaves the open #7 out"
        assert docs_by_number(kb_dir, settings)[1].resolution.kind == "maintainer"

        # alice reopens #1: the maintainer's fix did not hold.
        fake.add_comment(REPO, 1, "Still fails when I load before `deepspeed.initialize`, reopening.", "alice")
        fake.reopen(REPO, 1, "alice")
        second = import_github([REPO], kb_dir, settings)
        assert (second.fetched, second.updated, second.unresolved, second.resolved) == (1, 1, 1, 0)
        one = docs_by_number(kb_dir, settings)[1]
        assert (one.state, one.state_reason, one.resolution, one.fixes) == ("open", "reopened", None, [])
        kb = KnowledgeBase.open(kb_dir, settings)
        try:
            diag = Diagnoser(kb).diagnose(QWEN)
            assert all(m.entry_id != "gh__acme__trainer__1" and (m.issue is None or m.issue.number != 1)
                       for m in diag.matches), "a reopened thread is never the answer (nor through its duplicate)"
            reasons = {r.entry_id: r.reason for r in diag.related}
            assert "reopened" in reasons.get("gh__acme__trainer__1", ""), diag.related
        finally:
            kb.close()

        # A maintainer finds the real cause and closes it again: the new resolution, not the one that did not hold.
        new = fake.add_comment(REPO, 1, "The real cause is a bug in transformers 4.36 that drops the gathered "
                                        "weights; upgrade transformers to 4.37.0 to fix it.", "maint", "MEMBER")
        fake.close(REPO, 1)
        third = import_github([REPO], kb_dir, settings)
        assert (third.fetched, third.updated, third.resolved) == (1, 1, 1)
        one = docs_by_number(kb_dir, settings)[1]
        assert (one.state, one.state_reason) == ("closed", "completed")
        assert (one.resolution.kind, one.resolution.comment_id) == ("maintainer", new["id"])
        assert "4.37.0" in one.resolution.text and "partitioning" not in one.resolution.text

        # Reopened and closed again with nothing said since: the old resolution does not come back.
        fake.reopen(REPO, 1, "alice")
        fake.close(REPO, 1)
        import_github([REPO], kb_dir, settings)
        assert docs_by_number(kb_dir, settings)[1].resolution is None


def test_a_kb_imported_before_authors_were_kept_loads_and_the_next_import_fills_them_in(tmp_path):
    import sqlite3

    from ingest.github_import import import_github

    with FakeIssuesAPI() as fake:
        populate(fake)
        settings = settings_for(fake, ROOT / ".cache" / "test")
        kb_dir = tmp_path / "kb"
        import_github([REPO], kb_dir, settings)
        # Make it what the previous version wrote: schema 1, documents without author and created_at (and hashed as
        # thread format 1), and an import state that does not say which thread format made them.
        gen = store.current_generation(kb_dir)
        conn = sqlite3.connect(gen / store.DB)
        for doc_id, data in conn.execute("SELECT doc_id, data FROM documents").fetchall():
            doc = json.loads(data)
            doc.pop("author", None)
            doc.pop("created_at", None)
            doc["content_hash"] = "format-1-" + doc["content_hash"]     # what thread format 1 hashed differs
            conn.execute("UPDATE documents SET data = ?, content_hash = ? WHERE doc_id = ?",
                         (json.dumps(doc), doc["content_hash"], doc_id))
        conn.commit()
        conn.close()
        manifest = json.loads((gen / store.MANIFEST).read_text())
        manifest.update(schema_version=1, checksums=store.generation_checksums(gen))
        store.write_manifest(gen, manifest)
        state_file = kb_dir / "github" / "state.json"
        state = json.loads(state_file.read_text())
        state.pop("thread_format")
        state_file.write_text(json.dumps(state))

        old = docs_by_number(kb_dir, settings)
        assert sorted(old) == [1, 2, 3, 4, 5, 6] and old[1].author is None, "a schema 1 KB still loads"

        fake.clear_requests()
        again = import_github([REPO], kb_dir, settings)
        assert not fake.requests_to(r"/issues/\d+/"), "the threads come from the cache"
        assert (again.updated, again.embedded) == (6, 0), "rebuilt documents, the same chunks and vectors"
        docs = docs_by_number(kb_dir, settings)
        assert (docs[1].author, docs[1].created_at) == ("alice", fake.issues[REPO][1]["created_at"])
        manifest = json.loads((store.current_generation(kb_dir) / store.MANIFEST).read_text())
        assert manifest["schema_version"] == SCHEMA_VERSION


def test_reopened_is_read_from_the_state_or_the_timeline():
    from ingest.github_thread import reopened

    closed, again = {"event": "closed", "created_at": "2024-01-01T00:00:00Z"}, {"event": "reopened",
                                                                                "created_at": "2024-01-02T00:00:00Z"}
    assert reopened({"state": "open", "state_reason": "reopened"}, [])
    assert reopened({"state": "open", "state_reason": None}, [closed, again]), "a reopened event after the close"
    assert not reopened({"state": "open", "state_reason": None}, []), "never closed: open, not reopened"
    assert reopened({"state": "closed", "state_reason": "completed"}, [closed, again]), "a timeline ahead of state"
    assert not reopened({"state": "closed", "state_reason": "completed"}, [closed, again, closed])
