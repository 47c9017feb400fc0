"""The Python side of the sandbox: one Node.js process per server process, spoken to in JSON
lines, started on first use and again after it dies.

Calls are serialized (one warm interpreter; a call costs milliseconds, so a queue is cheaper
than a second 3 s interpreter) and each carries its own time limit, which sandbox.mjs enforces
by ending the interpreter; the client waits a little longer before it gives up on the process.
"""

from __future__ import annotations

import itertools
import json
import queue
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "sandbox.mjs"
PYODIDE = HERE / "node_modules" / "pyodide" / "pyodide.asm.wasm"
MIN_NODE = 20
START_SECONDS = 60.0
"""Loading Pyodide takes about 3 s on an idle 2-core machine; far more means it is stuck."""
GRACE_SECONDS = 10.0
"""How much longer than a call's own limit the client waits for the process's answer."""


class SandboxUnavailable(RuntimeError):
    """Node.js (>= 20) or the Pyodide package is missing, or the sandbox would not start."""


@dataclass(frozen=True, slots=True)
class SandboxResult:
    """What one run of code gave back: its output, the repr of its last expression, or why it
    failed (a traceback's last lines, or the limit it ran into)."""

    ok: bool
    stdout: str
    result: str | None
    error: str | None
    truncated: bool


def node_command() -> list[str] | None:
    """`node` with the permission model's flags for its version, or None without Node >= 20."""
    node = shutil.which("node")
    if node is None or not PYODIDE.is_file():
        return None
    try:
        version = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=10, check=True
        ).stdout
        major = int(version.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    if major < MIN_NODE:
        return None
    # Only the sandbox's own folder is readable, nothing is writable, no child processes;
    # a worker thread is allowed, for the interpreter that a time limit can end.
    permission = "--permission" if major >= 23 else "--experimental-permission"
    readable = str(HERE) if major >= 22 else f"{HERE}/*"
    return [
        node,
        permission,
        f"--allow-fs-read={readable}",
        "--allow-worker",
        "--disallow-code-generation-from-strings",
        "--no-warnings",
        str(SCRIPT),
    ]


class PythonSandbox:
    """Runs Python source in Pyodide under Node.js, isolated from the host."""

    def __init__(self, *, memory_mb: int = 512, max_output: int = 10_000) -> None:
        self.memory_mb = memory_mb
        self.max_output = max_output
        self._lock = threading.Lock()
        self._process: subprocess.Popen[str] | None = None
        self._replies: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._ids = itertools.count(1)
        self._workdir = tempfile.mkdtemp(prefix="olg-sandbox-")

    @staticmethod
    def available() -> bool:
        """Whether Node.js >= 20 and the Pyodide package are installed."""
        return node_command() is not None

    def run(self, code: str, timeout_s: float = 10.0) -> SandboxResult:
        """Run `code` in fresh globals; never raises for the code's own failures.

        Raises:
            SandboxUnavailable: the sandbox cannot be started.
        """
        with self._lock:
            self._ensure_started()
            assert self._process is not None and self._process.stdin is not None
            call_id = next(self._ids)
            request = {"id": call_id, "code": code, "timeout_s": timeout_s}
            try:
                self._process.stdin.write(json.dumps(request) + "\n")
                self._process.stdin.flush()
            except OSError:
                self._stop()
                raise SandboxUnavailable("the sandbox process has stopped") from None
            while True:
                reply = self._next_reply(timeout_s + GRACE_SECONDS)
                if reply.get("id") == call_id:
                    return SandboxResult(
                        ok=bool(reply.get("ok")),
                        stdout=str(reply.get("stdout") or ""),
                        result=reply.get("result"),
                        error=reply.get("error"),
                        truncated=bool(reply.get("truncated")),
                    )

    def close(self) -> None:
        """Stop the Node.js process (a later `run` starts another)."""
        with self._lock:
            self._stop()

    def _next_reply(self, seconds: float) -> dict[str, Any]:
        try:
            reply = self._replies.get(timeout=seconds)
        except queue.Empty:
            self._stop()
            raise SandboxUnavailable(f"the sandbox did not answer in {seconds:.0f} s") from None
        if reply is None:
            self._stop()
            raise SandboxUnavailable("the sandbox process has stopped")
        return reply

    def _ensure_started(self) -> None:
        if self._process is not None and self._process.poll() is None:
            return
        command = node_command()
        if command is None:
            raise SandboxUnavailable("Node.js >= 20 with the pyodide package is required")
        self._replies = queue.Queue()
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=self._workdir,
            # No host environment: no keys, tokens or paths for code to find.
            env={
                "OLG_SANDBOX_MEMORY_MB": str(self.memory_mb),
                "OLG_SANDBOX_MAX_OUTPUT": str(self.max_output),
            },
        )
        assert self._process.stdout is not None
        threading.Thread(
            target=_read_lines, args=(self._process.stdout, self._replies), daemon=True
        ).start()
        ready = self._next_reply(START_SECONDS)
        if not ready.get("ready"):
            self._stop()
            raise SandboxUnavailable(f"the sandbox did not start: {ready.get('error')}")

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None


def _read_lines(stream: IO[str], replies: queue.Queue[dict[str, Any] | None]) -> None:
    for line in stream:
        try:
            replies.put(json.loads(line))
        except json.JSONDecodeError:
            continue
    replies.put(None)
