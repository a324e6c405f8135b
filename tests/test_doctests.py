"""Every docstring example in the package runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import ranklens

OPTIONAL = ("torch", "torchmetrics", "jax", "cupy", "dask", "distributed", "pyspark", "mlflow")
OPTIONAL += ("ir_datasets", "nltk", "matplotlib", "pandas", "polars", "pyarrow", "yaml")
"""Packages of the extras: a module whose examples import one that is not installed (the
light test extra leaves out the heavy ones) is skipped, saying which."""

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(ranklens.__path__, "ranklens.")
    if not m.name.endswith("__main__")
)


def _skip_without_what_the_examples_import(name: str) -> None:
    spec = importlib.util.find_spec(name)
    origin = Path(spec.origin) if spec and spec.origin else None
    source = origin.read_text(encoding="utf-8") if origin and origin.suffix == ".py" else ""
    for package in OPTIONAL:
        pattern = rf"(?:>>>|\.\.\.) +(?:import|from) {package}\b"
        if re.search(pattern, source) and importlib.util.find_spec(package) is None:
            pytest.skip(f"{name}'s examples need {package}, which is not installed")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    _skip_without_what_the_examples_import(name)
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # a module of an extra that is not installed
        missing = getattr(exc, "name", None) or ""
        if missing.split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs {missing}, which is not installed")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_the_package_has_examples() -> None:
    attempted = 0
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # an extra's module, not installed: test_docstring_examples says so
            continue
        attempted += doctest.testmod(module, report=False).attempted
    assert attempted >= 20
