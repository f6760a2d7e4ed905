"""The templates' KernelIR builder (drafter/kir.py): what it builds prints as the DSL printer prints it,
plus the two things drafts have that the printer leaves out (a comment on a line, a line of text)."""
from ascendcraft_lab.drafter import kir
from ascendcraft_lab.dsl.parser import parse
from ascendcraft_lab.dsl.printer import block_lines


def test_a_tile_loop_prints_as_the_dsl_reads_it():
    step = kir.stages([kir.load("xu", "x", "c")], ["yu = exp(xu)"], [kir.store("y", ("c",), "yu")])
    tiles = kir.loop("c", kir.tiles("part", kir.dot("t", "tile")), *step)
    body = kir.loop("part", kir.core_chunk(kir.dot("t", "chunk"), kir.product(["B", "N"])), tiles)
    assert kir.lines([body]) == [
        "for part in core_chunk(t.chunk, B * N):",
        "    for c in tiles(part, t.tile):",
        "        with copyin:",
        "            xu = load(x[c])",
        "        with compute:",
        "            yu = exp(xu)",
        "        with copyout:",
        "            store(y[c], yu)",
    ]


def test_statements_without_text_print_through_the_printer():
    """Built of IR alone, a block prints exactly as dsl/printer.py prints the same statements."""
    st = kir.loop("r", kir.core_rows(kir.dot("t", "rows"), kir.product(["B", "M"])),
                  *kir.stages([kir.load("xu", "x", "r", "c")], [], [kir.store("y", ("r", "c"), "xu", accumulate=True)]))
    assert kir.lines([st], 1) == block_lines([st], 1)


def test_a_note_goes_on_the_statement_or_the_loop_header():
    chunk = kir.assign("chunk", kir.call("align_up", kir.call("cdiv", kir.product(["N"]), "VECTOR_CORES"), 8))
    assert kir.lines([kir.note(chunk, "aligned")]) == ["chunk = align_up(cdiv(N, VECTOR_CORES), 8)   # aligned"]
    loop = kir.note(kir.loop("c", kir.tiles("part", kir.dot("t", "rows")), "pass"), "rows", gap=2)
    assert kir.lines([loop]) == ["for c in tiles(part, t.rows):  # rows", "    pass"]


def test_an_empty_product_is_one_and_the_printed_host_parses():
    assert kir.lines([kir.assign("total", kir.product([]))]) == ["total = 1"]
    host = kir.lines([kir.assign("total", kir.product(["B", "N"])), kir.assign("cores", kir.call("cdiv", "total", 8))])
    src = ("@host\ndef tiling(x: Tensor[f32, (B, N)]):\n" + "".join(f"    {line}\n" for line in host) +
           "    return Launch(cores)\n\n\n@kernel\ndef k(x: GM[f32, (B, N)], y: Out[f32, (B, N)], t: Tiling):\n"
           "    for r in core_rows(1, B):\n        with copyin:\n            xu = load(x[r, :])\n"
           "        with copyout:\n            store(y[r, :], xu)\n")
    assert [st.target for st in parse(src, "k.dsl.py").host.body] == ["total", "cores"]
