"""The repository's copy of the WebShop data is whole: every file SHA256SUMS lists is there,
unchanged."""

from __future__ import annotations

import hashlib

from tests.fixtures.webshop_data import webshop_data


def _listed() -> list[tuple[str, str]]:
    """(sha256, path relative to data/webshop) for every line of SHA256SUMS."""
    lines = webshop_data("SHA256SUMS").read_text(encoding="utf-8").splitlines()
    return [
        (digest, name.removeprefix("./")) for digest, name in (ln.split(maxsplit=1) for ln in lines)
    ]


def test_sha256sums_lists_the_data_files() -> None:
    names = {name for _, name in _listed()}
    assert len(names) == 22
    assert {name.split("/")[0] for name in names} == {
        "baselines",
        "catalog",
        "goals",
        "human_trajs_sample",
        "reference",
    }


def test_every_listed_file_matches_its_checksum() -> None:
    damaged = [
        name
        for digest, name in _listed()
        if hashlib.sha256(webshop_data(name).read_bytes()).hexdigest() != digest
    ]
    assert damaged == []
