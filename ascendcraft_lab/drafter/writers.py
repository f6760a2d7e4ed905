"""The drafter's templates by name: the rule list (`choice.py`) picks one, its writer renders the DSL."""
from __future__ import annotations

from .blocks import RowBlocksWriter
from .broadcast import BroadcastWriter, FoldedBroadcastWriter
from .datadep import DatadepWriter
from .index import IndexWriter
from .planes import PlanesWriter
from .pool import PoolWriter
from .remap import InterleaveWriter, RemapWriter
from .resize import GridInputWriter, GridSampleWriter, ResizeWriter
from .sort import SortWriter
from .templates import ColsWriter, MapWriter, RowsWriter, WindowsWriter
from .totals import TOTAL_WRITERS
from .views import PermuteWriter, SplitWriter

WRITERS = {"map": MapWriter, "rows": RowsWriter, "windows": WindowsWriter, "row_blocks": RowBlocksWriter,
           "cols": ColsWriter, "planes": PlanesWriter, "bcast": BroadcastWriter, "bcast_fold": FoldedBroadcastWriter,
           "pool": PoolWriter,
           "index": IndexWriter, "resize": ResizeWriter, "gridsample": GridSampleWriter, "gridinput": GridInputWriter,
           "remap": RemapWriter, "interleave_last": InterleaveWriter,
           **TOTAL_WRITERS, "permute": PermuteWriter, "split": SplitWriter, "sort": SortWriter,
           "histc": DatadepWriter, "interleave": DatadepWriter, "nonzero": DatadepWriter}
