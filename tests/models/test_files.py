"""Assembling model files: concatenation, hash refusal, cache reuse, missing packages."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from open_langgraph.models.errors import ModelFileError
from open_langgraph.models.local import files
from open_langgraph.models.local.catalog import SMOLLM2_135M, LocalModelSpec, ModelPart


def _parts(tmp_path: Path) -> tuple[list[Path], bytes]:
    chunks = [b"GGUF" + bytes(range(256)) * 10, b"second part", b"\x00" * 5000]
    paths = []
    for i, chunk in enumerate(chunks):
        path = tmp_path / f"part{i}.bin"
        path.write_bytes(chunk)
        paths.append(path)
    return paths, b"".join(chunks)


def test_assembles_parts_in_order_when_hash_matches(tmp_path: Path) -> None:
    sources, whole = _parts(tmp_path)
    target = tmp_path / "cache" / "model.gguf"
    files.assemble_file(
        sources, target, size=len(whole), sha256=hashlib.sha256(whole).hexdigest(), progress=False
    )
    assert target.read_bytes() == whole
    assert files.is_verified(target, hashlib.sha256(whole).hexdigest())


def test_refuses_mismatched_hash_and_leaves_no_file(tmp_path: Path) -> None:
    sources, whole = _parts(tmp_path)
    target = tmp_path / "cache" / "model.gguf"
    with pytest.raises(ModelFileError, match=r"refusing model\.gguf"):
        files.assemble_file(sources, target, size=len(whole), sha256="0" * 64, progress=False)
    assert list(target.parent.iterdir()) == []


def test_refuses_wrong_size_even_before_trusting_hash(tmp_path: Path) -> None:
    sources, whole = _parts(tmp_path)
    digest = hashlib.sha256(whole).hexdigest()
    with pytest.raises(ModelFileError, match="expected"):
        files.assemble_file(
            sources[:-1], tmp_path / "m.gguf", size=len(whole), sha256=digest, progress=False
        )


def test_tampered_cache_file_loses_its_stamp(tmp_path: Path) -> None:
    sources, whole = _parts(tmp_path)
    digest = hashlib.sha256(whole).hexdigest()
    target = files.assemble_file(
        sources, tmp_path / "m.gguf", size=len(whole), sha256=digest, progress=False
    )
    target.write_bytes(whole[:-1] + b"X")
    assert not files.is_verified(target, digest)


def test_ensure_model_file_reassembles_after_tampering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources, whole = _parts(tmp_path)
    spec = LocalModelSpec(
        name="toy",
        filename="toy.gguf",
        parts=tuple(ModelPart("toy-dist", str(p)) for p in sources),
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
        install_hint="pip install toy",
    )
    monkeypatch.setattr(files, "locate_part", lambda part, hint: Path(part.path))
    cache = tmp_path / "cache"
    path = files.ensure_model_file(spec, directory=cache, progress=False)
    path.write_bytes(b"evil")
    assert files.ensure_model_file(spec, directory=cache, progress=False).read_bytes() == whole


def test_missing_package_names_what_to_install() -> None:
    part = ModelPart("no-such-model-package-xyz", "x/model.bin")
    with pytest.raises(ModelFileError, match=r"no-such-model-package-xyz.*pip install toy"):
        files.locate_part(part, "pip install toy")


def test_real_smollm2_file_is_verified_against_pinned_hash(tmp_path: Path) -> None:
    path = files.ensure_model_file(SMOLLM2_135M, directory=tmp_path, progress=False)
    assert files.sha256_of(path) == SMOLLM2_135M.sha256
    assert path.stat().st_size == SMOLLM2_135M.size


def test_cache_dir_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OLG_MODEL_CACHE", str(tmp_path / "models"))
    assert files.cache_dir() == tmp_path / "models"
