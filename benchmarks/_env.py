"""Where the benchmarks' own environment lives: ``benchmarks/.venv`` (git-ignored), made by
``python benchmarks/setup_env.py`` with ranklens from this checkout and the peers; and the
busy processes of ``--load N``, shared by the benchmark scripts."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


def _spin(stop: Any) -> None:
    """Keep one core busy until ``stop`` is set."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x = (x * 1_103_515_245 + 12_345) & 0xFFFFFFFF


@contextlib.contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` processes keeping a core busy each while the block runs (``--load N``
    of run.py and tensor_bench.py)."""
    if processes <= 0:
        yield
        return
    stop = multiprocessing.Event()
    workers = [multiprocessing.Process(target=_spin, args=(stop,)) for _ in range(processes)]
    for w in workers:
        w.start()
    time.sleep(0.5)  # let them reach the CPU
    try:
        yield
    finally:
        stop.set()
        for w in workers:
            w.join()
