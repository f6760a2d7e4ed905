"""A session on an NPU host: build its project with CANN, and profile it (the check is `Session.verify`).

Every action records its result in the session's runs/ folder. Without a CANN toolkit,
torch_npu or an NPU each refuses in one line (`backends.cann.detect.refuse_reason`).
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..backends.cann.build import BuildResult, build_project
from ..backends.cann.detect import Toolchain, refuse_reason
from ..backends.cann.device import DeviceRefusal
from ..backends.cann.profile import PROFILE_TIMEOUT, ProfileError, parse_kernel_details, profile_on_npu
from ..backends.cann.signature import OpSignature
from ..atomic import read_text
from ..dsl.errors import DslError
from ..passes.bundle import read_bundle
from ..reference import ReferenceError, load_reference
from ..reference.scalars import scalar_plan
from .folder import ManifestError, SessionFolder, files_hash
from .lower import load_dsl


def build_session(folder: str | Path, *, jobs: int | None = None, toolchain: Toolchain | None = None,
                  env: Mapping[str, str] | None = None, record: bool = True) -> BuildResult:
    """Build `<folder>/ascendc` into `<folder>/build` for the session's SoC; record the result in runs/."""
    session = SessionFolder(folder)
    project = session.path / "ascendc"
    if not project.is_dir():
        return BuildResult("preflight-error", f"{folder} has no ascendc/ project; run `ascendcraft lower` first")
    try:
        soc = session.manifest().get("soc")
        bundle = read_bundle(project)
    except ManifestError as exc:
        return BuildResult("preflight-error", str(exc))
    except UnicodeDecodeError as exc:
        return BuildResult("preflight-error", f"a file of {project} is not UTF-8 text (byte offset {exc.start})")
    result = build_project(project, session.path / "build", soc=soc, bundle=bundle, jobs=jobs, toolchain=toolchain,
                           env=env)
    if record and session.exists():    # the project it built, by the hash `check` records too
        session.record_run({"backend": "cann", "action": "build", "project_hash": files_hash(bundle.files),
                            **result.to_json()})
    return result


def npu_refusal(action: str) -> str:
    """Why `action` (build, run, profile) cannot happen on this machine, in one line; "" when it can."""
    return refuse_reason(action) or ""


class ProfileFailed(Exception):
    """The session could not be profiled: `str()` is one line."""


def profile_session(folder: str | Path, kernel: str | None = None, *, timeout: float = PROFILE_TIMEOUT,
                    toolchain: Toolchain | None = None, env: Mapping[str, str] | None = None):
    """Build the session and profile its op on the NPU (not yet run on hardware by the project), the
    profiled calls in a child process stopped after `timeout` seconds (backends/cann/profile.py)."""
    reason = refuse_reason("profile", toolchain) or ""
    if reason:
        raise ProfileFailed(reason)
    session = SessionFolder(folder)
    built = build_session(folder, toolchain=toolchain, env=env)
    if not built.ok:
        raise ProfileFailed(built.message)
    try:
        program = load_dsl(read_text(session.dsl_path(), "the session's DSL draft"), str(session.dsl_path()),
                           session.manifest().get("soc"))
    except (OSError, ValueError) as exc:      # a deleted or non-UTF-8 draft, a damaged manifest
        raise ProfileFailed(str(exc)) from None
    except DslError as exc:
        raise ProfileFailed(exc.render()) from None
    sig = OpSignature.of(program)
    reference = session.path / "reference.py"
    try:
        # the scalars bind by name where they can (reference/scalars.py), so the names of the run are needed
        plan = scalar_plan(program, load_reference(reference)) if sig.scalars else ()
    except ReferenceError as exc:
        raise ProfileFailed(exc.render()) from None
    except DslError as exc:
        raise ProfileFailed(exc.render()) from None
    try:
        report = profile_on_npu(built.library, str(reference), sig.entry, session.path / "profile",
                                scalars=list(plan), param_names=tuple(p.param_name for p in sig.params),
                                soc=session.manifest().get("soc"), timeout=timeout, toolchain=toolchain)
    except (DeviceRefusal, ProfileError) as exc:    # not the session's SoC; timed out, crashed, no profile
        raise ProfileFailed(str(exc)) from None
    if kernel:
        report = parse_kernel_details(session.path / "profile" / "kernel_details.csv", kernel)
    session.record_run({"backend": "cann", "action": "profile", **report.to_json()})
    return report
