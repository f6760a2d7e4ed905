"""The other dtype variants of a generic kernel, as files of its project.

A kernel generic over T (`@kernel(T=(f32, f16, bf16))`, dsl/generic.py) is lowered through the
passes as one variant, its first dtype: that project's files, stages and edits are the
session's. Each other variant is the same DSL with T bound to its dtype, lowered by the rule
engine under its own name (`gelu_f16`: class KernelGeluF16, entry gelu_f16) into
`variants/<dtype>/` of the same project: kernel, tiling function, launch and binding. The first
variant's CMake builds them into its library and its binding hands a call to the variant of
the input's dtype (passes/host.py `dispatch_variants`), so `torch.ops.ascendcraft.gelu` serves
every dtype of the kernel with one compiled kernel per dtype.
"""
from __future__ import annotations

from dataclasses import replace

from ..dsl import ir
from ..dsl.generic import instantiate, variant_name, variants
from .bundle import Bundle
from .pipeline import PIPELINE
from .plan import plan_for
from .project import Project


def variant_program(program: ir.Program, binding) -> ir.Program:
    """The variant for `binding`, its kernel named `<name>_<dtype>` (dtype names of the binding)."""
    v = instantiate(program, binding)
    return replace(v, kernel=replace(v.kernel, name=f"{program.kernel.name}_{variant_name(binding)}"))


def secondary_bindings(program: ir.Program) -> list[dict]:
    """Every binding but the first (the variant the passes lower)."""
    return variants(program)[1:] if program.generic else []


def variant_files(program: ir.Program, options) -> dict[str, Bundle]:
    """variant name -> its project files under `variants/<name>/` (no CMakeLists: the first
    variant's builds them), as the rule engine lowers them."""
    from ..dsl.verifier import verify
    out = {}
    for b in secondary_bindings(program):
        v = verify(variant_program(program, b), getattr(options, "soc", None))
        project = Project.start(plan_for(v, options))
        for p in PIPELINE:
            p.write(project)
        bundle = project.bundle()
        name = variant_name(b)
        files = {f"variants/{name}/{path}": text for path, text in bundle.files.items() if path != "CMakeLists.txt"}
        maps = {f"variants/{name}/{path}": m for path, m in bundle.source_map.items() if path != "CMakeLists.txt"}
        out[name] = Bundle(files, maps)
    return out
