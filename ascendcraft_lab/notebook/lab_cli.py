"""`ascendcraft lab`: JupyterLab on the tutorials, with the pipeline view extension.

    ascendcraft lab [--notebooks DIR] [any `jupyter lab` option, e.g. --port 8890 --no-browser]

The notebooks folder is `--notebooks`, else `./notebooks`, else the repository's `notebooks/`
beside this package (a source checkout), else the current folder. Kernels start there, so
the tutorials' session folders land in `<notebooks>/ascendcraft-sessions/`.

The extension ships prebuilt in the wheel (share/jupyter/labextensions/ascendcraft-lab). In a
source checkout that was not installed as a wheel, the build from `extension/build.sh` sits in
`ascendcraft_lab/labextension/`: it is added to JupyterLab's extension path for this run, through
a folder that holds it under the extension's name (`checkout_labextensions`).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

from ..config import cache_dir

PACKAGE = Path(__file__).resolve().parents[1]
BUILT = PACKAGE / "labextension"
EXTENSION_NAME = "ascendcraft-lab"


def notebooks_folder(given: str | None = None, cwd: Path | None = None) -> Path:
    cwd = cwd or Path.cwd()
    if given:
        return Path(given).expanduser().resolve()
    for candidate in (cwd / "notebooks", PACKAGE.parent / "notebooks"):
        if candidate.is_dir():
            return candidate.resolve()
    return cwd.resolve()


def extension_installed() -> bool:
    """Whether JupyterLab finds the extension in its data paths (a wheel install or build.sh's link)."""
    from jupyter_core.paths import jupyter_path
    return any((Path(p) / EXTENSION_NAME / "package.json").is_file() for p in jupyter_path("labextensions"))


def checkout_labextensions(built: Path | None = None) -> Path:
    """A labextensions folder that holds this checkout's build as `ascendcraft-lab/` (a link).

    JupyterLab reads an extension's metadata from any `<folder>/<any>/package.json`, but serves
    its files from `<folder>/<name>/`: the package folder itself (which holds the build as
    `labextension/`) would name files the server then cannot find. One folder per checkout, in
    the user's cache, made once and replaced atomically.
    """
    built = (built or BUILT).resolve()
    folder = cache_dir() / "labextensions" / hashlib.sha256(str(built).encode()).hexdigest()[:12]
    link = folder / EXTENSION_NAME
    if not (link.is_symlink() and link.resolve() == built):
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{EXTENSION_NAME}.{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(built, target_is_directory=True)
        os.replace(tmp, link)
    return folder


def lab_argv(notebooks: Path, extra: list[str]) -> list[str]:
    """The `jupyter lab` arguments for this run."""
    argv = [f"--ServerApp.root_dir={notebooks}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and not any(a.startswith("--allow-root") for a in extra):
        argv.append("--allow-root")          # containers and CI run as root; Jupyter refuses it by default
    if not extension_installed() and (BUILT / "package.json").is_file():
        argv.append(f"--LabApp.extra_labextensions_path={checkout_labextensions()}")
    return argv + extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ascendcraft lab",
        description="Start JupyterLab on the tutorials with the AscendCraft pipeline view. "
                    "Options not listed here go to `jupyter lab`.")
    parser.add_argument("--notebooks", metavar="DIR", help="the folder to open (default: ./notebooks, "
                                                           "or the repository's notebooks/)")
    args, extra = parser.parse_known_args(argv)
    folder = notebooks_folder(args.notebooks)
    if not folder.is_dir():
        print(f"ascendcraft lab: error: {folder} is not a folder", file=sys.stderr)
        return 2
    if not extension_installed() and not (BUILT / "package.json").is_file():
        print("ascendcraft lab: note: the pipeline view extension is not built (run extension/build.sh); "
              "cells show the ipywidgets view meanwhile", file=sys.stderr)
    from jupyterlab.labapp import LabApp
    LabApp.launch_instance(argv=lab_argv(folder, extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
