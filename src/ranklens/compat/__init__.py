"""Drop-in replacements for other evaluation libraries: switch in one line.

Each submodule mimics one peer library's public API on top of ranklens, so that migrating
is a change of import:

- :mod:`ranklens.compat.pytrec_eval`: ``import ranklens.compat.pytrec_eval as pytrec_eval``
- :mod:`ranklens.compat.ir_measures`: importing it registers a ``ranklens`` provider that
  ir_measures tries first
- :mod:`ranklens.compat.ranx`: ``from ranklens.compat.ranx import Qrels, Run, evaluate``
- :mod:`ranklens.compat.torchmetrics`: ``from ranklens.compat.torchmetrics import
  RetrievalMAP``
- :mod:`ranklens.compat.llama_index`: ``from ranklens.compat.llama_index import HitRate,
  MRR, NDCG``

This package imports nothing by itself; each submodule imports only what it needs (the
ir_measures provider imports ir_measures; the torchmetrics classes, built on first use,
subclass ``torchmetrics.Metric`` when torchmetrics is installed; the others do not import
their peer).
"""
