"""A cube + vector (MIX) kernel on the emulator: every vector core its launch starts gets rows.

A MIX launch of blockDim blocks starts blockDim cube cores and 2 * blockDim vector cores, and on a
vector core GetBlockIdx() counts vector cores. A core_rows split written per block would give rows to
the first blockDim vector cores only; the lowering splits each AI core's rows between its two.
"""
from __future__ import annotations

import numpy as np
import pytest

from ascendcraft_lab.backends.emulator.verify import emulate
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.engines.rule import render
from ascendcraft_lab.examples import get_example
from ascendcraft_lab.passes.manager import LowerOptions
from ascendcraft_lab.perf.trace import read_trace

pytestmark = pytest.mark.heavy

M, K, N = 130, 300, 200        # linear_relu's tail shape: 2 x 2 cube blocks, 33 rows per AI core


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    ex = get_example("linear_relu")
    program = verify(parse(ex.dsl.read_text(), ex.dsl.name))
    bundle = render(program, LowerOptions(), 4)
    rng = np.random.default_rng(7)
    inputs = {"x": rng.standard_normal((M, K), dtype=np.float32), "w": rng.standard_normal((N, K), dtype=np.float32),
              "bias": rng.standard_normal(N, dtype=np.float32)}
    path = tmp_path_factory.mktemp("mix") / "trace.bin"
    run = emulate(program, bundle, inputs, {}, trace=path)
    return run, read_trace(path), inputs


def test_the_mix_kernel_is_correct_on_the_emulator(traced):
    run, _, inputs = traced
    assert run.status == "ok", run.message
    want = np.maximum(inputs["x"].astype(np.float64) @ inputs["w"].T.astype(np.float64) + inputs["bias"], 0)
    np.testing.assert_allclose(run.outputs["y"], want, rtol=1e-4, atol=1e-3)


def test_every_vector_core_of_the_mix_launch_stores_rows(traced):
    run, launches, _ = traced
    [launch] = launches
    vector = [b for b in launch.blocks if not b.cube]
    cube = [b for b in launch.blocks if b.cube]
    assert len(cube) == run.block_dim and len(vector) == 2 * run.block_dim
    idle = [b.index for b in vector
            if not any(e.api.startswith("DataCopy") and e.pipe_name == "MTE3" for e in b.events)]
    assert idle == [], f"vector cores {idle} of {len(vector)} stored nothing"
