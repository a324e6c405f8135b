"""Every docstring example in the package runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ranklens

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(ranklens.__path__, "ranklens.")
    if not m.name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_the_package_has_examples() -> None:
    attempted = sum(
        doctest.testmod(importlib.import_module(name), report=False).attempted for name in MODULES
    )
    assert attempted >= 20
