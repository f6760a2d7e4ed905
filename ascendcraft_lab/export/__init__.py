"""Exports of a lowered session to other harnesses' formats.

`mkb.py` owns the `ascendcraft export` command and MultiKernelBench's six-string AscendC
submission; `direct.py` its direct-launch JSON; `common.py` what both cut out of a session.
"""
