"""Helpers for the DSL tests: meaning-preserving reformatting and synthetic inputs."""
from __future__ import annotations

import io
import random
import tokenize

import numpy as np

from ascendcraft_lab.dsl.ir import DType, Program

WORDY = (tokenize.NAME, tokenize.NUMBER, tokenize.STRING)
TIGHT = set("()[],:.")


def reformat(text: str, rnd: random.Random) -> str:
    """The same program with other indentation, spacing, line breaks inside brackets and comments."""
    unit = " " * rnd.choice([1, 2, 3, 4, 8])
    toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    lines: list[str] = []
    depth = 0          # indentation level
    brackets = 0
    cur: list[str] = []
    prev = None

    def flush():
        nonlocal cur, prev
        if cur:
            for _ in range(rnd.choice([0, 0, 0, 1])):
                lines.append(rnd.choice(["", unit * depth + "# a comment", "#", " " * rnd.randint(0, 9)]))
            line = unit * depth + "".join(cur)
            if rnd.random() < 0.3:
                line += " " * rnd.randint(0, 3) + "# " + rnd.choice(["why", "x = 1", "with copyin:", "é ü"])
            lines.append(line)
        cur = []
        prev = None

    for tok in toks:
        tt, s = tok.type, tok.string
        if tt == tokenize.INDENT:
            depth += 1
            continue
        if tt == tokenize.DEDENT:
            depth -= 1
            continue
        if tt in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        if tt == tokenize.NEWLINE:
            flush()
            continue
        if prev is not None:
            need = 1 if (prev.type in WORDY and tt in WORDY) or (prev.string not in TIGHT and s not in TIGHT) else 0
            gap = " " * max(need, rnd.choice([0, 0, 1, 1, 2]))
            if brackets and prev.string == "," and rnd.random() < 0.2:
                gap = "\n" + " " * rnd.randint(0, 12)
            cur.append(gap)
        cur.append(s)
        if s in "([":
            brackets += 1
        elif s in ")]":
            brackets -= 1
        prev = tok
    flush()
    return "\n".join(lines) + "\n"


def synthetic_inputs(program: Program, dim: int = 37, seed: int = 0):
    """Inputs for any program: every dim `dim`, int scalars 2, float scalars 0.5, random data.
    A rank-5 tensor (3-D pooling) gets a smaller `dim`, so that it stays about 2 M elements."""
    rng = np.random.default_rng(seed)
    rank = max((len(t.dims) for t in program.tensors()), default=1)
    dim = min(dim, round((1 << 21) ** (1 / rank)))
    inputs = {}
    scalars = {}
    for p in program.scalars:
        scalars[p.name] = 2 if p.dtype.is_int else (True if p.dtype is DType.bool else 0.5)
    inputs.update(scalars)
    for t in program.tensors():
        if t.role.value == "Out":
            continue
        shape = tuple(dim for _ in t.dims)
        dt = t.dtype.np if t.dtype is not DType.bf16 else np.float32
        if t.dtype is DType.bool:
            inputs[t.name] = rng.random(shape) > 0.5
        elif t.dtype.is_int:
            inputs[t.name] = rng.integers(-5, 5, shape).astype(dt)
        else:
            inputs[t.name] = rng.standard_normal(shape).astype(dt)
    return inputs, scalars
