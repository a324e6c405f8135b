"""Creates (or updates) the benchmarks' own environment, ``benchmarks/.venv``: ranklens
installed from this checkout (built like a user's install, not editable) and the peers it
is timed against (pytrec-eval-terrier, ranx, ir-measures), plus what the generator and the
parsing floor use (numpy, polars, pyarrow, pandas, psutil).

    python benchmarks/setup_env.py            # create or update, then check the imports
    python benchmarks/setup_env.py --force    # start from an empty venv
    python benchmarks/setup_env.py --print    # only print the interpreter's path

``benchmarks/run.sh`` runs this and then ``benchmarks/run.py`` in one command. Nothing here
depends on the machine: the venv sits next to this file, and ``run.py`` and
``parse_floor.py`` use it by default.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from _env import VENV, venv_python

REPO = Path(__file__).resolve().parents[1]
PEERS = [
    "numpy",
    "pytrec-eval-terrier",
    "ranx",
    "ir-measures",
    "psutil",
    "polars",
    "pyarrow",
    "pandas",
]
CHECK = "import ranklens, pytrec_eval, ranx, ir_measures, numpy, polars, pyarrow, psutil"


def main(argv: list[str] | None = None) -> int:
    """Creates or updates the venv; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--force", action="store_true", help="recreate the venv from scratch")
    parser.add_argument("--print", action="store_true", help="print the interpreter and exit")
    parser.add_argument(
        "--skip-install",
        action="store_true",
        help="only create the venv when it is missing; do not reinstall ranklens",
    )
    args = parser.parse_args(argv)
    python = venv_python()
    if args.print:
        print(python)
        return 0
    if args.force and VENV.exists():
        shutil.rmtree(VENV)
    fresh = not Path(python).exists()
    if fresh:
        print(f"setup_env: creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
        pip(python, "install", "--quiet", "--upgrade", "pip")
    if fresh or not args.skip_install:
        print("setup_env: installing the peers and ranklens (from this checkout)", flush=True)
        pip(python, "install", "--quiet", *PEERS)
        # reinstalled every time, so the venv times the checkout as it is now
        pip(python, "install", "--quiet", "--force-reinstall", "--no-deps", str(REPO))
        pip(python, "install", "--quiet", str(REPO))  # ranklens' own dependencies
    done = subprocess.run([python, "-c", CHECK], check=False)
    if done.returncode != 0:
        print("setup_env: some tools do not import (see above)", file=sys.stderr)
        return 1
    print(f"setup_env: ready: {python}")
    return 0


def pip(python: str, *args: str) -> None:
    """Runs pip in the venv; stops on failure."""
    subprocess.run([python, "-m", "pip", *args], check=True)


if __name__ == "__main__":
    sys.exit(main())
