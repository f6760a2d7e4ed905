"""`ascendcraft lab` (notebook/lab_cli.py): which folder it opens and how it finds the extension."""
from __future__ import annotations

from pathlib import Path

from ascendcraft_lab.notebook import lab_cli


def test_the_notebooks_folder_is_given_or_found(tmp_path):
    (tmp_path / "notebooks").mkdir()
    assert lab_cli.notebooks_folder(cwd=tmp_path) == (tmp_path / "notebooks").resolve()
    assert lab_cli.notebooks_folder(str(tmp_path)) == tmp_path.resolve()
    # a source checkout: the repository's notebooks/ beside the package
    assert lab_cli.notebooks_folder(cwd=tmp_path / "elsewhere") == (lab_cli.PACKAGE.parent / "notebooks").resolve()


def test_jupyter_lab_options_pass_through(tmp_path):
    argv = lab_cli.lab_argv(tmp_path, ["--port=9999", "--no-browser"])
    assert argv[0] == f"--ServerApp.root_dir={tmp_path}"
    assert argv[-2:] == ["--port=9999", "--no-browser"]


def test_an_uninstalled_build_is_put_on_the_extension_path_under_its_name(tmp_path, monkeypatch):
    built = tmp_path / "pkg" / "labextension"
    (built / "static").mkdir(parents=True)
    (built / "package.json").write_text('{"name": "ascendcraft-lab"}')
    (built / "static" / "remoteEntry.0123.js").write_text("// entry")
    monkeypatch.setenv("ASCENDCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(lab_cli, "BUILT", built)
    monkeypatch.setattr(lab_cli, "PACKAGE", built.parent)
    monkeypatch.setattr(lab_cli, "extension_installed", lambda: False)
    extra = [a.split("=", 1)[1] for a in lab_cli.lab_argv(tmp_path, []) if "extra_labextensions_path" in a]
    # JupyterLab serves the files from <folder>/<extension name>/: the build must be there
    assert len(extra) == 1 and (Path(extra[0]) / "ascendcraft-lab" / "static" / "remoteEntry.0123.js").is_file()
    assert lab_cli.checkout_labextensions() == Path(extra[0])          # made once, then the same
    monkeypatch.setattr(lab_cli, "extension_installed", lambda: True)
    assert not any("extra_labextensions_path" in a for a in lab_cli.lab_argv(tmp_path, []))


def test_a_missing_folder_is_a_one_line_error(tmp_path, capsys):
    assert lab_cli.main(["--notebooks", str(tmp_path / "nope")]) == 2
    assert "is not a folder" in capsys.readouterr().err
