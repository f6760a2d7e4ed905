"""`ascendcraft demo`: the main job, offline, on built-in defaults.

Runs the furthest stage of the pipeline that exists, and says what it ran.
"""
from __future__ import annotations

from . import doctor


def main(argv: list[str] | None = None) -> int:
    print("== ascendcraft demo: environment")
    checks = doctor.run_checks()
    print(doctor.render(checks))
    if not all(c.ok for c in checks if c.required):
        return 1
    print("\nran: environment check only (the DSL, passes and emulator stages are not built yet)")
    return 0
