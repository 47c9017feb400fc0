"""The python tool's sandbox against the real Node.js and Pyodide: code runs and answers, and
hostile code (host files, sockets, programs, Node's own objects, endless loops, huge
allocations, floods of output) ends as a clear error with the sandbox still serving."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from graphs.toolkit import python_sandbox
from graphs.toolkit.python_sandbox import PythonSandbox, python_tool, python_tool_if_available

if not PythonSandbox.available():
    if os.environ.get("CI"):
        raise RuntimeError("the python sandbox is not installed: scripts/_sandbox.sh must run")
    pytest.skip(
        "Node.js >= 20 with pyodide is not installed (scripts/_sandbox.sh)", allow_module_level=True
    )


@pytest.fixture(scope="module")
def sandbox() -> Iterator[PythonSandbox]:
    box = PythonSandbox()
    yield box
    box.close()


def still_works(box: PythonSandbox) -> None:
    run = box.run("6 * 7")
    assert (run.ok, run.result) == (True, "42")


def test_output_and_the_last_expression_come_back(sandbox: PythonSandbox) -> None:
    run = sandbox.run("word = 'strawberry'\nprint(word.count('r'))\nword[::-1]")
    assert (run.ok, run.stdout, run.result) == (True, "3\n", "'yrrebwarts'")


def test_each_call_starts_with_fresh_globals(sandbox: PythonSandbox) -> None:
    assert sandbox.run("secret = 1").ok
    run = sandbox.run("secret")
    assert not run.ok and "NameError" in str(run.error)


def test_the_standard_library_works(sandbox: PythonSandbox) -> None:
    code = "import datetime, math\n(datetime.date(2030, 1, 1).strftime('%A'), math.comb(10, 3))"
    assert sandbox.run(code).result == "('Tuesday', 120)"


def test_syntax_errors_and_exceptions_are_clear(sandbox: PythonSandbox) -> None:
    bad = sandbox.run("def f(:\n  pass")
    assert not bad.ok and "SyntaxError" in str(bad.error)
    raised = sandbox.run("1 / 0")
    assert not raised.ok and "ZeroDivisionError: division by zero" in str(raised.error)
    assert "_olg_run" not in str(raised.error).splitlines()[-1]


def test_host_files_are_out_of_reach(sandbox: PythonSandbox, tmp_path: Path) -> None:
    mine = tmp_path / "private.txt"
    mine.write_text("host secret")
    for code in (
        "open('/etc/passwd').read()",
        f"open({str(mine)!r}).read()",
        f"import os\nos.listdir({str(tmp_path)!r})",
    ):
        run = sandbox.run(code)
        assert not run.ok and "host secret" not in json.dumps(asdict(run)), code
        assert "root:" not in str(run.result)
    # The interpreter's own file system is in memory: a write goes nowhere on the host.
    sandbox.run(f"open({str(tmp_path / 'written')!r}, 'w').write('x')")
    assert not (tmp_path / "written").exists()
    still_works(sandbox)


def test_no_bridge_to_node_or_the_emscripten_file_system(sandbox: PythonSandbox) -> None:
    for module in ("js", "pyodide_js", "_pyodide_core", "pyodide.ffi", "pyodide.code"):
        run = sandbox.run(f"import {module}")
        assert not run.ok and "ModuleNotFoundError" in str(run.error), module
    # No object of the host's JavaScript is left for Python to find and climb out through.
    hunt = (
        "import gc\n"
        "[type(o).__name__ for o in gc.get_objects()\n"
        " if type(o).__name__.startswith('JsProxy') or type(o).__name__ == 'JsProxy']"
    )
    assert sandbox.run(hunt).result == "[]"
    still_works(sandbox)


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    received: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(5)

    def accept() -> None:
        try:
            conn, _ = server.accept()
            received.append(conn.recv(100))
            conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1], received
    server.close()


def test_no_network(sandbox: PythonSandbox, listener: tuple[int, list[bytes]]) -> None:
    port, received = listener
    code = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).send(b'hi')"
    run = sandbox.run(code)
    assert not run.ok and "OSError" in str(run.error)
    urllib = sandbox.run(
        f"import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{port}')"
    )
    assert not urllib.ok
    assert received == []
    still_works(sandbox)


def test_no_programs(sandbox: PythonSandbox, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    for code in (
        f"import os\nos.system('touch {marker}')",
        f"import os\nos.popen('touch {marker}')",
        "import subprocess",
    ):
        run = sandbox.run(code)
        assert not run.ok, code
    assert not marker.exists()
    still_works(sandbox)


def test_an_endless_loop_is_stopped_at_its_time_limit(sandbox: PythonSandbox) -> None:
    run = sandbox.run("while True:\n    pass", timeout_s=2)
    assert not run.ok and "timed out after 2 s" in str(run.error)
    still_works(sandbox)


def test_huge_allocations_end_as_errors(sandbox: PythonSandbox) -> None:
    at_once = sandbox.run("x = bytearray(10 * 2**30)")
    assert not at_once.ok and (
        "MemoryError" in str(at_once.error) or "Overflow" in str(at_once.error)
    )
    step_by_step = sandbox.run("x = [bytearray(10**7) for _ in range(100)]", timeout_s=20)
    assert not step_by_step.ok and "memory" in str(step_by_step.error).lower()
    still_works(sandbox)


def test_a_flood_of_output_is_cut(sandbox: PythonSandbox) -> None:
    run = sandbox.run("for i in range(200000):\n    print('line', i)", timeout_s=20)
    assert run.ok and run.truncated
    assert len(run.stdout) <= sandbox.max_output
    assert "[output cut]" in python_sandbox.answer_of(run)
    still_works(sandbox)


def test_deep_recursion_is_an_error(sandbox: PythonSandbox) -> None:
    run = sandbox.run("def f(n):\n    return f(n + 1)\nf(0)")
    assert not run.ok and "RecursionError" in str(run.error)
    still_works(sandbox)


def test_the_tool_answers_the_model_and_reports_failures_as_tool_errors() -> None:
    assert python_tool.invoke({"code": "print(sorted([3, 1, 2]))"}) == "[1, 2, 3]"
    failed = python_tool.invoke({"code": "int('x')"})
    assert "ValueError" in failed
    assert python_tool.args["code"]["maxLength"] == 2000


def test_code_that_only_defines_a_function_says_so_instead_of_an_empty_result() -> None:
    told = python_tool.invoke({"code": "def is_odd(n):\n    return n % 2 == 1\nclass Box: ..."})
    assert "only defined is_odd, Box" in told and "give it to them in your answer" in told
    assert python_tool.invoke({"code": "x = 1"}).startswith("(no output: print() the answer")


def test_printing_a_typed_in_value_is_flagged_as_computing_nothing() -> None:
    told = python_tool.invoke({"code": "print('tenalp')"})
    assert told.startswith("tenalp\n") and "computed nothing" in told
    computed = python_tool.invoke({"code": "print('planet'[::-1])"})
    assert computed == "tenalp"


def test_running_a_defined_function_reminds_that_written_code_is_an_answer() -> None:
    told = python_tool.invoke({"code": "def double(n):\n    return 2 * n\nprint(double(21))"})
    assert told.startswith("42\n") and "defined double" in told
    assert "answer with the code itself" in told


def test_without_node_the_tool_is_off_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    python_tool_if_available.cache_clear()
    try:
        with caplog.at_level("WARNING"):
            assert python_tool_if_available() is None
            assert python_tool_if_available() is None
        warnings = [r for r in caplog.records if "python tool off" in r.getMessage()]
        assert len(warnings) == 1
    finally:
        python_tool_if_available.cache_clear()
