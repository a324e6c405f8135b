"""Measure declarations, the registry and the measure-name parsers.

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("P(rel=2)@10")), str(parse_measure("ndcg_cut_10")), str(parse_measure("MAP"))
('P(rel=2)@10', 'nDCG@10', 'AP')
"""

from ranklens.measures.base import Measure, MeasureSpec, Param
from ranklens.measures.language import parse_measure, parse_measures
from ranklens.measures.registry import REGISTRY, get_spec

__all__ = [
    "REGISTRY",
    "Measure",
    "MeasureSpec",
    "Param",
    "get_spec",
    "parse_measure",
    "parse_measures",
]
