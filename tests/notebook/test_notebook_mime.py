"""The pipeline MIME payload (schema, source maps, caps), the static HTML and the AscendC lexer."""
from __future__ import annotations

import json

import jsonschema
import pytest
from pygments.token import Keyword, Name

from ascendcraft_lab.notebook import render
from ascendcraft_lab.notebook.display import MAX_OUTPUT_CHARS, mimebundle
from ascendcraft_lab.notebook.lexer import AscendCLexer
from ascendcraft_lab.notebook.payload import load_schema, pipeline_payload

KERNEL = "kernel/gelu_kernel.cpp"


def validate(doc):
    jsonschema.Draft202012Validator(load_schema()).validate(doc)


@pytest.mark.heavy
def test_the_payload_follows_its_schema(lab):
    validate(pipeline_payload(lab))
    lab.accept_all()
    lab.compile_and_verify()
    doc = pipeline_payload(lab)
    validate(doc)
    assert doc["verdict"]["correct"] is True


@pytest.mark.heavy
def test_a_payload_that_breaks_the_schema_is_rejected(lab):
    doc = pipeline_payload(lab)
    doc["passes"][0]["status"] = "approved"
    with pytest.raises(jsonschema.ValidationError):
        validate(doc)


@pytest.mark.heavy
def test_each_step_carries_before_after_text_and_dsl_lines(lab):
    doc = pipeline_payload(lab)
    init = next(p for p in doc["passes"] if p["name"] == "init")
    f = next(f for f in init["files"] if f["path"] == KERNEL)
    assert f["change"] == "modified" and f["before"]["text"] == lab.text(KERNEL, "host")
    assert f["after"]["text"] == lab.text(KERNEL, "init")
    assert len(f["after"]["dsl_lines"]) == f["after"]["lines"] == len(lab.text(KERNEL, "init").splitlines())
    load_line = next(i for i, l in enumerate(lab.dsl.splitlines(), 1) if "load(x[r, c])" in l)
    compute = next(p for p in doc["passes"] if p["name"] == "compute")
    after = next(f for f in compute["files"] if f["path"] == KERNEL)["after"]
    mapped = [line for line, d in zip(after["text"].splitlines(), after["dsl_lines"]) if d == load_line]
    assert any("AllocTensor" in line for line in mapped)
    assert doc["dsl_colors"][str(load_line)] == render.dsl_color(load_line)
    assert init["explain"].startswith("Every core runs the same kernel function")


@pytest.mark.heavy
def test_no_nan_or_infinity_reaches_the_browser(lab):
    text = json.dumps(pipeline_payload(lab), allow_nan=False)      # raises on NaN/inf
    assert "Infinity" not in text


@pytest.mark.heavy
def test_huge_bodies_are_capped_and_flagged(lab):
    launch = "host/gelu_launch.cpp"
    filler = "".join(f"// filler line {i} {'x' * 240}\n" for i in range(20_000))
    lab.edit("align", {launch: lab.text(launch, "align") + filler})        # about 5 MB of C++
    doc = pipeline_payload(lab)
    body = next(f for f in doc["passes"][3]["files"] if f["path"] == launch)["after"]
    assert body["truncated"] and body["lines"] > body["shown_lines"]
    bundle = mimebundle(lab)
    assert sum(len(json.dumps(v)) for v in bundle.values()) < MAX_OUTPUT_CHARS
    assert "more lines not shown here" in bundle["text/html"]
    small = pipeline_payload(lab, max_total_chars=100_000)
    assert small["limits"]["truncated"] and len(json.dumps(small)) <= 100_000


@pytest.mark.heavy
def test_static_html_colours_a_dsl_line_and_its_cpp_lines_alike(lab):
    page = render.static_html(lab)
    load_line = next(i for i, l in enumerate(lab.dsl.splitlines(), 1) if "load(x[r, c])" in l)
    color = render.dsl_color(load_line)
    assert page.count(f"background:{color}") >= 2
    assert f'title="DSL line {load_line}: xu = load(x[r, c])"' in page
    assert "<script" not in page and "<style" not in page


def test_the_lexer_knows_ascendc_names():
    code = "extern \"C\" __global__ __aicore__ void k(GM_ADDR x) { TPipe pipe; DataCopyPad(a, b, p); int n; }"
    kinds = {v: t for t, v in AscendCLexer().get_tokens(code)}
    assert kinds["__global__"] is Keyword.Reserved and kinds["__aicore__"] is Keyword.Reserved
    assert kinds["GM_ADDR"] is Keyword.Reserved
    assert kinds["TPipe"] is Keyword.Type
    assert kinds["DataCopyPad"] is Name.Builtin
    assert kinds["n"] is Name
