"""Ranking tiling candidates by the estimate (opt-in: `ascendcraft lower --rank-tiling`).

The candidates come from the UB plan (pure, fast); the ranking runs each traced on the emulator
on the reference's inputs (GELU over 2 rows of 16384 floats: several tiles per row, one row per core).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.verifier import verify
from ascendcraft_lab.passes.tiling_report import TilingReport, tiling_candidates
from ascendcraft_lab.soc import get_soc

EXAMPLES = Path(__file__).resolve().parents[2] / "ascendcraft_lab" / "examples" / "activation"
SOC = get_soc("Ascend910B2")


def _gelu():
    src = (EXAMPLES / "gelu.dsl.py").read_text()
    return verify(parse(src, "gelu.dsl.py"), SOC)


def test_candidates_are_the_longest_tile_the_ub_fits_and_its_half_and_quarter_for_each_buffer_count():
    cands = tiling_candidates(_gelu(), {"x": (2, 16384), "y": (2, 16384)}, {}, SOC)
    assert cands[0].draft and cands[0].fields == (("tile", 7744),) and cands[0].buffers == 2
    for buffers in (2, 1):
        tiles = [dict(c.fields)["tile"] for c in cands if c.buffers == buffers and not c.draft]
        longest = tiles[0]
        # in whole 256-byte repeats (64 floats), as ub_elems sizes a tile
        assert tiles == [longest, longest // 2 // 64 * 64, longest // 4 // 64 * 64] and longest % 64 == 0
    assert all(c.ub_bytes <= SOC.ub_usable for c in cands)
    # one buffer per queue frees UB: its longest tile is longer than double buffering's
    assert max(dict(c.fields)["tile"] for c in cands if c.buffers == 1) > max(dict(c.fields)["tile"] for c in cands
                                                                              if c.buffers == 2)


def test_a_tile_never_exceeds_the_data_it_steps_over():
    cands = tiling_candidates(_gelu(), {"x": (4, 1024), "y": (4, 1024)}, {}, SOC)
    assert {dict(c.fields)["tile"] for c in cands} == {1024, 512, 256}
    assert {c.buffers for c in cands} == {1, 2}


@pytest.fixture(scope="module")
def ranked(tmp_path_factory):
    from ascendcraft_lab.session import Session
    d = tmp_path_factory.mktemp("rank")
    ref = d / "gelu.py"
    ref.write_text((EXAMPLES / "gelu.py").read_text().replace("batch_size = 16", "batch_size = 2"))
    s = Session.open(d / "s", (EXAMPLES / "gelu.dsl.py").read_text(), reference=ref, accept_all=True,
                     dsl_name="gelu.dsl.py")
    return s, s.rank_tiling()


@pytest.mark.heavy
def test_the_ranking_picks_double_buffering_over_one_buffer_per_queue(ranked):
    _, ranking = ranked
    assert all(r["seconds"] is not None for r in ranking), [r["status"] for r in ranking]
    assert ranking[0]["buffers"] == 2
    single = [r for r in ranking if r["buffers"] == 1]
    double = [r for r in ranking if r["buffers"] == 2]
    assert single and min(r["seconds"] for r in double) < min(r["seconds"] for r in single)
    # the physics behind it: one buffer per queue never overlaps copy-in with compute
    assert all(r["mte2_v_overlap"] == 0 for r in single) and all(r["mte2_v_overlap"] > 0 for r in double)
    assert [r["seconds"] for r in ranking] == sorted(r["seconds"] for r in ranking)


@pytest.mark.heavy
def test_the_tiling_explanation_names_the_winner_and_its_margin(ranked):
    session, ranking = ranked
    text = TilingReport(**session.tiling).text()
    best, second = ranking[0], ranking[1]
    margin = 100 * (second["seconds"] - best["seconds"]) / best["seconds"]
    assert f"=> {best['label']}" in text and f"won at est. {best['seconds'] * 1e6:.2f} us" in text
    assert f"{margin:.1f} % faster than the runner-up, {second['label']}" in text
    assert "ESTIMATED" in text


def test_rank_tiling_without_a_reference_says_what_it_needs_before_writing_anything(tmp_path, capsys):
    from ascendcraft_lab.cli import main
    rc = main(["lower", str(EXAMPLES / "gelu.dsl.py"), "-o", str(tmp_path / "s"), "--rank-tiling"])
    err = capsys.readouterr().err
    assert rc == 2 and "--rank-tiling needs a PyTorch reference" in err and "--ref REF.py" in err
    assert "Traceback" not in err and not (tmp_path / "s").exists()       # no session written, then a failure


@pytest.mark.heavy
def test_the_notebook_payload_carries_the_ranking_for_the_views(ranked):
    import jsonschema
    from ascendcraft_lab.notebook.payload import load_schema, pipeline_payload
    session, ranking = ranked
    doc = pipeline_payload(session)
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    why = doc["tiling"]["alternatives"]
    assert any(line.startswith(f"=> {ranking[0]['label']}") for line in why)
    assert sum(1 for line in why if "est." in line) >= len(ranking)
