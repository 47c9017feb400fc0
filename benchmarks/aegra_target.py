"""Aegra (`aegra-api` from PyPI) as a third benchmark target, in its Redis + PostgreSQL mode.

Aegra is another self-hosted server for the LangGraph Platform API. Its scale-out mode keeps
everything in PostgreSQL, queues runs on a Redis list (worker coroutines pop them) and streams
through Redis pub/sub; that is the design issue 16 compares ours with, so that is the mode run
here (`REDIS_BROKER_ENABLED=true`), not its single-process in-memory one.

Everything a run touches is its own and is removed afterwards: a fresh database
`olg_bench_aegra_<random>` on the local PostgreSQL, and Redis keys and channels under
`olg-bench-aegra-<random>:` (Aegra puts all of them under `REDIS_CHANNEL_PREFIX` and
`WORKER_QUEUE_KEY`). Aegra itself lives in its own virtualenv on a CPython >= 3.12 found by
`python312.py`, since it does not install on the project's 3.11.

It is started the way `aegra serve` (from `aegra-cli`) starts it: `python -m uvicorn
aegra_api.main:app --host H --port P` with `AEGRA_CONFIG` pointing at an `aegra.json`, so the
CLI package and its own dependencies are not needed.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from python312 import PythonNotFoundError, find_python

BENCH_DIR = Path(__file__).resolve().parent
GRAPH_DIR = BENCH_DIR / "bench_graph"
GRAPH_CONFIG = GRAPH_DIR / "langgraph.json"
DEFAULT_AEGRA_VENV = BENCH_DIR / ".aegra-venv"
AEGRA_REQUIREMENTS = ("aegra-api==0.11.0",)
# Written into the venv after a successful install, so a changed pin reinstalls.
AEGRA_MARKER = ".bench-requirements"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
# Aegra has no GET /ok; /ready answers 200 once its database, checkpointer and store respond.
HEALTH_PATH = "/ready"
# Both run with the Aegra venv's Python, which has psycopg and redis-py whatever extras the
# project's venv was installed with. argv: admin URL, statement with {} for the name, name.
DATABASE_STATEMENT = (
    "import sys, psycopg\n"
    "from psycopg import sql\n"
    "with psycopg.connect(sys.argv[1], autocommit=True, connect_timeout=10) as conn:\n"
    "    conn.execute(sql.SQL(sys.argv[2]).format(sql.Identifier(sys.argv[3])))\n"
)
# argv: Redis URL, key prefix; prints how many keys it deleted.
REDIS_CLEANUP = (
    "import sys, redis\n"
    "client = redis.Redis.from_url(sys.argv[1])\n"
    "keys = list(client.scan_iter(match=sys.argv[2] + '*', count=1000))\n"
    "if keys:\n"
    "    client.delete(*keys)\n"
    "print(len(keys))\n"
)


def log(message: str) -> None:
    """Progress on stderr, in the same form as api_overhead.py's."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Aegra's virtualenv
# --------------------------------------------------------------------------------------------


def venv_ready(venv: Path) -> bool:
    """True when the venv exists, runs uvicorn, and was installed with exactly these pins."""
    marker = venv / AEGRA_MARKER
    if not ((venv / "bin" / "uvicorn").exists() and marker.exists()):
        return False
    return marker.read_text(encoding="utf-8").split() == list(AEGRA_REQUIREMENTS)


def run_logged(argv: list[str], log_path: Path, timeout: float) -> None:
    """An install step with its output appended to `log_path`; a failure shows the log's end."""
    with log_path.open("ab") as out:
        try:
            subprocess.run(argv, stdout=out, stderr=out, timeout=timeout, check=True)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-30:]
            text = "\n".join(lines)
            raise SystemExit(
                f"aegra install step failed: {exc}\n--- {log_path} ---\n{text}"
            ) from exc


def ensure_aegra_venv(venv: Path, python: Path | None = None) -> None:
    """Create Aegra's own virtualenv on a CPython >= 3.12 once; its pins never touch ours."""
    if venv_ready(venv):
        return
    if not (venv / "bin" / "python").exists():
        try:
            interpreter = find_python(python)
        except PythonNotFoundError as exc:
            raise SystemExit(f"cannot install Aegra: {exc}") from exc
    else:
        interpreter = venv / "bin" / "python"  # a venv from an earlier try keeps its Python
    log(
        f"installing Aegra into {venv} with {interpreter} ({', '.join(AEGRA_REQUIREMENTS)}); "
        "this happens once and takes a minute or two..."
    )
    venv.mkdir(parents=True, exist_ok=True)
    log_path = venv / "bench-install.log"
    log_path.write_text("", encoding="utf-8")
    if not (venv / "bin" / "python").exists():
        run_logged([str(interpreter), "-m", "venv", str(venv)], log_path, timeout=300)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check"]
    run_logged([*pip, *AEGRA_REQUIREMENTS], log_path, timeout=1200)
    (venv / AEGRA_MARKER).write_text("\n".join(AEGRA_REQUIREMENTS) + "\n", encoding="utf-8")
    log(f"Aegra installed (pip log: {log_path})")


# --------------------------------------------------------------------------------------------
# One deployment: its database, its Redis namespace, its command
# --------------------------------------------------------------------------------------------


@dataclass
class AegraDeployment:
    """One benchmark run's Aegra: what to create before it starts and remove after it stops."""

    venv: Path
    postgres_url: str  # an existing database to connect to for CREATE/DROP DATABASE
    redis_url: str
    token: str

    @classmethod
    def fresh(cls, venv: Path, postgres_url: str, redis_url: str) -> AegraDeployment:
        """A deployment with a random name, so runs side by side never share state."""
        return cls(venv, postgres_url, redis_url, secrets.token_hex(6))

    @property
    def database(self) -> str:
        return f"olg_bench_aegra_{self.token}"

    @property
    def redis_namespace(self) -> str:
        return f"olg-bench-aegra-{self.token}:"

    @property
    def database_url(self) -> str:
        """The admin URL pointed at this run's database instead."""
        return urlsplit(self.postgres_url)._replace(path=f"/{self.database}").geturl()

    def run_script(self, script: str, *args: str) -> str:
        """Run one of the scripts above in Aegra's venv; its stdout, or an error with stderr."""
        argv = [str(self.venv / "bin" / "python"), "-c", script, *args]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
        except (subprocess.TimeoutExpired, OSError) as exc:
            raise RuntimeError(str(exc)) from exc
        if done.returncode != 0:
            raise RuntimeError((done.stderr.strip().splitlines() or ["no output"])[-1])
        return done.stdout.strip()

    def create_database(self) -> None:
        """CREATE DATABASE; Aegra runs its own migrations into it on startup."""
        try:
            self.run_script(
                DATABASE_STATEMENT, self.postgres_url, "CREATE DATABASE {}", self.database
            )
        except RuntimeError as exc:
            raise SystemExit(
                f"cannot create Aegra's database on {self.postgres_url}: {exc}"
            ) from exc
        log(f"aegra: created database {self.database}")

    def cleanup(self) -> None:
        """Drop the database (closing Aegra's leftover connections) and delete its Redis keys.

        Failures are reported, never raised: this runs while the benchmark shuts down, where an
        exception would hide the results or another server's clean-up.
        """
        drop = "DROP DATABASE IF EXISTS {} WITH (FORCE)"
        try:
            self.run_script(DATABASE_STATEMENT, self.postgres_url, drop, self.database)
            log(f"aegra: dropped database {self.database}")
        except RuntimeError as exc:
            log(f"aegra: could not drop database {self.database}: {exc}")
        try:
            count = self.run_script(REDIS_CLEANUP, self.redis_url, self.redis_namespace)
            log(f"aegra: deleted {count} Redis keys under {self.redis_namespace}")
        except RuntimeError as exc:
            log(f"aegra: could not delete Redis keys under {self.redis_namespace}: {exc}")

    def write_config(self, tmp: Path) -> Path:
        """The bench graph's config as `aegra.json` in `tmp`, with absolute paths, so Aegra can
        run from `tmp` and leave nothing in the graph folder."""
        base = json.loads(GRAPH_CONFIG.read_text(encoding="utf-8"))
        config = {
            **base,
            "dependencies": [str((GRAPH_DIR / d).resolve()) for d in base["dependencies"]],
            "graphs": {graph: str(GRAPH_DIR / spec) for graph, spec in base["graphs"].items()},
        }
        path = tmp / "aegra.json"
        path.write_text(json.dumps(config, indent=2), encoding="utf-8")
        return path

    def argv(self, host: str, port: int) -> list[str]:
        """What `aegra serve` runs: one uvicorn process, no reload."""
        python = str(self.venv / "bin" / "python")
        return [python, "-m", "uvicorn", "aegra_api.main:app", "--host", host, "--port", str(port)]

    def env(self, base: dict[str, str], config: Path, host: str, port: int) -> dict[str, str]:
        """`base` plus Aegra's settings: this run's database and Redis namespace, Redis mode,
        no auth, no telemetry. Everything else keeps Aegra's defaults (3 workers x 10 jobs)."""
        env = dict(base)
        env.update(
            {
                "AEGRA_CONFIG": str(config),
                "HOST": host,
                "PORT": str(port),
                "DATABASE_URL": self.database_url,
                "REDIS_BROKER_ENABLED": "true",
                "REDIS_URL": self.redis_url,
                "REDIS_CHANNEL_PREFIX": f"{self.redis_namespace}run:",
                "WORKER_QUEUE_KEY": f"{self.redis_namespace}jobs",
                "AUTH_TYPE": "noop",
                "OTEL_TARGETS": "",
                "ENABLE_PROMETHEUS_METRICS": "false",
            }
        )
        return env
