"""Where the benchmarks' own environment lives: ``benchmarks/.venv`` (git-ignored), made by
``python benchmarks/setup_env.py`` with ranklens from this checkout and the peers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
VENV = BENCH_DIR / ".venv"


def venv_python(venv: Path = VENV) -> str:
    """The interpreter of ``venv`` (POSIX or Windows layout)."""
    if os.name == "nt":
        return str(venv / "Scripts" / "python.exe")
    return str(venv / "bin" / "python")


def default_python() -> str:
    """The benchmark venv's interpreter when it exists, else the current one (so that a
    tool missing from it is reported as "not available" rather than failing)."""
    python = venv_python()
    return python if Path(python).exists() else sys.executable
