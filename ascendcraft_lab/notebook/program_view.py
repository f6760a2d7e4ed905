"""The notebook's view of a program of kernels (UI only): its kernels, each with its passes.

`%%ascendcraft NAME` with a cell that holds a `@program` lowers it into the session folder NAME
(session/program.py) and shows this view: one row per kernel with each pass's `+N -M` and state
and the folder of its stage list, then the program's launches in order. The per-pass review
(accept, edit, undo) is the one-kernel view's; a program's kernels are reviewed in their folders.
"""
from __future__ import annotations

import html

from ..dsl.ir import launches
from ..dsl.program import arg_text


class ProgramView:
    def __init__(self, session, verdict: str = ""):
        self.session = session
        self.verdict = verdict

    def rows(self) -> list[tuple[str, str, list[tuple[str, str, str]]]]:
        """(kernel, its stage folder, [(pass, +N -M, state)]) per kernel, in file order."""
        kernels = self.session.manifest["kernels"]
        return [(k, f"kernels/{k}/stages/", [(s["pass"], s["stat"], s["status"]) for s in steps])
                for k, steps in kernels.items()]

    def launch_lines(self) -> list[str]:
        out = []
        for st, loops in launches(self.session.program.main.body):
            head = "".join(f"for {f.var}: " for f in loops)
            out.append(f"line {st.span.line}: {head}{st.kernel}({', '.join(arg_text(a) for a in st.args)})")
        return out

    def __repr__(self) -> str:
        lines = [self.session.summary(), "launches:"] + [f"  {t}" for t in self.launch_lines()]
        return "\n".join(lines + ([self.verdict] if self.verdict else []))

    def _repr_html_(self) -> str:
        p = self.session.program
        head = (f"<p><b>program <code>{html.escape(p.name)}</code></b>: {len(p.kernels)} kernels, "
                f"folder <code>{html.escape(str(self.session.path))}</code></p>")
        passes = [name for name, _, _ in self.rows()[0][2]] if self.rows() else []
        table = ["<table><tr><th>kernel</th>" + "".join(f"<th>{html.escape(n)}</th>" for n in passes)
                 + "<th>stages</th></tr>"]
        for kernel, folder, steps in self.rows():
            cells = "".join(f"<td>{html.escape(stat)} <small>{html.escape(state)}</small></td>"
                            for _, stat, state in steps)
            table.append(f"<tr><td><code>{html.escape(kernel)}</code></td>{cells}"
                         f"<td><code>{html.escape(folder)}</code></td></tr>")
        table.append("</table>")
        order = "".join(f"<li><code>{html.escape(t)}</code></li>" for t in self.launch_lines())
        verdict = f"<p>{html.escape(self.verdict)}</p>" if self.verdict else ""
        return head + "".join(table) + f"<p>launches, in order:</p><ol>{order}</ol>" + verdict
