"""The offline drafter: a PyTorch reference (KernelBench format) -> a DSL draft, by rules.

    trace.py      the reference runs in a child process; torch.fx traces forward -> JSON graph
    rules.py      every known torch function / method / nn module -> canonical nodes (norms.py: the
                  normalizations' rules)
    graph.py      the canonical graph: Node, the Builder that folds and orders, and OPS, one row per
                  canonical op (its kind and facts: what templates ask instead of op names)
    choice.py     which template drafts the graph: RULES, an ordered, commented rule list
                  [Rule(matches, Template, why)]; a Template names the node kinds it takes and a
                  cost hook (the cover of a graph by templates builds on it)
    layout.py     each template's layout: the base shape, reduced axes and each value's space
                  (full, reduced, scalar, row, plane, total), the single-op templates' checks
    writers.py    template name -> writer class; the writers:
      templates.py  what every writer shares (names, scalars, host fields, compute stages, sweeps,
                    shared host lines) and map, rows, windows, cols
      blocks.py     row_blocks: blocks of whole short rows, reductions broadcast back
      planes.py     planes: grouped reductions (batch / group norm)
      broadcast.py  bcast and bcast_fold: inputs broadcast against the output; slices and cats
      totals.py     total, rows_total, windows_total: losses, every core adds its share
      pool.py       pool: max / avg pooling over the last 1-3 axes
      index.py      index: argmax / gather / index_select / index_add / scatter
      views.py      permute and split
      remap.py      remap (pad, flip, roll, repeat: an index map per axis) and interleave_last
      resize.py     resize (F.interpolate), gridsample and gridinput (F.grid_sample)
      sort.py       sort: sort / argsort / topk / kthvalue along the last axis
      datadep.py    histc, interleave (repeat_interleave), nonzero: data-dependent sizes
    cube.py       the cube templates (matmul, epilogue, matvec, rowscale, colscale): one matrix
                  product, drafted whole (its own layout and text)
    conv.py       the conv template: one convolution (1-3 d, grouped, transposed) as im2col on the
                  vector unit into a GM Workspace, sync_all, the cube's product, the bias (its own text)
    phases.py     a graph no single template takes, cut into segments (a product and its epilogue, the
                  vector work between products) and the covers the estimate chooses between
    compose.py    the segments' drafts written as the phases of one kernel (Workspaces, sync_all())
    kir.py        a small KernelIR builder the templates print through dsl/printer.py
    cases.py      one draft for every case of an NPUKernelBench reference (dtypes, ranks)
    draft.py      draft_reference / draft_from_trace: the above, plus the UB-driven tile size
    (cli/: `ascendcraft draft REF.py [-o K.dsl.py] [--soc S] [--engine drafter|llm]`)

It is compositional: no op is looked up by name as a whole; the graph of what forward
computes is rebuilt from small rules, so F.gelu and its formula, x.sum(dim=1) and
torch.sum(x, 1), nn.GELU() and F.gelu give the same draft.
"""
from .draft import Draft, DraftError, draft_from_trace, draft_reference, kernel_name

__all__ = ["Draft", "DraftError", "draft_from_trace", "draft_reference", "kernel_name"]
