"""`python -m ascendcraft_lab.cli ...`: the `ascendcraft` command, for a checkout that is not installed."""
import sys

from . import main

sys.exit(main())
