"""`python -m ascendcraft_lab.cli ...`: the `ascendcraft` command, for a checkout that is not installed."""
import sys

try:
    from ..procs import handle_termination
    handle_termination()      # before anything heavier loads: `kill PID` is one line and exit 143 from here on
    from . import main
except KeyboardInterrupt as exc:          # Ctrl-C (or SIGTERM: Terminated) while the first modules load
    signum = getattr(exc, "signum", None)
    print(f"stopped ({exc})" if signum else "interrupted", file=sys.stderr)
    sys.exit(128 + signum if signum else 130)

sys.exit(main())
