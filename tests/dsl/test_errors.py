"""The diagnostic format shared by DSL errors and (later) C++ findings mapped back to DSL lines."""
from ascendcraft_lab.dsl import DslError, Span, format_diagnostic, parse
from ascendcraft_lab.dsl.errors import human_bytes

SOURCE = "@host\ndef tiling(x: Tensor[f32, (N,)]):\n    cores = 1\n    tile = ub_elems(f32, live=40)\n"


def test_diagnostic_has_header_location_snippet_carets_and_help():
    text = format_diagnostic("kernel.dsl.py", SOURCE, Span(4, 5, 4, 9), "what is wrong", "what would be right")
    assert text == (
        "error: what is wrong\n"
        " --> kernel.dsl.py:4:5\n"
        "  |\n"
        "4 |     tile = ub_elems(f32, live=40)\n"
        "  |     ^^^^\n"
        "  = help: what would be right"
    )


def test_gutter_widens_with_the_line_number():
    src = "\n" * 11 + "x = 1\n"
    text = format_diagnostic("k.dsl.py", src, Span(12, 1, 12, 2), "m", "h")
    assert "12 | x = 1" in text and "   |" in text and "   = help: h" in text


def test_diagnostic_without_span_or_source_keeps_the_format():
    assert format_diagnostic("k.dsl.py", None, None, "m", "h") == "error: m\n --> k.dsl.py\n  = help: h"
    assert format_diagnostic(None, None, None, "m") == "error: m"


def test_multiline_span_underlines_to_the_end_of_its_first_line():
    text = format_diagnostic("k", "ab\ncd\n", Span(1, 1, 2, 2), "m")
    assert text.splitlines()[-1] == "  | ^^"


def test_dsl_error_str_is_the_rendered_diagnostic():
    try:
        parse("@host\ndef t(x: Tensor[f32, (N,)]):\n    return Launch(1)\n\n\n"
              "@kernel\ndef k(x: GM[f32, (N,)]):\n    while 1:\n        pass\n", "k.dsl.py")
    except DslError as e:
        assert str(e) == e.render()
        assert e.line == 8 and e.col == 5
        assert e.one_line().startswith("k.dsl.py:8:5: ")
    else:
        raise AssertionError("expected a DslError")


def test_human_bytes_gives_exact_binary_units():
    assert human_bytes(188160) == "183.75 KiB"
    assert human_bytes(1 << 20) == "1 MiB"
    assert human_bytes(100) == "100 B"
