"""ranx's data structures: :class:`Qrels`, :class:`Run`, :class:`Report`,
:class:`OptimizationReport` and :class:`FrozensetDict` (``ranx.data_structures``)."""

from ranklens.compat.ranx.data_structures.frozenset_dict import FrozensetDict
from ranklens.compat.ranx.data_structures.optimization_report import OptimizationReport
from ranklens.compat.ranx.data_structures.qrels import Qrels
from ranklens.compat.ranx.data_structures.report import Report
from ranklens.compat.ranx.data_structures.run import Run

__all__ = ["FrozensetDict", "OptimizationReport", "Qrels", "Report", "Run"]
