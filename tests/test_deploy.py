"""deploy/: the Dockerfile, compose file and Kubernetes manifests agree with each other and with the code
(image, port, probes on /healthz, secret keys named after the TRIAGE_ settings, the KB volume)."""
from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from pydantic import SecretStr

from bot.cli import main
from ingest.starter import starter_kb_dir
from kb.config import Settings

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
PORT = 8080


def settings_env_names() -> set[str]:
    return {f"TRIAGE_{name.upper()}" for name in Settings.model_fields}


def secret_env_names(prefix: str) -> set[str]:
    return {f"TRIAGE_{name.upper()}" for name, f in Settings.model_fields.items()
            if name.startswith(prefix) and SecretStr in getattr(f.annotation, "__args__", (f.annotation,))}


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n\s*", " ", (DEPLOY / "Dockerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, rest = line.partition(" ")
            out.append((op.upper(), rest.strip()))
    return out


def k8s_docs() -> list[dict]:
    return [doc for path in sorted((DEPLOY / "k8s").glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text())
            if doc and "kind" in doc]


def k8s_doc(kind: str, name: str = "triage-kb") -> dict:
    [doc] = [d for d in k8s_docs() if d["kind"] == kind and d["metadata"]["name"] == name]
    return doc


@pytest.fixture(scope="module")
def deployment() -> dict:
    return k8s_doc("Deployment")


@pytest.fixture(scope="module")
def container(deployment) -> dict:
    [c] = deployment["spec"]["template"]["spec"]["containers"]
    return c


@pytest.fixture(scope="module")
def compose_service() -> dict:
    return compose()["services"]["triage-kb"]


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_dockerfile_builds_a_cpu_non_root_image_that_needs_nothing_at_run_time():
    steps = dockerfile()
    ops = [op for op, _ in steps]
    assert steps[0][0] == "FROM" and steps[0][1].startswith("python:3.11")
    runs = " ".join(arg for op, arg in steps if op == "RUN")
    assert "torch==" in runs and "download.pytorch.org/whl/cpu" in runs
    # The project with its PostgreSQL driver (the replicas' shared state).
    assert 'pip install ".[postgres,github-app]"' in runs
    # The model is unpacked and the starter KB built during the build, before the user switch.
    assert runs.index("triage stats") > runs.index('pip install ".[postgres,github-app]"')
    envs = " ".join(arg for op, arg in steps if op == "ENV")
    assert "TRIAGE_CACHE_DIR=/opt/triage/cache" in envs and "TRIAGE_KB=/data/kb" in envs
    user = [arg for op, arg in steps if op == "USER"][-1]
    assert user not in ("root", "0") and ops.index("USER") > max(i for i, (op, a) in enumerate(steps)
                                                                  if op == "RUN")
    assert ("EXPOSE", str(PORT)) in steps
    for op, arg in steps:
        if op == "COPY":
            src = arg.split()[0]
            assert (ROOT / src).exists(), f"COPY source {src} is missing"
    entry = DEPLOY / "entrypoint.sh"
    assert os.access(entry, os.X_OK)
    # The entrypoint seeds an empty KB volume from the starter KB the build made: same folder name as the code's.
    built = starter_kb_dir(Settings(cache_dir=Path("/opt/triage/cache")))
    assert f"$TRIAGE_CACHE_DIR/{built.name}/" in entry.read_text()


def test_compose_and_kubernetes_run_the_same_image_port_and_command(compose_service, container):
    assert compose_service["image"] == container["image"]
    assert (ROOT / "deploy" / compose_service["build"]["context"] / compose_service["build"]["dockerfile"]).resolve() \
        == DEPLOY / "Dockerfile"
    assert compose_service["command"] == container["args"] == ["serve", "--host", "0.0.0.0", "--port", str(PORT)]
    # The real CLI accepts those arguments.
    ctx = main.make_context("triage", list(container["args"]))
    assert ctx.protected_args == ["serve"]
    serve = main.get_command(ctx, "serve")
    params = serve.make_context("serve", list(container["args"][1:])).params
    assert (params["host"], params["port"]) == ("0.0.0.0", PORT)
    assert any(p.endswith(f":{PORT}") for p in compose_service["ports"])
    assert container["ports"] == [{"name": "http", "containerPort": PORT}]


def test_probes_hit_healthz_on_the_service_port(container):
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = container[probe]["httpGet"]
        assert get["path"] == "/healthz" and get["port"] in ("http", PORT)


def test_the_service_routes_to_the_container_port(container):
    svc = k8s_doc("Service")
    [port] = svc["spec"]["ports"]
    assert port["targetPort"] in ("http", PORT)
    assert svc["spec"]["selector"].items() <= k8s_doc("Deployment")["spec"]["template"]["metadata"]["labels"].items()


def test_secrets_are_referenced_by_their_setting_names(container, compose_service):
    known = settings_env_names()
    env = {e["name"]: e for e in container["env"]}
    assert set(env) <= known
    refs = {name: e["valueFrom"]["secretKeyRef"] for name, e in env.items() if "valueFrom" in e}
    assert secret_env_names("github_") <= set(refs)
    secret = k8s_doc("Secret")
    for name, ref in refs.items():
        assert ref["key"] == name and ref["name"] == secret["metadata"]["name"]
        assert name in secret["stringData"]
    assert set(compose_service["environment"]) <= known
    assert secret_env_names("github_") <= set(compose_service["environment"])
    example = dict(line.split("=", 1) for line in (DEPLOY / "env.example").read_text().splitlines()
                   if line and not line.startswith("#"))
    assert set(example) <= known | {"POSTGRES_PASSWORD"} and all(v == "" for v in example.values())


def test_the_kb_lives_on_a_persistent_volume(deployment, container, compose_service):
    kb_path = {e["name"]: e.get("value") for e in container["env"]}["TRIAGE_KB"]
    [mount] = container["volumeMounts"]
    assert mount["mountPath"] == kb_path == compose_service["environment"]["TRIAGE_KB"]
    [volume] = deployment["spec"]["template"]["spec"]["volumes"]
    assert volume["name"] == mount["name"]
    assert volume["persistentVolumeClaim"]["claimName"] == k8s_doc("PersistentVolumeClaim")["metadata"]["name"]
    assert f"kb:{kb_path}" in compose_service["volumes"]
    sec = deployment["spec"]["template"]["spec"]["securityContext"]
    assert sec["runAsNonRoot"] is True and sec["runAsUser"] != 0
    kustom = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text())
    assert all((DEPLOY / "k8s" / r).exists() for r in kustom["resources"])
    assert "secret.example.yaml" not in kustom["resources"]


def test_several_replicas_share_postgresql_in_compose(compose_service):
    assert compose_service["deploy"]["replicas"] >= 2
    url = urlsplit(compose_service["environment"]["TRIAGE_DATABASE_URL"])
    assert url.scheme == "postgresql" and url.hostname == "postgres" and url.path == "/triage"
    db = compose()["services"][url.hostname]
    assert db["image"].startswith("postgres:")
    assert db["environment"]["POSTGRES_USER"] == url.username and db["environment"]["POSTGRES_DB"] == "triage"
    # The URL's password is the database's, from deploy/.env, which must set it (`:?` stops Compose otherwise).
    assert url.password == "${POSTGRES_PASSWORD}"
    assert db["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert "pg_isready" in db["healthcheck"]["test"]
    assert compose_service["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert any(v.startswith("pgdata:") for v in db["volumes"]) and "pgdata" in compose()["volumes"]
    # A host port per replica: a single fixed one would let only one of them start.
    [ports] = compose_service["ports"]
    low, high = ports.rsplit(":", 1)[0].split(":")[-1].split("-")
    assert int(high) - int(low) + 1 >= compose_service["deploy"]["replicas"]


def test_several_replicas_share_postgresql_in_kubernetes(deployment, container):
    assert deployment["spec"]["replicas"] >= 2
    assert deployment["spec"]["strategy"]["type"] == "RollingUpdate"
    env = {e["name"]: e for e in container["env"]}
    assert env["TRIAGE_DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "triage-kb"
    url = urlsplit(k8s_doc("Secret")["stringData"]["TRIAGE_DATABASE_URL"])
    assert url.scheme == "postgresql" and url.path == "/triage"
    # The URL names the PostgreSQL Service, which routes to the StatefulSet's port.
    svc = k8s_doc("Service", url.hostname)
    [port] = svc["spec"]["ports"]
    assert port["port"] == url.port == 5432
    db = k8s_doc("StatefulSet", url.hostname)
    assert svc["spec"]["selector"].items() <= db["spec"]["template"]["metadata"]["labels"].items()
    [pg] = db["spec"]["template"]["spec"]["containers"]
    assert pg["image"].startswith("postgres:") and port["targetPort"] in [p["name"] for p in pg["ports"]]
    pg_env = {e["name"]: e for e in pg["env"]}
    assert pg_env["POSTGRES_USER"]["value"] == url.username and pg_env["POSTGRES_DB"]["value"] == "triage"
    ref = pg_env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert "POSTGRES_PASSWORD" in k8s_doc("Secret", ref["name"])["stringData"] and ref["key"] == "POSTGRES_PASSWORD"
    assert db["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] in [m["name"] for m in pg["volumeMounts"]]
    # Pods on different nodes all mount the KB, and a drain keeps one replica up.
    assert k8s_doc("PersistentVolumeClaim")["spec"]["accessModes"] == ["ReadWriteMany"]
    pdb = k8s_doc("PodDisruptionBudget")
    assert pdb["spec"]["minAvailable"] < deployment["spec"]["replicas"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
    kustom = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text())
    assert {"postgres.yaml", "pdb.yaml", "deployment.yaml"} <= set(kustom["resources"])


def test_the_deploy_readme_runs_several_replicas():
    text = (DEPLOY / "README.md").read_text()
    assert not re.search(r"run (only )?one replica|one writer|one replica:", text, re.I)
    assert "TRIAGE_DATABASE_URL" in text and "replicas" in text


def _entrypoint_env(tmp_path: Path, starter_kb: bytes) -> tuple[dict[str, str], Path]:
    """A cached starter KB (generation gen-1) and a stand-in `triage` that echoes its arguments: the entrypoint's
    environment, and the folder of stand-in tools that comes first on its PATH."""
    starter = tmp_path / "cache" / "starter-kb-multilingual-e5-small"
    (starter / "gen-1").mkdir(parents=True)
    (starter / "gen-1" / "kb.sqlite").write_bytes(starter_kb)
    (starter / "CURRENT").write_text("gen-1")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "triage").write_text('#!/bin/sh\necho "triage $*"\n')
    (bindir / "triage").chmod(0o755)
    env = {"PATH": f"{bindir}:{os.environ['PATH']}", "TRIAGE_KB": str(tmp_path / "kb"),
           "TRIAGE_CACHE_DIR": str(tmp_path / "cache")}
    return env, bindir


def test_the_entrypoint_seeds_a_shared_kb_once(tmp_path):
    """Two replicas starting on one empty KB volume: one copies the starter KB (CURRENT last), the other waits."""
    import subprocess

    env, _ = _entrypoint_env(tmp_path, b"x" * 100_000)
    procs = [subprocess.Popen(["sh", str(DEPLOY / "entrypoint.sh"), "serve", "--port", str(p)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in (1, 2)]
    outs = [p.communicate(timeout=30) for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert sorted(out for out, _ in outs) == ["triage serve --port 1\n", "triage serve --port 2\n"]
    said = "".join(err for _, err in outs)
    assert said.count("with the bundled starter") == 1 and said.count("waiting for it") <= 1
    assert (tmp_path / "kb" / "CURRENT").read_text() == "gen-1"
    assert (tmp_path / "kb" / "gen-1" / "kb.sqlite").stat().st_size == 100_000
    assert not (tmp_path / "kb" / ".seeding").exists()


def test_a_replica_that_gets_the_lock_after_another_seeded_leaves_the_kb_alone(tmp_path):
    """The race of two replicas: this one found no CURRENT, then the other seeded and let go of the lock before this
    one took it. It must not copy the starter KB over the live one (`mkdir` stands in for the other replica)."""
    import subprocess

    env, bindir = _entrypoint_env(tmp_path, b"starter")
    kb = tmp_path / "kb"
    real_mkdir = subprocess.run(["sh", "-c", "command -v mkdir"], capture_output=True, text=True).stdout.strip()
    (bindir / "mkdir").write_text(
        '#!/bin/sh\ncase "$*" in *.seeding) mkdir_kb="${1%/.seeding}"; '
        f'printf gen-7 > "$mkdir_kb/CURRENT";; esac\nexec {real_mkdir} "$@"\n')
    (bindir / "mkdir").chmod(0o755)
    done = subprocess.run(["sh", str(DEPLOY / "entrypoint.sh"), "serve", "--port", "1"], env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout == "triage serve --port 1\n", done.stderr
    assert "bundled starter" not in done.stderr
    assert (kb / "CURRENT").read_text() == "gen-7" and not (kb / "gen-1").exists()
    assert not (kb / ".seeding").exists()


def test_a_cronjob_imports_issue_threads_into_the_kb_the_service_reads(container, deployment):
    job = k8s_doc("CronJob", "triage-kb-import")
    assert job["spec"]["concurrencyPolicy"] == "Forbid"
    pod = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    [importer] = pod["containers"]
    assert importer["args"][:2] == ["import", "github"] and importer["image"] == container["image"]
    env = {e["name"]: e for e in importer["env"]}
    served = {e["name"]: e for e in container["env"]}
    assert env["TRIAGE_KB"] == served["TRIAGE_KB"]
    # The same secret and key as the service's; the import needs the token (the service may run as an App instead).
    ref, served_ref = (e["TRIAGE_GITHUB_TOKEN"]["valueFrom"]["secretKeyRef"] for e in (env, served))
    assert (ref["name"], ref["key"]) == (served_ref["name"], served_ref["key"]) and not ref.get("optional")
    [mount] = importer["volumeMounts"]
    assert mount["mountPath"] == env["TRIAGE_KB"]["value"]
    claim = {v["name"]: v for v in pod["volumes"]}[mount["name"]]["persistentVolumeClaim"]["claimName"]
    served_claim = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}["kb"]
    assert claim == served_claim["persistentVolumeClaim"]["claimName"]
    assert pod["securityContext"]["runAsNonRoot"] is True
