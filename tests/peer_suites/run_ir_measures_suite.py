"""Run ir_measures' own test suite with and without the ``ranklens`` provider registered.

ir_measures' tests are not copied into this repository: give a checkout of ir_measures
(its ``tests/`` folder) at the version installed here (``pip show ir-measures``)::

    git clone --branch v0.4.3 https://github.com/terrierteam/ir_measures /tmp/ir_measures
    python tests/peer_suites/run_ir_measures_suite.py /tmp/ir_measures

The suite's ``tests/`` folder is copied into a temporary folder and run twice against the
installed ir_measures (not the checkout's sources): as it is, and with a ``conftest.py``
that imports ``ranklens.compat.ir_measures`` (which registers the provider and puts it
first in ir_measures' default pipeline). It prints both outcomes and exits with 1 if a
test that passes without the provider fails with it.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

CONFTEST = "import ranklens.compat.ir_measures  # noqa: F401 (registers the ranklens provider)\n"


def outcomes(tests: Path, provider: bool) -> dict[str, str]:
    """``{test id: "passed" | "failed" | "skipped"}`` of one run of the suite."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "tests"
        shutil.copytree(tests, copy)
        if provider:
            (copy / "conftest.py").write_text(CONFTEST, encoding="utf-8")
        report = Path(scratch) / "report.xml"
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(copy),
             f"--junitxml={report}"],
            cwd=scratch,
            check=False,
            capture_output=True,
        )  # fmt: skip
        found: dict[str, str] = {}
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            kinds = {child.tag for child in case}
            if kinds & {"failure", "error"}:
                found[name] = "failed"
            elif "skipped" in kinds:
                found[name] = "skipped"
            else:
                found[name] = "passed"
        return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a checkout of ir_measures (its tests/)")
    args = parser.parse_args()
    tests = args.checkout / "tests"
    if not tests.is_dir():
        parser.error(f"{tests} is not a folder: give the root of an ir_measures checkout")
    without = outcomes(tests, provider=False)
    with_provider = outcomes(tests, provider=True)
    for label, found in (("without the provider", without), ("with it", with_provider)):
        counts = {kind: sum(v == kind for v in found.values()) for kind in ("passed", "failed")}
        print(f"{label}: {counts['passed']} passed, {counts['failed']} failed")
    lost = sorted(
        t for t, v in without.items() if v == "passed" and with_provider.get(t) != "passed"
    )
    gained = sorted(
        t for t, v in with_provider.items() if v == "passed" and without.get(t) != "passed"
    )
    for test in lost:
        print(f"passes without the provider, not with it: {test}")
    for test in gained:
        print(f"passes only with the provider: {test}")
    for test in sorted(t for t, v in with_provider.items() if v == "failed"):
        print(f"fails with the provider: {test}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
