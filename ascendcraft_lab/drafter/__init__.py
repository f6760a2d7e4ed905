"""The offline drafter: a PyTorch reference (KernelBench format) -> a DSL draft, by rules.

    trace.py      the reference runs in a child process; torch.fx traces forward -> JSON graph
    rules.py      every known torch function / method / nn module -> canonical nodes (graph.py)
    layout.py     which template fits (map, rows, cols, windows, pool; total, rows_total,
                  windows_total for losses; planes for normalizations) and each value's space
    templates.py  the templates: loops, sweeps and compute stages as DSL text
    totals.py     the loss templates: every core adds its share of a sum into the output
    pool.py       the pool template (max/avg pooling over the last 1-3 axes)
    broadcast.py  the bcast template: elementwise work with inputs broadcast against the output
    resize.py     the resize template (F.interpolate / nn.Upsample: source rows blended once per
                  output row, column taps by iota + Gather) and the gridsample template
                  (grid_sample by affine_grid: a plane in UB, four Gathers per pixel)
    remap.py      the remap template (F.pad in every mode, flips within a row, torch.roll: an
                  index map per axis, the source row in UB, one Gather per column tile)
    cube.py       the cube templates: one matrix product (matmul; epilogue with a Workspace and
                  the vector cores, triu/tril masks), matvec and diag(v) scalings on the vector unit
    draft.py      draft_reference / draft_from_trace: the above, plus the UB-driven tile size
    cli.py        `ascendcraft draft REF.py [-o K.dsl.py] [--soc S] [--engine drafter|llm]`

It is compositional: no op is looked up by name as a whole; the graph of what forward
computes is rebuilt from small rules, so F.gelu and its formula, x.sum(dim=1) and
torch.sum(x, 1), nn.GELU() and F.gelu give the same draft.
"""
from .draft import Draft, DraftError, draft_from_trace, draft_reference, kernel_name

__all__ = ["Draft", "DraftError", "draft_from_trace", "draft_reference", "kernel_name"]
