"""An emulated ResNet-style 3x3 convolution versus torch.nn.functional.conv2d on the same CPU (not a test).

    .venv/bin/python bench/conv_speed.py [--repeat 3] [--timeout 1800] [--batch 8] [--channels 64] [--size 56]

The case is the expert example `examples/convolution/conv2d.py` (nn.Conv2d 3x3, padding 1, bias) at
N = --batch, C = K = --channels, H = W = --size (default: ResNet's 56 x 56 stage, N = 8, C = K = 64).
It goes the way `bench/emu_speed.py` takes every case (traced, drafted by the conv template, lowered by
the four passes, compiled with g++ against the emulator, run on every core, compared with PyTorch) and
prints the same table: the emulated kernel time against PyTorch eager (its conv2d, with as many threads
as the emulator uses) as a ratio, wall and CPU seconds.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import emu_speed  # noqa: E402

CASE = "resnet-3x3"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--channels", type=int, default=64)
    ap.add_argument("--size", type=int, default=56)
    ap.add_argument("--soc", default="Ascend910B2")
    o = ap.parse_args()
    overrides = {"batch_size": o.batch, "in_channels": o.channels, "out_channels": o.channels,
                 "height": o.size, "width": o.size}
    what = f"conv2d 3x3 pad 1 + bias, N={o.batch} C=K={o.channels} {o.size}x{o.size} fp32"
    emu_speed.CASES = {CASE: ("../examples/convolution/conv2d.py", overrides, what)}
    sys.argv = [sys.argv[0], "--case", CASE, "--repeat", str(o.repeat), "--timeout", str(o.timeout), "--soc", o.soc]
    print(f"(threads: {os.cpu_count()})")
    return emu_speed.main()


if __name__ == "__main__":
    sys.exit(main())
