"""A clone proves the claims: the tests read only the repository.

Golden data (trec_eval's test inputs and expected outputs, the founding documents) lives in
``tests/data/``; no test reads the project's shared folder or anything above the
repository, and every file under ``tests/data/`` is committed, so ``git clone`` + ``pytest``
runs every test.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
DATA = TESTS / "data"
_OUTSIDE = re.compile(
    r"(?:^|[/\\])shared[/\\]|[/\\]shared(?:[/\\]|$)|^/work/|(?:^|[/\\])\.\.(?:[/\\]|$)"
)


_PATH_CALLS = {"Path", "PurePath", "join", "joinpath"}


def _is_shared(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "shared"


def _name(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _test_modules() -> list[Path]:
    """Every test module but this one (which names what it looks for)."""
    here = Path(__file__).resolve()
    return sorted(
        p
        for p in TESTS.rglob("*.py")
        if "data" not in p.relative_to(TESTS).parts and p.resolve() != here
    )


@pytest.mark.parametrize("module", _test_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_reads_outside_the_repository(module: Path) -> None:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    top = len(module.relative_to(ROOT).parts) - 1  # tests/x.py: parents[1] is the root
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            value = node.value
            assert not _OUTSIDE.search(value), (
                f"{module.name}:{node.lineno}: {value!r} points outside the repository; copy "
                "the data into tests/data"
            )
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            parts = (node.left, node.right)
            assert not any(_is_shared(p) for p in parts), (
                f"{module.name}:{node.lineno}: a path through the shared folder"
            )
        if isinstance(node, ast.Call) and _name(node.func) in _PATH_CALLS:
            assert not any(_is_shared(a) for a in node.args), (
                f"{module.name}:{node.lineno}: a path through the shared folder"
            )
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "parents"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, int)
        ):
            assert node.slice.value <= top, (
                f"{module.name}:{node.lineno}: parents[{node.slice.value}] is above the repository"
            )


def test_the_golden_data_is_there() -> None:
    trec = DATA / "trec_eval"
    for version in (trec, trec / "v9.0.8"):
        outputs = sorted(p.name for p in version.glob("out.test*"))
        assert len(outputs) >= 10, version
    for name in ("qrels.test", "results.test", "prefs.test", "qrels.rel_level", "zscores_file"):
        assert (trec / name).stat().st_size > 0, name
    seeds = sorted((DATA / "seeds").glob("00*_*.txt"))
    assert [p.name[:3] for p in seeds] == ["000", "001", "002", "003", "004"]


def test_every_file_under_tests_data_is_committed() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an unpacked archive): nothing to compare with")
    untracked = subprocess.run(
        ["git", "ls-files", "--others", "--", "tests/data", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    untracked = [p for p in untracked if "__pycache__" not in p and not p.endswith(".pyc")]
    assert not [p for p in untracked if p.startswith("tests/data/")], (
        f"not committed, so a clone would lack them: {untracked}"
    )
