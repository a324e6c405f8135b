"""The example data bundled with ranklens (public path of
:func:`ranklens.data.examples.example_paths`).

>>> from ranklens.examples import example_paths
>>> qrels, runs = example_paths()
>>> qrels.name
'dl19-passage.qrels.gz'
"""

from ranklens.data.examples import example_paths

__all__ = ["example_paths"]
