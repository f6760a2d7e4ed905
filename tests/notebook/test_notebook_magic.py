"""%%ascendcraft in a real IPython shell: the MIME bundle, the session folder, settings and user errors."""
from __future__ import annotations

import json

import pytest
from IPython.core.error import UsageError

from ascendcraft_lab.notebook import LabError, LabSession
from ascendcraft_lab.notebook.display import WIDGET_MIME
from ascendcraft_lab.notebook.payload import MIME_TYPE


def run(shell, line: str, body: str = ""):
    """Run one cell; return (result value, the exception it raised or None)."""
    result = shell.run_cell(f"%%ascendcraft {line}\n{body}" if body is not None else f"%ascendcraft {line}")
    return result.result, result.error_in_exec or result.error_before_exec


def format_all(shell, value) -> dict:
    data, _ = shell.display_formatter.format(value)
    return data


@pytest.mark.heavy
def test_the_cell_makes_a_session_folder_and_one_display_with_four_mime_types(shell, tmp_path, gelu_dsl, gelu_ref):
    lab, err = run(shell, f"gelu --ref {gelu_ref} --workdir {tmp_path}", gelu_dsl)
    assert err is None
    assert isinstance(lab, LabSession)
    assert (tmp_path / "gelu" / "ascendcraft.json").is_file()
    assert (tmp_path / "gelu" / "ascendc" / "kernel" / "gelu_kernel.cpp").is_file()
    data = format_all(shell, lab)
    assert {MIME_TYPE, WIDGET_MIME, "text/html", "text/plain"} <= set(data)
    payload = data[MIME_TYPE]
    assert [p["name"] for p in payload["passes"]] == ["host", "init", "compute", "align"]
    assert {p["status"] for p in payload["passes"]} == {"pending"}
    assert "pass 2 init" in data["text/plain"] and "TPipe" in data["text/html"]
    assert "model_id" in data[WIDGET_MIME]
    assert sum(len(json.dumps(v)) for v in data.values()) < 3_000_000


@pytest.mark.heavy
def test_rerunning_the_cell_with_resume_restores_the_reviewed_state(shell, tmp_path, gelu_dsl, gelu_ref):
    lab, _ = run(shell, f"gelu --ref {gelu_ref} --workdir {tmp_path}", gelu_dsl)
    lab.accept("host").accept("init")
    again, err = run(shell, f"gelu --ref {gelu_ref} --workdir {tmp_path} --resume", gelu_dsl)
    assert err is None
    assert [s.status for s in again.steps] == ["accepted", "accepted", "pending", "pending"]
    resumed, err = run(shell, f"gelu --workdir {tmp_path}", None)      # the line magic re-opens the folder
    assert err is None and [s.status for s in resumed.steps] == ["accepted", "accepted", "pending", "pending"]


@pytest.mark.heavy
def test_check_accepts_every_step_and_shows_the_verdict(shell, tmp_path, gelu_dsl, gelu_ref):
    lab, err = run(shell, f"gelu --ref {gelu_ref} --workdir {tmp_path} --check", gelu_dsl)
    assert err is None, err
    assert lab.result is not None and lab.result.correct, lab.result
    payload = format_all(shell, lab)[MIME_TYPE]
    assert payload["verdict"]["correct"] is True and payload["verdict"]["current"] is True
    assert "correct: `gelu` matches the reference on the emulator" in format_all(shell, lab)["text/plain"]


def test_until_stops_after_a_pass(shell, tmp_path, gelu_dsl):
    lab, err = run(shell, f"gelu --until init --workdir {tmp_path}", gelu_dsl)
    assert err is None and [s.name for s in lab.steps] == ["host", "init"] and lab.final is None
    payload = format_all(shell, lab)[MIME_TYPE]
    assert [p["status"] for p in payload["passes"]][2:] == ["not-run", "not-run"]


@pytest.mark.parametrize("line, body, message", [
    ("gelu --bogus", "x = 1", "unrecognized arguments: --bogus"),
    ("gelu --engine llm", "DSL", "the LLM engine has no endpoint"),
    ("gelu --engine fancy", "x = 1", "unknown engine `fancy`"),
    ("gelu --until nowhere", "x = 1", "unknown pass `nowhere`"),
    ("gelu --soc Ascend999", "x = 1", "unknown SoC 'Ascend999'"),
    ("gelu --ref missing_ref.py", "DSL", "the reference missing_ref.py does not exist"),
    ("gelu --draft llm", "DSL", "but this cell has a draft"),
    ("gelu --draft drafter", None, "--draft drafts from the reference: give --ref"),
    ("gelu", None, "holds no draft yet"),
    ("../escape", "DSL", "must be a plain folder name"),
])
def test_bad_input_is_one_usage_error(shell, tmp_path, gelu_dsl, gelu_ref, line, body, message, monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ASCENDCRAFT_CONFIG", "ASCENDCRAFT_LLM_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))          # no user config file either
    line = line.replace("REF", str(gelu_ref)) + f" --workdir {tmp_path}"
    _, err = run(shell, line, gelu_dsl if body == "DSL" else body)
    assert isinstance(err, UsageError), err
    assert message in str(err)
    assert "Traceback" not in str(err)


def test_a_dsl_error_is_a_usage_error_pointing_at_the_line(shell, tmp_path, gelu_dsl, gelu_ref):
    broken = gelu_dsl.replace("store(y[r, c], yu)", "store(y[r, c], yu")
    _, err = run(shell, f"gelu --ref {gelu_ref} --workdir {tmp_path}", broken)
    assert isinstance(err, UsageError)
    assert "syntax error" in str(err) and "--> kernel.dsl.py:21:" in str(err)


def test_a_dsl_error_in_a_cell_run_again_is_shown_inside_the_view_with_the_review_kept(shell, tmp_path, gelu_dsl,
                                                                                      monkeypatch):
    """Issue 40, item 6: the error no longer replaces the view; the session is shown as it was
    (its review kept), the diagnostic inside the view at its line, in every renderer."""
    from ascendcraft_lab.notebook import magic
    from ascendcraft_lab.notebook.render import static_html
    lab, err = run(shell, f"gelu --engine rule --workdir {tmp_path}", gelu_dsl)
    assert err is None
    lab.accept("host")
    shown = []
    monkeypatch.setattr(magic, "display", shown.append)
    _, err = run(shell, f"gelu --engine rule --workdir {tmp_path}", gelu_dsl.replace("store(y[r, c], yu)",
                                                                                     "store(y[r, c], yu"))
    assert isinstance(err, UsageError)
    assert "--> kernel.dsl.py:21:" in str(err) and "syntax error" in str(err)    # as a first run prints it
    (kept,) = shown
    assert isinstance(kept, LabSession) and kept.step("host").status == "accepted"     # the review is kept
    assert kept.dsl == gelu_dsl if gelu_dsl.endswith("\n") else gelu_dsl + "\n"      # the session as it was
    payload = format_all(shell, kept)[MIME_TYPE]
    assert payload["draft_error"]["line"] == 21 and "--> kernel.dsl.py:21:" in payload["draft_error"]["text"]
    assert "syntax error" in payload["draft_error"]["text"]
    assert payload["status"]["state"] == "draft-error" and "error at line 21" in payload["status"]["text"]
    assert "--&gt; kernel.dsl.py:21:" in static_html(kept)
    assert not list((tmp_path / "gelu" / "set-aside").glob("*/review.json"))


def test_short_errors_off_restores_the_exception(shell, magics, tmp_path, gelu_dsl):
    shell.run_line_magic("ascendcraft_config", "short_errors=False")
    assert magics.short_errors is False
    _, err = run(shell, f"gelu --engine llm --workdir {tmp_path}", gelu_dsl)
    assert isinstance(err, LabError) and not isinstance(err, UsageError)


def test_config_lists_sets_and_validates_settings(shell, magics, tmp_path, gelu_dsl):
    listing = repr(shell.run_line_magic("ascendcraft_config", ""))
    for name in ("workdir", "soc", "engine", "draft_engine", "llm_model", "llm_base_url", "short_errors"):
        assert name in listing
    shell.run_line_magic("ascendcraft_config", f"workdir={tmp_path} soc=Ascend910B3 llm_model='my-model'")
    assert (magics.workdir, magics.soc, magics.llm_model) == (str(tmp_path), "Ascend910B3", "my-model")
    lab, err = run(shell, "g310", gelu_dsl)
    assert err is None and lab.soc == "Ascend910B3" and (tmp_path / "g310").is_dir()
    with pytest.raises(UsageError, match="unknown SoC"):
        shell.run_line_magic("ascendcraft_config", "soc=Ascend999")
    with pytest.raises(UsageError, match="unknown setting"):
        shell.run_line_magic("ascendcraft_config", "colour=red")
    shell.run_line_magic("config", "AscendCraftMagics.engine = 'llm'")
    assert magics.engine == "llm"


def test_unload_removes_the_magics(shell):
    shell.run_line_magic("unload_ext", "ascendcraft_lab")
    try:
        assert shell.find_cell_magic("ascendcraft") is None
    finally:
        shell.run_line_magic("load_ext", "ascendcraft_lab")
    assert shell.find_cell_magic("ascendcraft") is not None


def test_a_lab_error_from_a_session_call_is_one_message(shell, magics, capsys):
    result = shell.run_cell("from ascendcraft_lab.notebook import LabSession\nLabSession.resume('/no/such/session')")
    assert isinstance(result.error_in_exec, LabError)
    out = capsys.readouterr()
    shown = out.out + out.err
    assert "LabError: error: /no/such/session is not a session folder" in shown
    assert "Traceback" not in shown
    magics.short_errors = False
    shell.run_cell("LabSession.resume('/no/such/session')")
    out = capsys.readouterr()
    assert "Traceback" in out.out + out.err


@pytest.mark.heavy
def test_the_line_form_with_a_reference_drafts_the_kernel_offline(shell, tmp_path, gelu_ref):
    line = f"drafted --ref {gelu_ref} --engine rule --draft drafter --workdir {tmp_path} --check"
    value, err = run(shell, line, None)
    assert err is None, err
    assert (tmp_path / "drafted" / "kernel.dsl.py").read_text().lstrip().startswith(("\"\"\"", "@host", "#"))
    assert value.final is not None and value.result is not None and value.result.correct


def test_a_cell_run_again_starts_from_its_draft_and_sets_the_review_aside(shell, tmp_path, gelu_dsl, capsys):
    lab, err = run(shell, f"gelu --engine rule --workdir {tmp_path}", gelu_dsl)
    assert err is None and "afresh" not in capsys.readouterr().out
    lab.accept("host")
    edited = lab.text("kernel/gelu_kernel.cpp", "init").replace("BUFFER_NUM = 2;", "BUFFER_NUM = 1;")
    lab.edit("init", edited)
    again, err = run(shell, f"gelu --engine rule --workdir {tmp_path}", gelu_dsl)
    out = capsys.readouterr().out
    assert err is None and [s.status for s in again.steps] == ["pending"] * 4
    assert ("started `gelu` afresh from this draft: your edit of pass 2 (init) and the acceptance of pass 1 (host) "
            f"set aside in {tmp_path / 'gelu' / 'set-aside'}") in out
    again.restore_set_aside()
    assert [s.status for s in again.steps][:2] == ["accepted", "edited"]
    assert "restored your edit of pass 2 (init)" in capsys.readouterr().out
    again.edit("init", edited)                   # a notebook's own edit cell, run again: a note, not an error
    assert "pass 2 (init) already holds this text: nothing to change" in capsys.readouterr().out


def test_resume_keeps_the_review_and_the_line_magic_reopens_the_folder_as_it_is(shell, tmp_path, gelu_dsl, capsys):
    lab, _ = run(shell, f"gelu --engine rule --workdir {tmp_path}", gelu_dsl)
    lab.accept("host")
    kept, err = run(shell, f"gelu --engine rule --workdir {tmp_path} --resume", gelu_dsl)
    assert err is None and kept.step("host").status == "accepted"
    assert "resumed `gelu`" in capsys.readouterr().out
    reopened, err = run(shell, f"gelu --engine rule --workdir {tmp_path}", None)
    assert err is None and reopened.step("host").status == "accepted"
