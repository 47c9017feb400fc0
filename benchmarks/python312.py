"""Find a CPython 3.12 or newer for servers that refuse the project's Python 3.11.

Aegra (`aegra-api`, `Requires-Python: >=3.12`) cannot be installed into a 3.11 virtualenv, and
this workplace reaches no download site for Python builds (`uv python install` and
`pyenv install` fetch from GitHub or python.org). What it does have is a machine image with
pyenv's own builds under `~/.pyenv/versions` (3.12.1 and 3.13.0 beside the default 3.11.7), so
this module looks for an interpreter that is already on disk, in this order:

1. the path given explicitly (`--aegra-python`) or in `OLG_BENCH_PYTHON312`;
2. `python3.12`, `python3.13`, `python3.14` on PATH;
3. pyenv's builds under `$PYENV_ROOT/versions` (default `~/.pyenv/versions`);
4. an interpreter uv already manages (`uv python find`, which never downloads).

Every candidate is run once to check its real version and that it has `venv` and `ensurepip`,
because a pyenv shim on PATH exists even when the version behind it is not selected.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

MINIMUM = (3, 12)
ENV_VAR = "OLG_BENCH_PYTHON312"
# Newer minors are accepted too, but 3.12 comes first: it is the version Aegra is built for.
PATH_NAMES = ("python3.12", "python3.13", "python3.14")
# Prints the version only if the modules a virtualenv with pip needs are there.
PROBE = "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2])"


class PythonNotFoundError(Exception):
    """No usable CPython >= 3.12 is on this machine; the message says what was tried."""


def probe(candidate: Path) -> tuple[int, int] | None:
    """The (major, minor) of a working interpreter with venv and ensurepip, else None."""
    try:
        done = subprocess.run(
            [str(candidate), "-c", PROBE], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.fullmatch(r"(\d+)\.(\d+)", done.stdout.strip())
    if done.returncode != 0 or match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def pyenv_candidates() -> list[Path]:
    """pyenv's CPython builds of 3.12 and newer, 3.12 first, then by version."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    found: list[tuple[tuple[int, ...], Path]] = []
    for directory in root.glob("3.*"):
        match = re.fullmatch(r"3\.(\d+)\.(\d+)", directory.name)  # skips pypy, venvs, dev builds
        binary = directory / "bin" / "python3"
        if match and int(match.group(1)) >= MINIMUM[1] and binary.exists():
            minor, patch = int(match.group(1)), int(match.group(2))
            found.append(((minor != MINIMUM[1], minor, -patch), binary))
    return [path for _, path in sorted(found)]


def uv_candidate() -> list[Path]:
    """The interpreter uv would pick for 3.12, if uv is installed and already has one."""
    uv = shutil.which("uv")
    if uv is None:
        return []
    try:
        done = subprocess.run(
            [uv, "python", "find", "--no-python-downloads", f"{MINIMUM[0]}.{MINIMUM[1]}"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    out = done.stdout.strip()
    return [Path(out)] if done.returncode == 0 and out else []


def candidates(explicit: Path | None) -> list[Path]:
    """Every place to try, in order of preference."""
    paths: list[Path] = []
    given = explicit or (Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR) else None)
    if given is not None:
        paths.append(given)
    paths += [Path(p) for p in map(shutil.which, PATH_NAMES) if p]
    return paths + pyenv_candidates() + uv_candidate()


def find_python(explicit: Path | None = None) -> Path:
    """The first CPython >= 3.12 that can create a virtualenv with pip.

    An explicit path that does not work is an error rather than silently skipped, so a typo
    never benchmarks a different interpreter than the one asked for.
    """
    tried: list[str] = []
    given_first = explicit is not None or bool(os.environ.get(ENV_VAR))
    for index, path in enumerate(candidates(explicit)):
        version = probe(path)
        if version is not None and version >= MINIMUM:
            return path
        found = "not working" if version is None else f"{version[0]}.{version[1]}"
        tried.append(f"{path} ({found})")
        if index == 0 and given_first:
            raise PythonNotFoundError(f"{path} is not a usable CPython >= 3.12 ({found})")
    raise PythonNotFoundError(
        "no CPython >= 3.12 with venv and ensurepip found "
        f"(tried: {', '.join(tried) or 'nothing on PATH, in pyenv or in uv'}); "
        f"pass one with --aegra-python or {ENV_VAR} (benchmarks/README.md says how to get one)"
    )
