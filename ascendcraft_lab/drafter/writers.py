"""The drafter's templates by name: the layout (`layout.py`) picks one, its writer renders the DSL."""
from __future__ import annotations

from .broadcast import BroadcastWriter, FoldedBroadcastWriter
from .datadep import DatadepWriter
from .index import IndexWriter
from .planes import PlanesWriter
from .pool import PoolWriter
from .resize import GridSampleWriter, ResizeWriter
from .templates import ColsWriter, MapWriter, RowsWriter, WindowsWriter
from .totals import TOTAL_WRITERS

WRITERS = {"map": MapWriter, "rows": RowsWriter, "windows": WindowsWriter, "cols": ColsWriter,
           "planes": PlanesWriter, "bcast": BroadcastWriter, "bcast_fold": FoldedBroadcastWriter, "pool": PoolWriter,
           "index": IndexWriter, "resize": ResizeWriter, "gridsample": GridSampleWriter, **TOTAL_WRITERS,
           "histc": DatadepWriter, "interleave": DatadepWriter, "nonzero": DatadepWriter}
