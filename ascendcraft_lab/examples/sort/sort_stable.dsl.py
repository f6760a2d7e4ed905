"""A stable ascending sort of fp16 rows: Sort32 sorts largest first, so the scores are negated.

Sort32 and MrgSort order (score, index) pairs largest score first; an ascending sort hands
them -x (exact in f16), so the smallest value comes first. Ties are what make a sort stable or
not: a row of 1000 fp16 randn values holds only ~800 distinct values, and torch.sort(stable=True)
keeps equal values in input order. Sort32 puts the lower position first among equal scores
and the merge rounds take their queues in position order, so argsort() is stable, and the
indices match PyTorch's exactly, not just the values.

Half scores stay half: Sort32 takes half and float (a half pair is still 8 bytes: the score,
2 reserved bytes, the uint32 index), and an Extract repeat is 128 halves, so the row is padded
to 1024. The values come from the row itself by the sorted positions (take: one Gather).
"""


@host
def tiling(x: Tensor[f16, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows)


@kernel
def sort_stable(x: GM[f16, (B, N)], values: Out[f16, (B, N)], indices: Out[i64, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        with copyin:
            xu = load(x[r, :])
        with compute:
            at = argsort(xu)                # ascending, stable: Sort32 of -x, MrgSort rounds, Extract
            vu = take(xu, at)
            iu = cast(at, i64)
        with copyout:
            store(values[r, :], vu)
            store(indices[r, :], iu)
