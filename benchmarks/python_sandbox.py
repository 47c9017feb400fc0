"""The python tool's sandbox: start-up time, then the median and p95 of warm calls.

python benchmarks/python_sandbox.py [--calls 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # graphs/ beside benchmarks/
from graphs.toolkit.python_sandbox import PythonSandbox

SNIPPET = "word = 'strawberry'\nprint(word.count('r'))"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)
    if not PythonSandbox.available():
        print("the sandbox is not installed: run scripts/_sandbox.sh", file=sys.stderr)
        return 1
    sandbox = PythonSandbox()
    started = time.perf_counter()
    assert sandbox.run("1").ok
    print(f"start-up and first call: {time.perf_counter() - started:.2f} s")
    seconds = []
    for _ in range(args.calls):
        started = time.perf_counter()
        assert sandbox.run(SNIPPET).ok
        seconds.append(time.perf_counter() - started)
    seconds.sort()
    p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
    print(
        f"warm calls: {args.calls}, median {1000 * statistics.median(seconds):.2f} ms, "
        f"p95 {1000 * p95:.2f} ms"
    )
    sandbox.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
