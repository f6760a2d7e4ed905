"""The sort template: one sort / argsort / topk / kthvalue / msort along the last axis -> DSL.

A sort needs the whole row at once, so a row is one tile: the cores split the rows, each row is
loaded whole into UB and `argsort(xu, descending, k)` gives the positions that sort it (Sort32
over groups of 32, MrgSort rounds of four queues, Extract; stable: equal values keep their input
order). The values are gathered from the row by those positions (`take`, one vector Gather), so
they are the input's own bits; the int64 indices PyTorch returns are the i32 positions cast.

  sort, argsort, msort (1-D)  every position; ascending unless descending
  topk                        the first k positions, largest first unless largest=False
  kthvalue                    the k-th smallest: the last of the first k ascending, as scalars

bfloat16 rows are sorted in float32 (Sort32 takes half and float; the cast is exact), their
values cast back. What the kernel guarantees on ties: the stable order (torch.sort(stable=True));
torch.topk and kthvalue do not document their order among equal values, so a reference that
picks another of several equal values differs in its indices, not its values.
"""
from __future__ import annotations

from .graph import Node
from .templates import DTYPE, Writer, signature


class SortWriter(Writer):
    template = "sort"
    whole_rows = True

    @property
    def node(self) -> Node:
        return self.lay.outputs[0]

    @property
    def attrs(self) -> dict:
        return self.node.attrs

    def scaled_shapes(self, shapes: dict) -> dict:
        """The rows grow x64; a row stays as long (a sort holds it whole in UB, so its length is the
        row's, not a tile size the drafter picks)."""
        out = {}
        for name, shp in shapes.items():
            out[name] = tuple(d * 64 if i == 0 and len(shp) > 1 else d for i, d in enumerate(shp))
        return out

    # -- views ------------------------------------------------------------------------------------
    def _lead(self) -> list[str]:
        return list(self.dims[:-1])

    def full_view(self, shape=None) -> str:
        lead = self._lead()
        last = self.dims[-1]
        if shape is not None and self.attrs["k"] and not self.attrs["kth"]:
            # the base class asks before the scalars are named; _collect sets the views again
            last = self.k if self.scalar_names or len(self.node.args) == 1 else "k"
        return self.shape_text([self.group(range(len(lead))), last])

    def reduced_view(self, shape) -> str:
        lead = self.group(range(len(self._lead())))
        if self.attrs["keepdim"]:
            return self.shape_text([lead, "1"])
        return self.shape_text([lead])

    @property
    def k(self) -> str:
        """k as the kernel reads it: the scalar parameter it comes from, or a constant."""
        if len(self.node.args) > 1:
            return self.scalar_param(self.node.args[1])
        return str(self.attrs["k"])

    def _collect(self):
        super()._collect()
        for t, o in zip(self.out_tensors, self.lay.outputs):
            t.name = self.namer.fresh("values" if o.attrs["part"] == "values" else "indices")
            t.view = self.reduced_view(o.shape) if self.attrs["kth"] else self.full_view(o.shape)

    # -- the Writer's pieces ------------------------------------------------------------------------
    def host_body(self) -> list[str]:
        lead = self._lead()
        if not lead:
            return ["cores = 1  # one row"]
        rows = " * ".join(lead)
        return [f"cores, per_core = core_split({rows})  # whole rows per core"]

    def launch_fields(self) -> str:
        return ", rows=per_core" if self._lead() else ""

    def docstring(self) -> str:
        a = self.attrs
        what = {"sort": "torch.sort", "argsort": "torch.argsort", "msort": "torch.msort", "topk": "torch.topk",
                "kthvalue": "torch.kthvalue"}[a["what"]]
        order = "largest first" if a["descending"] else "smallest first"
        keep = f"the k-th ({a['k']}) smallest" if a["kth"] else f"the first {a['k']}" if a["k"] else "every element"
        return (f"Drafted from {self.source}: {what} along the last axis, sort template. Each row is loaded whole "
                f"into UB; argsort() sorts it {order} (Sort32 groups of 32, MrgSort rounds, Extract; stable), "
                f"keeps {keep}; the values are gathered from the row by the positions.")

    def kernel_body(self) -> list[str]:
        a = self.attrs
        x = self.tensors[0]
        fresh = self.namer.fresh
        xu = fresh("xu")
        bf16 = x.dtype == "bfloat16"
        xw = fresh("xw") if bf16 else xu
        at, vu, iu = fresh("at"), fresh("vu"), fresh("iu")
        lead = self._lead()
        row = "[r, :]" if lead else "[:]"
        out_row = "[r]" if lead else ""
        if a["kth"] and a["keepdim"]:
            out_row = "[r, 0]" if lead else "[0]"
        args = [xw] + (["descending=True"] if a["descending"] else []) + ([f"k={self.k}"] if a["k"] else [])
        compute = [f"{xw} = cast({xu}, f32)  # Sort32 takes half and float scores"] if bf16 else []
        compute.append(f"{at} = argsort({', '.join(args)})")
        parts = {o.attrs["part"]: t for t, o in zip(self.out_tensors, self.lay.outputs)}
        stores = []
        if "values" in parts:
            y = parts["values"]
            if a["kth"]:
                compute.append(f"{vu} = last(take({xw}, {at}))  # the k-th smallest")
            else:
                compute.append(f"{vu} = take({xw}, {at})  # the values, gathered by position")
            if bf16:
                vh = fresh("vh")
                compute.append(f"{vh} = cast({vu}, bf16)")
                vu = vh
            stores.append(f"store({y.name}{out_row if a['kth'] else row}, {vu})")
        if "indices" in parts:
            y = parts["indices"]
            src = f"last({at})" if a["kth"] else at
            compute.append(f"{iu} = cast({src}, i64)  # PyTorch's indices are int64")
            stores.append(f"store({y.name}{out_row if a['kth'] else row}, {iu})")
        body = ["with copyin:", f"    {xu} = load({x.name}{row})  # the whole row: a sort needs every element",
                "with compute:", *[f"    {c}" for c in compute],
                "with copyout:", *[f"    {s}" for s in stores]]
        if not lead:
            return body
        return [f"for r in core_rows(t.rows, {' * '.join(lead)}):", *[f"    {b}" for b in body]]

    def kernel_signature(self) -> str:
        params = [f"{t.name}: GM[{DTYPE[t.dtype]}, {t.view}]" for t in self.tensors]
        params += [f"{n}: {dt}" for n, dt in self.kernel_scalars]
        params += [f"{t.name}: Out[{DTYPE[t.dtype]}, {t.view}]" for t in self.out_tensors]
        params.append("t: Tiling")
        return signature(self.op_name, params)
