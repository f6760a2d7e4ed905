"""`%%ascendcraft` and `%ascendcraft_config`: a thin IPython layer over `LabSession`.

    %load_ext ascendcraft_lab
    %%ascendcraft gelu --ref refs/gelu.py [--soc S] [--engine rule|llm] [--draft drafter|llm] [--until PASS] [--check]
                  [--adopt-edits] [--resume]
    <the DSL draft>

The magic parses its arguments (IPython's `magic_arguments`), opens the session folder
`<workdir>/<NAME>` through `LabSession.open`, optionally accepts every step and compiles
(`--check`), and returns the session: its display is the pipeline view. Settings are traitlets
on the magics class (`%ascendcraft_config`, or `%config AscendCraftMagics.soc = ...`). A user
error is one `UsageError` paragraph; `short_errors=False` restores the full traceback.
"""
from __future__ import annotations

import ast
import os
import re
import shlex
import time
from pathlib import Path

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display
from traitlets import Bool, Enum, TraitError, Unicode, default, validate

from ..config import default_workdir
from ..dsl.errors import DslError
from ..dsl.program import is_program_text
from ..passes.pipeline import PASS_NAMES
from ..session import DraftFailed, SessionError, draft, parse_override
from ..soc import DEFAULT_SOC, SOCS
from .comm import register_comm_target
from .lab import LabError, LabSession
from .viewmodel import DraftError

NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@magics_class
class AscendCraftMagics(Magics):
    """The notebook front of AscendCraft Lab: `%%ascendcraft NAME [options]` with the DSL draft as the body."""

    workdir = Unicode(help="folder holding one session folder per kernel (default $ASCENDCRAFT_WORKDIR "
                           "or ./ascendcraft-sessions)").tag(config=True)
    soc = Unicode(DEFAULT_SOC, help="default SoC when a cell gives no --soc").tag(config=True)
    engine = Enum(["rule", "llm"], default_value="rule", help="default lowering engine").tag(config=True)
    draft_engine = Enum(["drafter", "llm"], default_value="drafter",
                        help="default engine that drafts the DSL from --ref when the cell body is empty"
                        ).tag(config=True)
    llm_model = Unicode("", help="LLM model for the llm engines (empty: $ASCENDCRAFT_MODEL or the config file)"
                        ).tag(config=True)
    llm_base_url = Unicode("", help="OpenAI-compatible endpoint (empty: $OPENAI_BASE_URL or the config file)"
                           ).tag(config=True)
    short_errors = Bool(True, help="show user errors as one paragraph; False restores Python tracebacks "
                                   "(for debugging the lab itself)").tag(config=True)

    @default("workdir")
    def _default_workdir(self):
        return str(default_workdir())

    @validate("soc")
    def _valid_soc(self, proposal):
        if proposal["value"] not in SOCS:
            raise TraitError(f"unknown SoC {proposal['value']!r}; known: {', '.join(SOCS)}")
        return proposal["value"]

    # ------------------------------------------------------------------ %%ascendcraft
    @magic_arguments()
    @argument("name", help="the session name: the folder <workdir>/NAME holds the draft, every stage and the project")
    @argument("--ref", default=None, help="the PyTorch reference (KernelBench format): copied into the session, "
                                          "its shapes explain the tiling and it is what --check verifies against")
    @argument("--soc", default=None, help="the SoC (default: the %%ascendcraft_config soc setting)")
    @argument("--engine", default=None, help="lowering engine: rule (default) or llm")
    @argument("--draft", default=None, help="drafting engine when the cell body is empty: drafter or llm")
    @argument("--until", default=None, help=f"stop after this pass ({', '.join(PASS_NAMES)})")
    @argument("--check", action="store_true", help="accept every step and compile & verify on the emulator "
                                                   "(as `ascendcraft lower` + `ascendcraft check` do)")
    @argument("--workdir", default=None, help="folder for the session (default: the workdir setting)")
    @argument("--override", action="append", default=[], metavar="NAME=VALUE",
              help="set a module-level constant of the reference, e.g. --override dim=1003 (a tail shape)")
    @argument("--adopt-edits", action="store_true",
              help="keep hand edits of the folder's ascendc/ and stages/ files as edits of their steps")
    @argument("--resume", action="store_true",
              help="keep the session's earlier edits and acceptances, merged with this cell's draft (without it, "
                   "a cell run again starts from its draft and sets them aside: lab.restore_set_aside())")
    @line_cell_magic
    def ascendcraft(self, line: str, cell: str | None = None):
        """Lower the DSL draft in the cell through the four passes; show every step for review.

        As a line magic (`%ascendcraft NAME`), or with an empty body, it re-opens the session
        as its folder holds it. A cell's output follows from its draft, as Jupyter users expect
        of "Restart Kernel and Run All": run again, the cell starts from its draft, and the
        edits and acceptances made since are set aside in the session's set-aside/ folder (the
        output says so; `lab.restore_set_aside()` brings them back). `--resume` keeps them
        instead, merged with the cell's draft.
        """
        try:
            return self._run(line, cell)
        except LabError as exc:
            if self.short_errors:
                raise UsageError(str(exc)) from None
            raise

    def _run(self, line: str, cell: str | None):
        args = parse_argstring(self.ascendcraft, line)
        name = args.name.strip("'\"")
        if not NAME_RE.match(name):
            raise LabError(f"error: session name {name!r} must be a plain folder name (letters, digits, _ . -)")
        engine = args.engine or self.engine
        if engine not in ("rule", "llm"):
            raise LabError(f"error: unknown engine `{engine}`\n  = help: use --engine rule (or llm, when available)")
        if args.draft is not None and args.draft not in ("drafter", "llm"):
            raise LabError(f"error: unknown drafting engine `{args.draft}`\n"
                           "  = help: use --draft drafter or --draft llm")
        if args.until is not None and args.until not in PASS_NAMES:
            raise LabError(f"error: unknown pass `{args.until}` for --until\n"
                           f"  = help: passes are {', '.join(PASS_NAMES)}")
        try:
            overrides = dict(parse_override(item) for item in args.override)
        except ValueError as exc:
            raise LabError(f"error: --override {exc}") from None
        folder = os.path.join(args.workdir or self.workdir, name)
        body = (cell or "").strip("\n")
        if not body.strip():
            if args.ref and (args.draft or not os.path.isfile(os.path.join(folder, "kernel.dsl.py"))):
                body = self._draft(args.ref, args.draft or self.draft_engine, args.soc or self.soc, overrides)
            elif args.draft:
                raise LabError("error: --draft drafts from the reference: give --ref REF.py")
            elif not os.path.isfile(os.path.join(folder, "kernel.dsl.py")):
                raise LabError(f"error: the cell is empty and {folder} holds no draft yet\n"
                               f"  = help: write the DSL draft in the cell body below `%%ascendcraft {name}`, "
                               f"or draft one from a reference: `%ascendcraft {name} --ref REF.py`")
            else:
                body = None                    # re-open the session as the folder holds it
        elif args.draft:
            raise LabError("error: --draft drafts a DSL kernel into an empty cell, but this cell has a draft\n"
                           "  = help: leave out --draft (the cell body is your draft), or empty the cell")
        if body is not None and is_program_text(body):
            return self._program(folder, body, args)
        try:
            lab = LabSession.open(folder, body, reference=args.ref,
                                  soc=args.soc or (None if body is None else self.soc),
                                  engine=engine, until=args.until, overrides=overrides or None,
                                  adopt_edits=args.adopt_edits, fresh=body is not None and not args.resume)
        except LabError as exc:
            kept = _kept_view(folder, body, exc)
            if kept is None:
                raise
            display(kept)        # the review stays in view, the error inside it at its line
            raise                # and under it the same error a first run prints (a re-run prints alike)
        if lab.notice:
            print(lab.notice)
        if args.check:
            if lab.final is None:
                raise LabError("error: --check needs every pass: leave out --until")
            lab.accept_all()
            self._compile(lab)
        return lab

    def _program(self, folder: str, body: str, args):
        """A cell holding a @program: every kernel lowered into the folder, the program's view."""
        from ..session.program import check_program, lower_program
        from .program_view import ProgramView
        try:
            session = lower_program(body + "\n", "kernel.dsl.py", Path(folder), reference=args.ref,
                                    soc=args.soc or self.soc)
            verdict = check_program(Path(folder), args.ref)[0].message if args.check else ""
        except DslError as exc:
            raise LabError(exc.render()) from None
        except SessionError as exc:
            raise LabError(str(exc)) from None
        return ProgramView(session, verdict)

    def _compile(self, lab: LabSession) -> None:
        """Compile & verify with a progress line that ends as the run's timing."""
        handle = display({"text/plain": "compiling on the emulator…"}, raw=True, display_id=True)

        def say(text: str) -> None:
            if handle is not None:
                handle.update({"text/plain": text}, raw=True)

        t0 = time.perf_counter()
        try:
            lab.compile_and_verify(progress=say)
        finally:
            say(f"compile & verify took {time.perf_counter() - t0:.1f} s")

    def _draft(self, ref: str, how: str, soc: str | None, overrides: dict) -> str:
        """A DSL draft from the reference: the offline drafter, or the LLM seeded with it."""
        if not os.path.isfile(ref):
            raise LabError(f"error: the reference {ref} does not exist")
        settings = {k: v for k, v in (("model", self.llm_model), ("base_url", self.llm_base_url)) if v}
        try:
            return draft(ref, how=how, soc=soc, overrides=overrides or None, client_settings=settings).text
        except DraftFailed as exc:
            if exc.unavailable:
                raise LabError(f"error: {exc}\n  = help: LLM settings: {self._llm_settings()}") from None
            raise LabError(f"error: {exc}\n  = help: write the DSL draft in the cell body yourself") from None

    def _llm_settings(self) -> str:
        model = self.llm_model or os.environ.get("ASCENDCRAFT_MODEL") or "the default model"
        url = self.llm_base_url or os.environ.get("OPENAI_BASE_URL") or "the default endpoint"
        return f"model {model} at {url}"

    # ------------------------------------------------------------------ %ascendcraft_config
    @line_magic
    def ascendcraft_config(self, line: str):
        """`%ascendcraft_config` lists the settings; `%ascendcraft_config soc=Ascend310P short_errors=False`
        sets them."""
        line = line.strip()
        if not line:
            return ConfigListing(self)
        for item in _split_assignments(line):
            if "=" not in item:
                raise UsageError(f"{item!r} is not NAME=VALUE; settings: {', '.join(self._settings())}")
            key, value = (s.strip() for s in item.split("=", 1))
            if key not in self._settings():
                raise UsageError(f"unknown setting {key!r}; settings: {', '.join(self._settings())}")
            try:
                parsed = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                parsed = value
            if isinstance(self.traits()[key], Unicode) and not isinstance(parsed, str):
                parsed = value
            try:
                setattr(self, key, parsed)
            except TraitError as exc:
                raise UsageError(f"{key}: {exc}") from None
        return ConfigListing(self)

    def _settings(self) -> list[str]:
        return [n for n, t in self.traits(config=True).items()]


def _kept_view(folder: str, body: str | None, exc: LabError) -> LabSession | None:
    """When the cell's draft does not lower (a DSL error, at a line) and the folder holds a session:
    that session as the folder holds it, carrying the error (its view shows both); else None."""
    cause = exc.__cause__
    span = getattr(cause, "span", None)
    if body is None or not isinstance(cause, (DslError, ValueError)) or span is None or span.line <= 0:
        return None
    if not os.path.isfile(os.path.join(folder, "kernel.dsl.py")):
        return None
    try:
        lab = LabSession.open(folder)
    except LabError:
        return None
    lab.notice = None
    lab.draft_error = DraftError(str(exc), span.line)
    return lab


class ConfigListing:
    """The settings, their values and help (what `%ascendcraft_config` shows)."""

    def __init__(self, magics: AscendCraftMagics):
        self.rows = [(n, getattr(magics, n), t.help) for n, t in sorted(magics.traits(config=True).items())]

    def __repr__(self) -> str:
        width = max(len(n) for n, _, _ in self.rows)
        return "\n".join(f"{n:<{width}} = {v!r:<24} {h}" for n, v, h in self.rows)

    def _repr_pretty_(self, p, cycle):
        p.text(repr(self))


def _split_assignments(line: str) -> list[str]:
    """`a=1 b='x y'` -> ["a=1", "b='x y'"] (shell-like, quotes kept for literal_eval)."""
    lexer = shlex.shlex(line, posix=False)
    lexer.whitespace_split = True
    return list(lexer)


def load_ipython_extension(ip) -> None:
    magics = AscendCraftMagics(ip)
    ip.register_magics(magics)
    if magics not in ip.configurables:
        ip.configurables.append(magics)
    register_comm_target(ip)          # the pipeline view's comm (the extension also registers it itself)

    def show_lab_error(shell, etype, value, tb, tb_offset=None):
        # A LabError raised by a LabSession call in a cell is the user's to fix: one message,
        # no Python frames — unless short_errors is off.
        # (IPython ignores the handler's return value: it shows the error itself.)
        if magics.short_errors:
            shell._showtraceback(etype, value, [f"LabError: {value}"])
        else:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)

    ip.set_custom_exc((LabError,), show_lab_error)


def unload_ipython_extension(ip) -> None:
    for kind in ("cell", "line"):
        for name in ("ascendcraft", "ascendcraft_config"):
            ip.magics_manager.magics[kind].pop(name, None)
    ip.configurables[:] = [c for c in ip.configurables if not isinstance(c, AscendCraftMagics)]
    if ip.custom_exceptions == (LabError,):
        ip.set_custom_exc((), None)
