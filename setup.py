"""Build script for the native core (``ranklens.data._core``); metadata lives in pyproject.toml.

The extension is optional: where it cannot be compiled (no C compiler, or a platform the C
code does not support) the install still succeeds, and ranklens uses its numpy fallback
(``ranklens.data.native_fallback``, same results, slower), saying so once at import.
"""

import sys

import numpy as np
from setuptools import Extension, setup

# The C sources, one file per job; core.h is what they share (see its comment).
NATIVE = "src/ranklens/data/native"
SOURCES = ["module", "tokenize", "intern", "threads", "parse", "rank", "join", "pool", "columns", "runtext"]

if sys.platform == "win32":  # MSVC flags (the core needs POSIX threads: see README)
    COMPILE_ARGS: list[str] = ["/O2"]
    LINK_ARGS: list[str] = []
else:
    COMPILE_ARGS = ["-O3", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-pthread"]
    LINK_ARGS = ["-pthread"]

setup(
    ext_modules=[
        Extension(
            "ranklens.data._core",
            sources=[f"{NATIVE}/{name}.c" for name in SOURCES],
            depends=[f"{NATIVE}/core.h"],
            include_dirs=[np.get_include()],
            extra_compile_args=COMPILE_ARGS,
            extra_link_args=LINK_ARGS,
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            optional=True,  # a failed build warns and leaves the numpy fallback
        )
    ]
)
