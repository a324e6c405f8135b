"""Rewrite the output a docs page shows with what the code prints now.

``tests/test_doc_examples.py`` fails when a page shows output the code does not print. After
a deliberate change of output (a new notice, another default), this runs each page's
examples in order, as the test does, and replaces every shown output that no longer
matches: the lines after a ``console`` command and a ``text`` block after a ``bash`` or
``python`` example. Output that still matches (``...`` placeholders included) is left as it
is; doctests are run but not rewritten (a failing one is reported, to fix by hand). Review
the diff before committing: a changed number is a question, not an answer.

    python tools/refresh_doc_outputs.py README.md docs/compare.md [...]
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _doc_tests() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "doc_examples", ROOT / "tests" / "test_doc_examples.py"
    )
    if spec is None or spec.loader is None:
        raise SystemExit("cannot load tests/test_doc_examples.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["doc_examples"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def refresh(page: Path, docs: ModuleType) -> int:
    """Rewrite ``page``'s stale outputs; returns how many were replaced."""
    lines = page.read_text(encoding="utf-8").splitlines()
    blocks = docs.examples_of(page)
    replacements: list[tuple[int, int, list[str]]] = []  # first, last line (0-based), new
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        env = docs._environment(Path(tmp))
        old_cwd, old_env = Path.cwd(), dict(os.environ)
        os.chdir(work)
        os.environ.update({k: env[k] for k in ("PATH", "MPLBACKEND")})
        try:
            namespace: dict[str, object] = {"__name__": "__main__"}
            printed: str | None = None
            for block in blocks:
                start = block.line  # the fence line is block.line; the body follows it
                if block.language in docs.OUTPUT and block.language != "markdown-output":
                    body_len = len(block.code.rstrip("\n").splitlines())
                    if printed is not None and not docs.same_output(block.code, printed):
                        new = docs._normal(printed).rstrip("\n").splitlines()
                        replacements.append((start, start + body_len - 1, new))
                    printed = None
                    continue
                printed = None
                if block.language not in docs.SHELL | docs.PYTHON or block.no_run is not None:
                    continue
                if block.language == "console":
                    replacements += _console(block, start, docs, work, env)
                elif block.language in docs.SHELL:
                    printed = docs._bash(block.code, work, env).stdout
                else:
                    try:
                        printed = docs._run_python(block, namespace)
                    except BaseException as exc:  # a failing doctest: report, go on
                        print(f"{block.where}: not rewritten: {exc}", file=sys.stderr)
                        printed = None
        finally:
            os.chdir(old_cwd)
            os.environ.clear()
            os.environ.update(old_env)
    for first, last, new in sorted(replacements, reverse=True):
        lines[first : last + 1] = new
    if replacements:
        page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(replacements)


def _console(
    block: object, start: int, docs: ModuleType, work: Path, env: dict[str, str]
) -> list[tuple[int, int, list[str]]]:
    """The replacements of a console block's stale outputs (line numbers of the page)."""
    out: list[tuple[int, int, list[str]]] = []
    body = block.code.splitlines()  # type: ignore[attr-defined]
    i = 0
    while i < len(body):
        if not body[i].startswith("$ "):
            i += 1
            continue
        command = [body[i][2:]]
        while command[-1].rstrip().endswith("\\") and i + 1 < len(body):
            i += 1
            command.append(body[i])
        i += 1
        first = i
        while i < len(body) and not body[i].startswith("$ "):
            i += 1
        shown = "\n".join(body[first:i])
        printed = docs._bash("\n".join(command), work, env).stdout
        if shown.strip() and not docs.same_output(shown, printed):  # none shown: not compared
            new = docs._normal(printed).rstrip("\n").splitlines()
            out.append((start + first, start + i - 1, new))
    return out


def main() -> None:
    docs = _doc_tests()
    for name in sys.argv[1:]:
        page = Path(name).resolve()
        count = refresh(page, docs)
        print(f"{name}: {count} output(s) rewritten")


if __name__ == "__main__":
    main()
