"""AscendCraft Lab: PyTorch operators -> kernel DSL -> four lowering passes -> AscendC.

The package follows the pipeline (ARCHITECTURE.md): `dsl` (parse, verify, interpret),
`passes` (host, init, compute, align), `engines` (rule, llm), `drafter`, `backends`
(emulator, cann), `notebook`, `bench`, and the `cli`. Imports flow with the data.
"""
__version__ = "0.1.0"


def load_ipython_extension(ip):
    """`%load_ext ascendcraft_lab`: registers `%%ascendcraft` and `%ascendcraft_config` (ascendcraft_lab.notebook)."""
    from .notebook.magic import load_ipython_extension as load
    load(ip)


def _jupyter_labextension_paths():
    """Where JupyterLab finds the pipeline view (`jupyter labextension develop` and friends)."""
    return [{"src": "labextension", "dest": "ascendcraft-lab"}]


def unload_ipython_extension(ip):
    from .notebook.magic import unload_ipython_extension as unload
    unload(ip)
