"""Build script for the native core (``ranklens.data._core``); metadata lives in pyproject.toml."""

import numpy as np
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "ranklens.data._core",
            sources=["src/ranklens/_core.c"],
            include_dirs=[np.get_include()],
            extra_compile_args=["-O3", "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-pthread"],
            extra_link_args=["-pthread"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        )
    ]
)
