"""deploy/: the Dockerfile, compose file and Kubernetes manifests agree with each other and with the code
(image, port, probes on /healthz, secret keys named after the TRIAGE_ settings, the KB volume)."""
from __future__ import annotations

import os
import re
from pathlib import Path

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


def k8s_docs() -> dict[str, dict]:
    docs = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc and "kind" in doc:
                docs[doc["kind"]] = doc
    return docs


@pytest.fixture(scope="module")
def deployment() -> dict:
    return k8s_docs()["Deployment"]


@pytest.fixture(scope="module")
def container(deployment) -> dict:
    [c] = deployment["spec"]["template"]["spec"]["containers"]
    return c


@pytest.fixture(scope="module")
def compose_service() -> dict:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    [svc] = compose["services"].values()
    return svc


def test_dockerfile_builds_a_cpu_non_root_image_that_needs_nothing_at_run_time():
    steps = dockerfile()
    ops = [op for op, _ in steps]
    assert steps[0][0] == "FROM" and steps[0][1].startswith("python:3.11")
    runs = " ".join(arg for op, arg in steps if op == "RUN")
    assert "torch==" in runs and "download.pytorch.org/whl/cpu" in runs
    # The model is unpacked and the starter KB built during the build, before the user switch.
    assert runs.index("triage stats") > runs.index("pip install .")
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
    svc = k8s_docs()["Service"]
    [port] = svc["spec"]["ports"]
    assert port["targetPort"] in ("http", PORT)
    assert svc["spec"]["selector"].items() <= k8s_docs()["Deployment"]["spec"]["template"]["metadata"]["labels"].items()


def test_secrets_are_referenced_by_their_setting_names(container, compose_service):
    known = settings_env_names()
    env = {e["name"]: e for e in container["env"]}
    assert set(env) <= known
    refs = {name: e["valueFrom"]["secretKeyRef"] for name, e in env.items() if "valueFrom" in e}
    assert secret_env_names("github_") <= set(refs)
    secret = k8s_docs()["Secret"]
    for name, ref in refs.items():
        assert ref["key"] == name and ref["name"] == secret["metadata"]["name"]
        assert name in secret["stringData"]
    assert set(compose_service["environment"]) <= known
    assert secret_env_names("github_") <= set(compose_service["environment"])
    example = dict(line.split("=", 1) for line in (DEPLOY / "env.example").read_text().splitlines()
                   if line and not line.startswith("#"))
    assert set(example) <= known and all(v == "" for v in example.values())


def test_the_kb_lives_on_a_persistent_volume(deployment, container, compose_service):
    kb_path = {e["name"]: e.get("value") for e in container["env"]}["TRIAGE_KB"]
    [mount] = container["volumeMounts"]
    assert mount["mountPath"] == kb_path == compose_service["environment"]["TRIAGE_KB"]
    [volume] = deployment["spec"]["template"]["spec"]["volumes"]
    assert volume["name"] == mount["name"]
    assert volume["persistentVolumeClaim"]["claimName"] == k8s_docs()["PersistentVolumeClaim"]["metadata"]["name"]
    assert f"kb:{kb_path}" in compose_service["volumes"]
    sec = deployment["spec"]["template"]["spec"]["securityContext"]
    assert sec["runAsNonRoot"] is True and sec["runAsUser"] != 0
    kustom = yaml.safe_load((DEPLOY / "k8s" / "kustomization.yaml").read_text())
    assert all((DEPLOY / "k8s" / r).exists() for r in kustom["resources"])
    assert "secret.example.yaml" not in kustom["resources"]
