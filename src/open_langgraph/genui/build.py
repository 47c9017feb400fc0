"""Building the config's generative UI files (`ui`) into scripts the JS SDK can load.

Each file is bundled by esbuild through `bundle.mjs` into `<build dir>/<name>/` (by default
`.olg/ui/` beside the config file, `OLG_UI_BUILD_DIR` elsewhere), once: a build is reused
while the files it was made from are unchanged, so a server restarts without Node.js once
its components are built. esbuild is the project's own (`node_modules/esbuild`) if it has
one, else one npm installs once into a cache shared by all projects (`OLG_UI_BUNDLER_DIR`,
by default `~/.cache/open-langgraph/ui-bundler`).

Generative UI is optional: Node.js or npm missing, npm failing, or a component that does not
build turns it off with one WARNING line saying why; the server serves everything else and
`POST /ui/...` answers 501 with the same words.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from open_langgraph.config import AppConfig

logger = logging.getLogger(__name__)

#: The esbuild npm installs into the shared cache (tests/clients pins the same).
ESBUILD_VERSION = "0.28.2"
_SCRIPT = Path(__file__).with_name("bundle.mjs")
_MANIFEST = "olg-build.json"
_NPM_TIMEOUT = 300.0
_BUILD_TIMEOUT = 120.0


class BuildFailed(Exception):
    """Why generative UI cannot be served; said in one WARNING line and in 501 answers."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """One built `ui` entry: its directory and the files `POST /ui/...` links."""

    name: str
    directory: Path
    assets: tuple[str, ...]

    @property
    def global_name(self) -> str:
        """The script's global (the SDK's `LoadExternalComponent` calls its `render`)."""
        return global_name(self.name)


@dataclass(frozen=True, slots=True)
class GenerativeUi:
    """What the server serves: the built bundles, or why there are none."""

    bundles: dict[str, Bundle] = field(default_factory=dict)
    off_reason: str | None = None

    def asset(self, name: str, file: str) -> Path | None:
        """The built file `file` of bundle `name`, if there is one."""
        bundle = self.bundles.get(name)
        if bundle is None or file not in bundle.assets:
            return None
        return bundle.directory / file


def global_name(name: str) -> str:
    return "__LGUI_" + re.sub(r"[^A-Za-z0-9]", "_", name)


def build_generative_ui(config: AppConfig) -> GenerativeUi | None:
    """The config's bundles, built or reused; None without `ui`. Logs one WARNING and
    returns one with `off_reason` when they cannot be built."""
    components = config.generative_ui.components
    if not components:
        return None
    out = Path(os.environ.get("OLG_UI_BUILD_DIR") or config.base_dir / ".olg" / "ui")
    try:
        bundles = {
            name: _bundle(config, name, (config.base_dir / file).resolve(), out / name)
            for name, file in components.items()
        }
    except BuildFailed as exc:
        reason = str(exc)
        logger.warning("generative UI (`ui` of %s) is off: %s", config.path.name, reason)
        return GenerativeUi(off_reason=reason)
    logger.info("generative UI built: %s", ", ".join(sorted(bundles)))
    return GenerativeUi(bundles=bundles)


def _key(entry: Path, name: str, shared: tuple[str, ...]) -> str:
    """What a build depends on besides its input files."""
    parts = [str(entry), name, *shared, _SCRIPT.read_text(encoding="utf-8")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _reusable(out: Path, key: str) -> tuple[str, ...] | None:
    """The assets of the build in `out`, if it was made with `key` from unchanged files."""
    try:
        manifest = json.loads((out / _MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if manifest.get("key") != key:
        return None
    for file, mtime in manifest.get("inputs", {}).items():
        try:
            if Path(file).stat().st_mtime_ns != mtime:
                return None
        except OSError:
            return None
    assets = tuple(manifest.get("assets", ()))
    return assets if assets and all((out / a).is_file() for a in assets) else None


def _bundle(config: AppConfig, name: str, entry: Path, out: Path) -> Bundle:
    key = _key(entry, name, config.generative_ui.shared)
    if (assets := _reusable(out, key)) is not None:
        return Bundle(name, out, assets)
    node = shutil.which("node")
    if node is None:
        raise BuildFailed(
            "building it needs Node.js 20+ (`node` is not on PATH); install Node.js, or build "
            "once where it is and keep the build directory"
        )
    esbuild = _esbuild(config.base_dir)
    staging = out.with_name(out.name + ".building")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    options = {
        "esbuild": str(esbuild),
        "entry": str(entry),
        "global": global_name(name),
        "outdir": str(staging),
        "shared": list(config.generative_ui.shared),
    }
    try:
        done = subprocess.run(
            [node, str(_SCRIPT), json.dumps(options)],
            cwd=config.base_dir,
            capture_output=True,
            text=True,
            timeout=_BUILD_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildFailed(f"bundling `ui.{name}` failed: {exc}") from exc
    if done.returncode != 0:
        detail = " ".join((done.stderr or done.stdout).split())[:500]
        raise BuildFailed(f"`ui.{name}` does not build: {detail}")
    inputs = json.loads(done.stdout).get("inputs", [])
    assets = tuple(sorted(p.name for p in staging.iterdir() if p.suffix in (".js", ".css")))
    manifest = {
        "key": key,
        "assets": assets,
        "inputs": {f: Path(f).stat().st_mtime_ns for f in inputs if Path(f).is_file()},
    }
    (staging / _MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)
    return Bundle(name, out, assets)


def _bundler_dir() -> Path:
    if configured := os.environ.get("OLG_UI_BUNDLER_DIR"):
        return Path(configured)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "open-langgraph" / "ui-bundler"


def _esbuild(project: Path) -> Path:
    """esbuild's JavaScript API: the project's, or the cache's (npm installs it once)."""
    for root in (project, _bundler_dir()):
        main = root / "node_modules" / "esbuild" / "lib" / "main.js"
        if main.is_file():
            return main
    npm = shutil.which("npm")
    if npm is None:
        raise BuildFailed("building it needs npm (to install esbuild once), which is not on PATH")
    cache = _bundler_dir()
    cache.mkdir(parents=True, exist_ok=True)
    package = {
        "name": "olg-ui-bundler",
        "private": True,
        "dependencies": {"esbuild": ESBUILD_VERSION},
    }
    (cache / "package.json").write_text(json.dumps(package), encoding="utf-8")
    logger.info("installing esbuild %s into %s (once)", ESBUILD_VERSION, cache)
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent"],
            cwd=cache,
            capture_output=True,
            text=True,
            timeout=_NPM_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildFailed(f"installing esbuild with npm failed: {exc}") from exc
    main = cache / "node_modules" / "esbuild" / "lib" / "main.js"
    if done.returncode != 0 or not main.is_file():
        detail = " ".join((done.stderr or done.stdout).split())[:300]
        raise BuildFailed(f"installing esbuild with npm in {cache} failed: {detail}")
    return main
