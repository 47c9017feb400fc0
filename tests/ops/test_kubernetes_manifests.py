"""deploy/kubernetes, rendered and read as a cluster would (no cluster here): each overlay
renders with `kubectl kustomize`; every object matches the Kubernetes API's own schema
(kubernetes-validate, strict, on the oldest and newest version we claim); and what the
containers run agrees with `olg` itself: their commands and flags parse with the real
argparse parser, with the environment the pod gives them (the image's ENV, the ConfigMap,
the env list, the example secrets), every variable is one olg reads, ports and probes are
the ones olg listens and answers on, and each pod's termination grace covers olg's own
shutdown grace.

Custom resources have no schema in kubernetes-validate: the ServiceMonitors
(monitoring.coreos.com/v1) and the ScaledObject (keda.sh/v1alpha1) are checked here field by
field instead: what they select, scrape and query exists in the rendered objects and in
olg's metrics."""

from __future__ import annotations

import argparse
import base64
import functools
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import latest_version

from open_langgraph.cli import _parser
from open_langgraph.observability import metrics
from open_langgraph.observability.logs import FORMATS
from open_langgraph.server.routes import meta
from open_langgraph.server.security import is_loopback_host
from open_langgraph.worker_cli import queue_settings

ROOT = Path(__file__).resolve().parents[2]
KUBE = ROOT / "deploy" / "kubernetes"
OVERLAYS = ("small", "production")
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(
    KUBECTL is None,
    reason="kubectl (with its built-in kustomize) is not installed: deploy/kubernetes was "
    "not rendered, so neither schemas nor olg's flags were checked",
)
#: The oldest Kubernetes minor the manifests claim (docs/deploy.md), and the newest schema
#: kubernetes-validate ships.
KUBERNETES_VERSIONS = ("1.32", latest_version())
#: Kinds without a schema in kubernetes-validate, checked field by field below.
CUSTOM_KINDS = {"ServiceMonitor", "ScaledObject"}
#: docs/deploy.md, "Graceful shutdown": `olg serve` needs its grace + 10 s to exit; a worker
#: its grace + the longest call that cannot be interrupted (compose: 30 s + 30 s).
SERVE_EXIT_SECONDS = 10
UNINTERRUPTIBLE_CALL_SECONDS = 30
#: `olg serve --workers N` waits this long for its children after SIGTERM, then kills them
#: (worker_cli.worker_processes).
CHILDREN_STOP_SECONDS = 60
LIVENESS_PATH = "/ok"
READINESS_PATH = "/ok?check_db=1"


# -- rendering ---------------------------------------------------------------------------------
@functools.cache
def rendered(overlay: str) -> tuple[dict[str, Any], ...]:
    """The overlay as `kubectl kustomize` renders it, with the example secrets in place of
    the secrets.env a user writes (in a copy: nothing is written into the checkout)."""
    assert KUBECTL is not None
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "kubernetes"
        shutil.copytree(KUBE, copy, ignore=shutil.ignore_patterns("secrets.env"))
        for example in copy.glob("overlays/*/secrets.env.example"):
            shutil.copy(example, example.with_name("secrets.env"))
        done = subprocess.run(
            [KUBECTL, "kustomize", str(copy / "overlays" / overlay)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, f"kubectl kustomize overlays/{overlay}:\n{done.stderr}"
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def of_kind(objects: tuple[dict[str, Any], ...], kind: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["kind"] == kind]


def named(objects: tuple[dict[str, Any], ...], kind: str, name: str) -> dict[str, Any]:
    found = [o for o in of_kind(objects, kind) if o["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} rendered"
    return found[0]


def workloads(objects: tuple[dict[str, Any], ...]) -> Iterator[dict[str, Any]]:
    """Deployments and Jobs: what runs pods."""
    for obj in objects:
        if obj["kind"] in ("Deployment", "Job"):
            yield obj


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    return workload["spec"]["template"]["spec"]


def pod_labels(workload: dict[str, Any]) -> dict[str, str]:
    return workload["spec"]["template"]["metadata"]["labels"]


# -- what olg sees in a container ---------------------------------------------------------------
def image_environment() -> dict[str, str]:
    """The Dockerfile's ENV (the image every container runs), without $-references."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    env: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            for word in shlex.split(line[4:]):
                name, _, value = word.partition("=")
                if "$" not in value:
                    env[name] = value
    return env


def container_environment(
    container: dict[str, Any], objects: tuple[dict[str, Any], ...]
) -> dict[str, str]:
    """What the process's environment holds: the image's ENV, then envFrom, then env (a
    secret's value from the rendered Secret: the example's placeholders)."""
    env = image_environment()
    for source in container.get("envFrom", []):
        env.update(named(objects, "ConfigMap", source["configMapRef"]["name"])["data"])
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
            continue
        ref = item["valueFrom"]["secretKeyRef"]
        data = named(objects, "Secret", ref["name"])["data"]
        assert ref["key"] in data or ref.get("optional"), f"{ref} is missing from its Secret"
        if ref["key"] in data:
            env[item["name"]] = base64.b64decode(data[ref["key"]]).decode()
    return env


def olg_containers(overlay: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(workload, container) for every container that runs `olg`."""
    for workload in workloads(rendered(overlay)):
        for container in pod_spec(workload)["containers"]:
            if container.get("command", [""])[0] == "olg":
                yield workload, container


def olg_arguments(container: dict[str, Any], overlay: str) -> Any:
    """The container's command line parsed by `olg`'s own parser, its defaults read from
    the container's environment as they would be in the pod."""
    argv = [*container["command"][1:], *container.get("args", [])]
    env = container_environment(container, rendered(overlay))
    with mock.patch.dict(os.environ, env, clear=True):
        parser = _parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"olg refuses {argv} with {sorted(env)}")
    # Spelled out in full: argparse also takes a prefix (`--api-onl`), which a later flag
    # sharing it would make ambiguous.
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    options = commands.choices[argv[0]]._option_string_actions
    for word in argv[1:]:
        if word.startswith("--"):
            assert word.split("=", 1)[0] in options, f"{argv}: {word} is not a flag of olg"
    return args


def olg_sources() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "src" / "open_langgraph").rglob("*.py"))


def port_number(container: dict[str, Any], port: int | str) -> int:
    if isinstance(port, int):
        return port
    numbers = [p["containerPort"] for p in container.get("ports", []) if p.get("name") == port]
    assert len(numbers) == 1, f"{container['name']} has no port named {port!r}"
    return numbers[0]


# -- the tests -----------------------------------------------------------------------------------
@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_overlay_renders_into_one_namespace(overlay: str) -> None:
    objects = rendered(overlay)
    kinds = {o["kind"] for o in objects}
    assert {"Namespace", "Deployment", "Service", "Secret", "ConfigMap", "NetworkPolicy"} <= kinds
    namespace = named(objects, "Namespace", "open-langgraph")["metadata"]["name"]
    for obj in objects:
        if obj["kind"] != "Namespace":
            assert obj["metadata"].get("namespace") == namespace, obj["metadata"]["name"]


@needs_kubectl
@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_matches_the_kubernetes_schema(overlay: str, version: str) -> None:
    unchecked = set()
    for obj in rendered(overlay):
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.SchemaNotFoundError:
            unchecked.add(obj["kind"])
        except kubernetes_validate.ValidationError as exc:
            where = "/".join(map(str, exc.path))
            pytest.fail(f"{obj['kind']}/{obj['metadata']['name']} at {where}: {exc.message}")
    # Only the custom resources go without a schema; they are checked below.
    assert unchecked <= CUSTOM_KINDS, unchecked


def test_the_schema_check_would_catch_a_misspelt_field() -> None:
    deployment = yaml.safe_load((KUBE / "base" / "api-deployment.yaml").read_text())
    deployment["spec"]["template"]["spec"]["terminationGracePeriod"] = 25
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSIONS[-1], strict=True)


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_command_is_one_olg_accepts_with_the_pods_environment(overlay: str) -> None:
    commands = set()
    for workload, container in olg_containers(overlay):
        args = olg_arguments(container, overlay)
        commands.add(args.command)
        where = f"{workload['metadata']['name']}/{container['name']}"
        if args.command == "db":
            assert args.action == "upgrade" and args.database_url, where
            continue
        assert args.command in ("serve", "worker"), where
        # Queue mode with well-formed URLs (what --workers, --api-only and olg worker need).
        queue = queue_settings(args)
        assert queue is not None and not isinstance(queue, str), f"{where}: {queue}"
        assert args.log_format in FORMATS, where
    expected = {"small": {"serve"}, "production": {"serve", "worker", "db"}}[overlay]
    assert commands == expected


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_layout_is_the_one_docs_describe(overlay: str) -> None:
    layout = {}
    for _, container in olg_containers(overlay):
        args = olg_arguments(container, overlay)
        if args.command == "serve":
            layout["serve"] = (args.workers, args.api_only)
        elif args.command == "worker":
            layout["worker"] = args.max_concurrency
    if overlay == "small":  # one pod: the API and two worker children
        assert layout == {"serve": (2, False)}
    else:  # the API executes nothing; workers are their own Deployment
        assert layout["serve"] == (0, True) and layout["worker"] >= 1


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_environment_variable_is_one_olg_reads(overlay: str) -> None:
    sources = olg_sources()
    for workload, container in olg_containers(overlay):
        names = {item["name"] for item in container.get("env", [])}
        for source in container.get("envFrom", []):
            config_map = named(rendered(overlay), "ConfigMap", source["configMapRef"]["name"])
            names |= set(config_map["data"])
        # OLG_API_KEYS is read by the auth file the README points to, not by olg itself.
        auth_file = (ROOT / "examples" / "auth" / "api_key_auth.py").read_text()
        for name in names:
            read = re.search(rf"[\"']{name}[\"']", sources) or f'"{name}"' in auth_file
            assert read, f"{workload['metadata']['name']}: {name} is read by nothing"


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_ports_and_probes_are_the_ones_olg_serves(overlay: str) -> None:
    # The routes the probes name exist: /ok, and its check_db parameter.
    route = next(r for r in meta.health.routes if getattr(r, "path", None) == "/ok")
    assert "check_db" in {p.name for p in route.dependant.query_params}  # type: ignore[attr-defined]
    for workload, container in olg_containers(overlay):
        args = olg_arguments(container, overlay)
        if args.command == "db":
            assert not container.get("ports") and "livenessProbe" not in container
            continue
        if args.command == "serve":
            host, port, name = args.host, args.port, "http"
        else:
            assert args.metrics_port is not None, "a worker's probes need --metrics-port"
            host, port, name = args.metrics_host, args.metrics_port, "metrics"
        where = f"{workload['metadata']['name']}: {args.command}"
        # Bound where the kubelet and other pods reach it, on the port the pod declares.
        assert not is_loopback_host(host), f"{where} listens on {host} only"
        assert port_number(container, name) == port, where
        paths = {}
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            get = container[probe]["httpGet"]
            assert port_number(container, get["port"]) == port, f"{where}: {probe}"
            # `Host: localhost` is answered whatever http.allowed_hosts says.
            assert {"name": "Host", "value": "localhost"} in get.get("httpHeaders", []), where
            paths[probe] = get["path"]
        assert paths == {
            "startupProbe": LIVENESS_PATH,
            "livenessProbe": LIVENESS_PATH,
            "readinessProbe": READINESS_PATH,
        }, where
        # The readiness answer takes up to 3 s (readiness.CHECK_TIMEOUT_SECONDS).
        assert container["readinessProbe"]["timeoutSeconds"] > 3, where


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_termination_grace_covers_olgs_own_shutdown(overlay: str) -> None:
    for workload, container in olg_containers(overlay):
        args = olg_arguments(container, overlay)
        spec = pod_spec(workload)
        given = spec.get("terminationGracePeriodSeconds", 30)
        pre_stop = container.get("lifecycle", {}).get("preStop")
        where = f"{workload['metadata']['name']}: {args.command}"
        if args.command == "serve":
            # Endpoints drop the pod while it still serves; the grace period counts it.
            assert pre_stop["exec"]["command"][0] == "sleep", where
            needed = float(pre_stop["exec"]["command"][1]) + args.shutdown_grace
            needed += SERVE_EXIT_SECONDS
            if args.workers:
                children = args.grace_seconds + UNINTERRUPTIBLE_CALL_SECONDS
                assert children <= CHILDREN_STOP_SECONDS, f"{where}: children killed first"
                needed += children
        elif args.command == "worker":
            assert pre_stop is None, f"{where}: a worker takes no traffic; stop it at once"
            needed = args.grace_seconds + UNINTERRUPTIBLE_CALL_SECONDS
        else:
            continue
        assert given >= needed, f"{where}: {given} s to stop, olg needs {needed} s"


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pods_run_as_the_images_user_with_writable_state(overlay: str) -> None:
    uid = int(re.search(r"--uid (\d+)", (ROOT / "Dockerfile").read_text()).group(1))  # type: ignore[union-attr]
    for workload, container in olg_containers(overlay):
        spec = pod_spec(workload)
        assert spec["securityContext"]["runAsUser"] == uid
        assert spec["automountServiceAccountToken"] is False
        assert container["image"].split("/")[-1].startswith("open-langgraph")
        security = container["securityContext"]
        assert security["readOnlyRootFilesystem"] and not security["allowPrivilegeEscalation"]
        mounts = {m["mountPath"] for m in container.get("volumeMounts", [])}
        assert "/tmp" in mounts
        if container["command"][1] in ("serve", "worker"):
            # $HOME of the image's user and $OLG_MODEL_CACHE, where the model is assembled.
            env = container_environment(container, rendered(overlay))
            assert env["OLG_MODEL_CACHE"].startswith("/var/lib/olg/")
            assert "/var/lib/olg" in mounts


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_has_requests_and_limits(overlay: str) -> None:
    for workload in workloads(rendered(overlay)):
        for container in pod_spec(workload)["containers"]:
            resources = container["resources"]
            for key in ("cpu", "memory"):
                assert key in resources["requests"] and key in resources["limits"], key
            env = container_environment(container, rendered(overlay))
            if "OLG_MODEL_MEMORY_MB" in env:  # the models' budget fits the container
                limit = resources["limits"]["memory"]
                assert limit.endswith("Gi")
                assert int(env["OLG_MODEL_MEMORY_MB"]) < int(limit[:-2]) * 1024


@needs_kubectl
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_services_policies_and_budgets_select_pods_that_exist(overlay: str) -> None:
    objects = rendered(overlay)
    deployments = of_kind(objects, "Deployment")

    def selected(selector: dict[str, str]) -> list[dict[str, Any]]:
        return [d for d in deployments if selector.items() <= pod_labels(d).items()]

    for service in of_kind(objects, "Service"):
        [deployment] = selected(service["spec"]["selector"])
        [container] = pod_spec(deployment)["containers"]
        for port in service["spec"]["ports"]:
            port_number(container, port["targetPort"])
    for budget in of_kind(objects, "PodDisruptionBudget"):
        [deployment] = selected(budget["spec"]["selector"]["matchLabels"])
        if "minAvailable" in budget["spec"]:  # never more than the replicas: drains would hang
            assert budget["spec"]["minAvailable"] < deployment["spec"]["replicas"]
    for policy in of_kind(objects, "NetworkPolicy"):
        match = policy["spec"]["podSelector"].get("matchLabels")
        if not match:
            continue  # the namespace's default deny
        [deployment] = selected(match)
        [container] = pod_spec(deployment)["containers"]
        for rule in policy["spec"]["ingress"]:
            for port in rule["ports"]:
                port_number(container, port["port"])


@needs_kubectl
def test_the_service_monitors_scrape_olgs_metrics() -> None:
    objects = rendered("production")
    monitors = of_kind(objects, "ServiceMonitor")
    assert {m["metadata"]["name"] for m in monitors} == {"olg-api", "olg-worker"}
    for monitor in monitors:
        selector = monitor["spec"]["selector"]["matchLabels"]
        [service] = [
            s
            for s in of_kind(objects, "Service")
            if selector.items() <= s["metadata"].get("labels", {}).items()
        ]
        service_ports = {p["name"] for p in service["spec"]["ports"]}
        for endpoint in monitor["spec"]["endpoints"]:
            assert endpoint["port"] in service_ports
            assert endpoint["path"] == "/metrics"
            # The credentials name the rendered Secret (its generated name) and a key in it.
            credentials = endpoint["authorization"]["credentials"]
            secret = named(objects, "Secret", credentials["name"])
            assert credentials["key"] in secret["data"]
    # The worker's metrics port is the one `olg worker --metrics-port` serves.
    worker = next(c for _, c in olg_containers("production") if c["command"][1] == "worker")
    assert olg_arguments(worker, "production").metrics_port == port_number(worker, "metrics")


@needs_kubectl
def test_the_workers_scale_on_the_queue_gauge_olg_serves() -> None:
    objects = rendered("production")
    [scaled] = of_kind(objects, "ScaledObject")
    target = named(objects, "Deployment", scaled["spec"]["scaleTargetRef"]["name"])
    [container] = pod_spec(target)["containers"]
    assert container["command"] == ["olg", "worker"]
    # The autoscaler owns the count: `kubectl apply` must not reset it.
    assert "replicas" not in target["spec"]
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"]
    [trigger] = scaled["spec"]["triggers"]
    assert trigger["type"] == "prometheus"
    query = trigger["metadata"]["query"]
    # A gauge the API's /metrics serves, its labels as the ServiceMonitor's scrape sets them.
    exposed, _ = metrics.exposition({"pending": 0, "running": 0})
    gauge = re.search(r"\b(olg_\w+)\{", query).group(1)  # type: ignore[union-attr]
    assert f"# TYPE {gauge} gauge" in exposed.decode()
    namespace = scaled["metadata"]["namespace"]
    assert f'namespace="{namespace}"' in query
    assert f'service="{named(objects, "Service", "olg-api")["metadata"]["name"]}"' in query
    # Every API replica reports the same count from the database: max, never a sum of them.
    assert "max by (status)" in query
    # The per-worker target is what one worker takes at once.
    worker_args = olg_arguments(container, "production")
    assert float(trigger["metadata"]["threshold"]) == worker_args.max_concurrency


def test_the_example_secrets_hold_placeholders_only() -> None:
    examples = sorted(KUBE.glob("overlays/*/secrets.env.example"))
    assert [p.parent.name for p in examples] == sorted(OVERLAYS)
    for example in examples:
        values = dict(
            line.split("=", 1)
            for line in example.read_text().splitlines()
            if line and not line.startswith("#")
        )
        assert {"DATABASE_URI", "REDIS_URI", "OLG_API_KEYS"} <= set(values)
        for name, value in values.items():
            assert "REPLACE" in value or ".example.internal" in value, f"{example}: {name}"


def test_written_secrets_stay_out_of_git_and_the_image() -> None:
    assert "deploy" in (ROOT / ".dockerignore").read_text().split()
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for overlay in OVERLAYS:
        written = f"deploy/kubernetes/overlays/{overlay}/secrets.env"
        ignored = subprocess.run(["git", "check-ignore", "-q", written], cwd=ROOT, check=False)
        assert ignored.returncode == 0, f"{written} is not ignored by git"


@needs_kubectl
def test_the_docs_quote_the_manifests() -> None:
    docs = (ROOT / "docs" / "deploy.md").read_text()
    section = docs[docs.index("## Kubernetes") : docs.index("## Settings")]
    [scaled] = of_kind(rendered("production"), "ScaledObject")
    assert scaled["spec"]["triggers"][0]["metadata"]["query"] in section
    shutdown = section[section.index("### Shutdown") : section.index("### Resources")]
    for overlay in OVERLAYS:
        for workload in of_kind(rendered(overlay), "Deployment"):
            assert f"| {pod_spec(workload)['terminationGracePeriodSeconds']} s |" in shutdown
