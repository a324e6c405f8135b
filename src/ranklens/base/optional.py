"""Lazy imports of optional dependencies, with an install hint when one is missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from ranklens.base.errors import MissingDependencyError

_EXTRA_OF = {
    "pandas": "frames",
    "polars": "frames",
    "pyarrow": "frames",
    "matplotlib": "plot",
    "dask": "dask",
    "distributed": "dask",
    "pyspark": "spark",
    "ir_datasets": "irds",
    "nltk": "rag",
    "mlflow": "mlflow",
    "lz4": "ranx",
    "cbor2": "ranx",
    "sentence_transformers": "sentence-transformers",
    "llama_index": "llama-index",
}


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        extra = _EXTRA_OF.get(module.split(".")[0])
        hint = f"pip install 'ranklens[{extra}]'" if extra else f"pip install {module}"
        raise MissingDependencyError(
            f"{feature} needs the optional package '{module}', which is not installed: {hint}"
        ) from exc
