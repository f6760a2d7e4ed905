"""MultiKernelBench submissions as CPU torch extensions on the emulator.

Two formats (matched against MultiKernelBench's harness, wzzll123/MultiKernelBench):

- six strings (``project_json_src``, ``host_tiling_src``, ``host_operator_src``, ``kernel_src``,
  ``python_bind_src``, ``model_src``): an msopgen op project. The files go where msopgen puts
  them (``op_host/<op>_tiling.h``, ``op_host/<op>.cpp``, ``op_kernel/<op>.cpp``,
  ``CppExtension/csrc/op.cpp``); the kernel sees the op JSON's ``DTYPE_<NAME>`` macros and the
  host's TilingData classes, as the msopgen build gives them; the binding's ``EXEC_NPU_CMD`` runs
  the op harness (TilingFunc, workspace, kernel) on the emulator; the extension is
  ``custom_ops_lib``.
- direct launch (one JSON: ``build.kernel_sources`` compiled by bisheng, ``build.binding_sources``
  against torch, module ``build.module_name`` in ``kernel/build``, ``entry.model``): kernel
  sources compile against the emulator with their ``<<<>>>`` launches routed to it, binding sources
  against torch and the torch_npu shims in ``include_torch/``.

Every translation unit is compiled on its own and cached by content (runner.build_binary), so a
submission that differs from another in its kernel alone rebuilds only that object.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from . import runner
from .sources import kernel_entries, tiling_prelude

HERE = Path(__file__).resolve().parent
TORCH_INCLUDE = HERE / "include_torch"
TORCH_GLUE = HERE / "runtime" / "torch_glue.cpp"

SIX_FIELDS = ("project_json_src", "host_tiling_src", "host_operator_src", "kernel_src", "python_bind_src", "model_src")
DIRECT_MODULE = "benchmark_ops"
SIX_MODULE = "custom_ops_lib"

# The op JSON's type names -> the C++ type DTYPE_<NAME> stands for in the kernel.
JSON_CTYPE = {"float": "float", "float32": "float", "fp32": "float", "float16": "half", "fp16": "half", "half": "half",
              "bfloat16": "bfloat16_t", "bf16": "bfloat16_t", "int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t",
              "uint16": "uint16_t", "int32": "int32_t", "uint32": "uint32_t", "int64": "int64_t", "uint64": "uint64_t",
              "bool": "bool", "double": "double"}
# ... and the torch dtype that selects that type combination.
JSON_TORCH = {"float": "float32", "float32": "float32", "fp32": "float32",
              "float16": "float16", "fp16": "float16", "half": "float16", "bfloat16": "bfloat16", "bf16": "bfloat16",
              "int8": "int8", "uint8": "uint8", "int16": "int16", "int32": "int32",
              "int64": "int64", "bool": "bool", "double": "float64"}


class SubmissionError(Exception):
    """The submission is malformed; the message says what is wrong in one sentence."""


@dataclass
class Origin:
    """Where a built file came from: a six-string field (and the submission line its first line is
    on) or a direct-launch source path."""
    label: str
    first_line: int | None = None   # submission-file line of the file's line 1 (six-string), when exact

    def where(self, line: int) -> str:
        at = f"{self.label}:{line}"
        if self.first_line is not None and line > 0:
            at += f" (submission line {self.first_line + line - 1})"
        return at


@dataclass
class Submission:
    path: Path
    format: str                          # "six-string" | "direct-launch"
    problem: str
    files: dict[str, str]                # relative path -> content, as laid out for the build
    origins: dict[str, Origin]           # relative path -> origin
    model_file: str                      # relative path of the Python that defines the model
    model_class: str
    module: str                          # the extension's module name
    kernel_sources: list[str] = field(default_factory=list)
    host_sources: list[str] = field(default_factory=list)     # compiled against the emulator (not torch)
    binding_sources: list[str] = field(default_factory=list)  # compiled against torch
    include_dirs: list[str] = field(default_factory=list)
    op: dict | None = None               # six-string: the op JSON entry

    @property
    def model_source(self) -> str:
        return self.files[self.model_file]


# ----------------------------------------------------------------------------- reading


def _string_fields(text: str) -> dict[str, tuple[str, int, int]]:
    """The submission's string assignments: name -> (value, first line, last line), without running it."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise SubmissionError(f"the submission is not Python: {exc.msg} (line {exc.lineno})") from None
    out = {}
    for node in tree.body:
        if (isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    out[t.id] = (node.value.value, node.value.lineno, node.value.end_lineno or node.value.lineno)
    return out


def snake(op_type: str) -> str:
    """AddCustom -> add_custom (msopgen's file and kernel names)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", op_type).lower()


def read_six_string(path: Path) -> Submission:
    fields = _string_fields(path.read_text(errors="replace"))
    missing = [k for k in SIX_FIELDS if k not in fields]
    if missing:
        raise SubmissionError(f"a six-string submission assigns {', '.join(SIX_FIELDS)}; "
                              f"{path.name} lacks {', '.join(missing)}")
    try:
        spec = json.loads(fields["project_json_src"][0])
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"project_json_src is not JSON: {exc.msg} (line {exc.lineno})") from None
    if not (isinstance(spec, list) and spec and isinstance(spec[0], dict) and "op" in spec[0]):
        raise SubmissionError("project_json_src must be a JSON list whose first entry has an `op`")
    op = spec[0]
    name = snake(op["op"])
    layout = {
        "host_tiling_src": f"op_host/{name}_tiling.h",
        "host_operator_src": f"op_host/{name}.cpp",
        "kernel_src": f"op_kernel/{name}.cpp",
        "python_bind_src": "CppExtension/csrc/op.cpp",
        "model_src": "model_src.py",
        "project_json_src": f"{name}.json",
    }
    files, origins = {}, {}
    for key, rel in layout.items():
        value, first, last = fields[key]
        files[rel] = value
        # A string literal spanning as many lines as its value has maps line for line.
        origins[rel] = Origin(key, first if last - first == value.count("\n") else None)
    problem = name[: -len("_custom")] if name.endswith("_custom") else name
    return Submission(path, "six-string", problem, files, origins, "model_src.py", "ModelNew", SIX_MODULE,
                      kernel_sources=[layout["kernel_src"]], host_sources=[layout["host_operator_src"]],
                      binding_sources=[layout["python_bind_src"]], include_dirs=["op_host"], op=op)


def _safe(rel: str) -> bool:
    p = PurePosixPath(rel)
    return bool(rel) and not p.is_absolute() and ".." not in p.parts


def read_direct(path: Path) -> Submission:
    try:
        spec = json.loads(path.read_text(errors="replace"))
    except json.JSONDecodeError as exc:
        raise SubmissionError(f"{path.name} is not JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("sources"), list):
        raise SubmissionError("a direct-launch submission is a JSON object with a `sources` list of {path, content}")
    build = spec.get("build") or {}
    if build.get("type", "ascendc_direct_launch") != "ascendc_direct_launch":
        raise SubmissionError(f"build.type is {build.get('type')!r}; "
                              "the direct-launch format is 'ascendc_direct_launch'")
    files = {}
    for s in spec["sources"]:
        rel = s.get("path", "") if isinstance(s, dict) else ""
        if not _safe(rel):
            raise SubmissionError(f"unsafe source path {rel!r} (relative paths without `..` only)")
        if rel in files:
            raise SubmissionError(f"duplicate source path {rel!r}")
        files[rel] = s.get("content", "")
    # Left out, MultiKernelBench infers them: binding sources are the .cpp files holding
    # PYBIND11_MODULE (or named pybind11.cpp), kernel sources every other .cpp.
    cpp = sorted(p for p in files if p.endswith(".cpp"))
    bindings = build.get("binding_sources") or [p for p in cpp
                                                if Path(p).name == "pybind11.cpp" or "PYBIND11_MODULE" in files[p]]
    kernels = build.get("kernel_sources") or [p for p in cpp if p not in bindings]
    if not bindings:
        raise SubmissionError("no binding source: no .cpp holds PYBIND11_MODULE and build.binding_sources lists none")
    module = build.get("module_name")
    if not module:
        m = re.search(r"PYBIND11_MODULE\s*\(\s*(\w+)", "\n".join(files[b] for b in bindings if b in files))
        module = m.group(1) if m and m.group(1) != "TORCH_EXTENSION_NAME" else DIRECT_MODULE
    for rel in list(kernels) + list(bindings):
        if rel not in files:
            raise SubmissionError(f"build lists {rel}, which is not among the sources")
    entry = (spec.get("entry") or {}).get("model", "ModelNew.py::ModelNew")
    if "::" not in entry:
        raise SubmissionError(f"entry.model must be FILE::CLASS, not {entry!r}")
    model_file, model_class = entry.split("::", 1)
    if model_file not in files:
        raise SubmissionError(f"the entry file {model_file} is not among the sources")
    origins = {rel: Origin(rel) for rel in files}
    return Submission(path, "direct-launch", str(spec.get("problem") or path.stem), files, origins,
                      model_file, model_class, module, kernel_sources=list(kernels), binding_sources=list(bindings),
                      include_dirs=list(build.get("include_dirs", ["kernel"])))


def read_submission(path: str | Path) -> Submission:
    path = Path(path)
    if not path.is_file():
        raise SubmissionError(f"{path} does not exist")
    if path.suffix == ".json":
        return read_direct(path)
    if path.suffix == ".py":
        return read_six_string(path)
    raise SubmissionError(f"{path.name}: a submission is a six-string .py file or a direct-launch .json file")


# ----------------------------------------------------------------------------- building


def dtype_combination(sub: Submission, input_dtypes: list[str]) -> int:
    """Which column of the op JSON's type lists the reference's inputs select (msopgen builds one
    kernel per column); the first when none matches."""
    descs = (sub.op or {}).get("input_desc", [])
    ncols = max((len(d.get("type", [])) for d in descs), default=1)
    for k in range(ncols):
        want = [JSON_TORCH.get(str(d["type"][k]).lower()) for d in descs if k < len(d.get("type", []))]
        if want and all(w == got for w, got in zip(want, input_dtypes)):
            return k
    return 0


def dtype_macros(sub: Submission, column: int) -> list[str]:
    """-DDTYPE_X=float ... for every input and output of the op JSON (msopgen's kernel macros)."""
    flags = []
    op = sub.op or {}
    for d in op.get("input_desc", []) + op.get("output_desc", []):
        types = d.get("type") or ["float"]
        t = str(types[min(column, len(types) - 1)]).lower()
        ctype = JSON_CTYPE.get(t)
        if ctype is None:
            raise SubmissionError(f"project_json_src: {d.get('name')} has type {t!r}, which the emulator does not know")
        upper = str(d.get("name", "")).upper()
        flags += [f"-DDTYPE_{upper}={ctype}", f"-DORIG_DTYPE_{upper}={ctype}"]
    return flags


def torch_flags(module: str) -> tuple[list[str], list[str]]:
    """Compile and link flags of a CPU torch extension named `module`."""
    import torch
    from torch.utils import cpp_extension
    inc = [f"-isystem{p}" for p in cpp_extension.include_paths()] + [f"-isystem{sysconfig.get_paths()['include']}"]
    abi = int(bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)))
    # The torch version is in the flags so that cached objects follow it (its headers are not hashed).
    compile_flags = [*inc, f"-I{TORCH_INCLUDE}", f"-DTORCH_EXTENSION_NAME={module}", "-DTORCH_API_INCLUDE_EXTENSION_H",
                     f"-DACEMU_TORCH_VERSION={torch.__version__.split('+')[0]}",
                     f"-D_GLIBCXX_USE_CXX11_ABI={abi}", "-Wno-unused-parameter", "-Wno-missing-field-initializers"]
    libdir = cpp_extension.library_paths()[0]
    link = [f"-L{libdir}", "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python", f"-Wl,-rpath,{libdir}"]
    return compile_flags, link


def _glue(sub: Submission, work: Path) -> str:
    """Six-string: registers the kernel entry of the op with the op harness."""
    op_type = sub.op["op"]
    kernel_text = sub.files[sub.kernel_sources[0]]
    entries = kernel_entries(kernel_text)
    want = snake(op_type)
    entry = next((e for e in entries if e.name == want), None) or (entries[0] if len(entries) == 1 else None)
    if entry is None:
        raise SubmissionError(f'kernel_src has no entry `extern "C" __global__ __aicore__ void {want}(...)`')
    n = len(entry.params)
    params = ", ".join(["uint8_t*"] * n)
    call = ", ".join(f"a[{i}]" for i in range(n))
    return ("// Generated by the emulator's submission build: the op harness's entry for the kernel.\n"
            "#include <cstdint>\n#include \"acemu/host/op_call.h\"\n"
            f'extern "C" void {entry.name}({params});\n'
            f"static void acemu_entry(uint8_t** a) {{ {entry.name}({call}); }}\n"
            f'static const bool acemu_registered = acemu::op::register_kernel("{op_type}", "{entry.name}", {n}, '
            'acemu_entry);\n')


@dataclass
class Build:
    ok: bool
    module_path: Path | None
    module_dir: Path | None
    diagnostics: list[dict]
    seconds: float
    cached: bool


def build(sub: Submission, work: Path, *, input_dtypes: list[str] | None = None, soc: str | None = None) -> Build:
    """Lay the submission out in `work` and build its extension module there."""
    # The folder holds this submission's files only (objects are cached by content elsewhere).
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for rel, text in sub.files.items():
        p = work / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    includes = [str(work / d) for d in sub.include_dirs]
    inc_flags = [f"-I{d}" for d in includes]
    tflags, link = torch_flags(sub.module)
    items: list = []
    if sub.format == "six-string":
        column = dtype_combination(sub, input_dtypes or [])
        tiling = work / f"op_host/{snake(sub.op['op'])}_tiling.h"
        prelude = work / "acemu_tiling_prelude.h"
        prelude.write_text(tiling_prelude(tiling))
        items.append((work / sub.kernel_sources[0], [*dtype_macros(sub, column), "-include", str(prelude), *inc_flags]))
        items += [(work / h, inc_flags) for h in sub.host_sources]
        glue = work / "acemu_op_glue.cpp"
        glue.write_text(_glue(sub, work))
        items.append((glue, []))
    else:
        items += [(work / k, inc_flags) for k in sub.kernel_sources]
    # Binding sources are torch code: the emulator's warnings are not theirs to keep.
    items += [(work / b, [*tflags, *inc_flags, "-w"]) for b in sub.binding_sources]
    items.append((TORCH_GLUE, [*tflags, "-w"]))
    comp = runner.build_binary(items, None, soc=soc, link_flags=link, shared=True)
    if not comp.ok:
        return Build(False, None, None, comp.diagnostics, comp.compile_s, comp.cached)
    module_dir = work / ("kernel/build" if sub.format == "direct-launch" else "build")
    module_dir.mkdir(parents=True, exist_ok=True)
    module_path = module_dir / f"{sub.module}{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    if module_path.exists() or module_path.is_symlink():
        module_path.unlink()
    module_path.symlink_to(comp.binary)
    return Build(True, module_path, module_dir, comp.diagnostics, comp.compile_s, comp.cached)


def locate(sub: Submission, work: Path, file: str, line: int) -> str | None:
    """`kernel_src:42 (submission line 97)` / `kernel/relu_kernel.cpp:42` for a path of the build."""
    if not Path(file).is_absolute():
        # Named relative to the build's common folder (runner: -ffile-prefix-map): the source whose
        # path in the build ends the name.
        rel = next((r for r in sub.origins if file == r or file.endswith("/" + r)), None)
        if rel is None:
            return None
    else:
        try:
            rel = Path(file).resolve().relative_to(work.resolve()).as_posix()
        except (OSError, ValueError):
            return None
    origin = sub.origins.get(rel)
    return origin.where(line) if origin else None
