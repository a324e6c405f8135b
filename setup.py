"""Build script for the native core (``ranklens.data._core``); metadata lives in pyproject.toml."""

import numpy as np
from setuptools import Extension, setup

# The C sources, one file per job; core.h is what they share (see its comment).
NATIVE = "src/ranklens/data/native"
SOURCES = ["module", "tokenize", "intern", "threads", "parse", "rank", "join", "pool", "columns"]

setup(
    ext_modules=[
        Extension(
            "ranklens.data._core",
            sources=[f"{NATIVE}/{name}.c" for name in SOURCES],
            depends=[f"{NATIVE}/core.h"],
            include_dirs=[np.get_include()],
            extra_compile_args=["-O3", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-pthread"],
            extra_link_args=["-pthread"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        )
    ]
)
