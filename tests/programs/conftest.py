"""Small programs of kernels the tests build on: two vector kernels, one or two per launch."""
import pytest

KERNELS = '''
@host
def tiling(x: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min(ub_elems(f32, live=3), N))


@kernel
def twice(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                xu = load(x[r, c])
            with compute:
                yu = xu * 2.0
            with copyout:
                store(y[r, c], yu)


@host
def add_tiling(a: Tensor[f32, (B, N)]):
    cores = min(VECTOR_CORES, B)
    rows = cdiv(B, cores)
    cores = cdiv(B, rows)
    return Launch(cores, rows=rows, tile=min(ub_elems(f32, live=3), N))


@kernel
def add(a: GM[f32, (B, N)], b: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):
    for r in core_rows(t.rows, B):
        for c in tiles(N, t.tile):
            with copyin:
                au = load(a[r, c])
                bu = load(b[r, c])
            with compute:
                yu = au + bu
            with copyout:
                store(y[r, c], yu)
'''

# y = 2x + x, through an intermediate
CHAIN = KERNELS + '''

@program
def chain(x: GM[f32, (B, N)], y: Out[f32, (B, N)], h: Workspace[f32, (B, N)]):
    twice(x, h)
    add(h, x, y)
'''

# a running sum over the steps of a sequence: acc_s = acc_{s-1} * 2 + x[s], ping-pong state in `st`
SCAN = KERNELS + '''

@program
def scan(x: GM[f32, (S, B, N)], y: Out[f32, (S, B, N)], st: Workspace[f32, (2, B, N)], d: Workspace[f32, (B, N)]):
    for s in range(S):
        twice(st[s % 2], d)
        add(d, x[s], st[(s + 1) % 2])
        twice(st[(s + 1) % 2], y[s])
'''


@pytest.fixture
def chain_text():
    return CHAIN


@pytest.fixture
def scan_text():
    return SCAN
