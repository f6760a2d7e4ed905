"""AscendCraft Lab: PyTorch operators -> kernel DSL -> four lowering passes -> AscendC.

The package follows the pipeline (ARCHITECTURE.md): `dsl` (parse, verify, interpret),
`passes` (host, init, compute, align), `engines` (rule, llm), `drafter`, `backends`
(emulator, cann), `notebook`, `bench`, and the `cli`. Imports flow with the data.
"""
__version__ = "0.1.0"
