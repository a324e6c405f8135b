"""Every example of README.md, CONTRIBUTING.md and docs/*.md runs as written, and prints what the page shows.

Each Markdown file is one test. Its fenced examples run in the order of the page, in one
fresh temporary folder (so a later example may read what an earlier one wrote), with the
``ranklens`` of this interpreter first on ``PATH``:

- ``bash``, ``sh``, ``shell``: the whole block is one ``bash -e -o pipefail`` script;
- ``console``: each ``$ `` line (with its ``\\`` continuation lines) is one command; the
  lines after it are its output as shown;
- ``python``: executed with ``exec`` in one namespace per page (an example may use names an
  earlier one defined); a block of ``>>>`` lines (also ``pycon``) runs as a doctest;
- any other language (``json``, none, ...) is shown, not run.

Shown output is checked strictly; a page cannot drift from its code. Output is shown in
four places, and each must be exactly what the code prints (stdout and stderr together, as
a terminal shows them, but piped and without ``COLUMNS``/``LINES``):

- the lines after a ``console`` command (a command with no lines after it shows nothing,
  and its output is not compared);
- a doctest's expected output;
- a ``text`` (or ``output``) block that comes right after a runnable example, with only
  prose between them: it is everything that example prints. A ``text`` block anywhere
  else is an error; text that is not output takes another language (or none);
- the Markdown between ``<!-- output -->`` and ``<!-- end output -->`` (each on a line of
  its own), right after a runnable example: output rendered as Markdown (a
  ``to_markdown()`` table), compared as source text.

Before the comparison only trailing whitespace is normalised (at line ends and at the end).
Where output truly cannot be fixed (a time, a temporary path) the page writes ``...``,
which matches anything, as doctest's ``ELLIPSIS``; keep these rare. A comment in a
``python`` block must not claim a printed number (``x  # 0.6771``): show it as a doctest.

Examples that name files (``qrels.txt``, ``run.txt``, ``bm25.run``, ``rerank.run``,
``prefs.txt``) find them because the page says how to get them first, in a block that runs
like the others: ``ranklens examples`` writes the bundled example under these names.

Two HTML comments, on the line(s) just before a fence, change how it runs
(CONTRIBUTING.md documents them):

- ``<!-- no-run: REASON -->``: the example is not run (say why; keep these few: installing
  the package, running this very suite, a cluster or a GPU the test cannot have); output
  shown after it is not checked;
- ``<!-- requires: MODULE [MODULE ...] -->``: the page's test is skipped, saying so, when a
  module outside ranklens is not installed.
"""

from __future__ import annotations

import contextlib
import difflib
import doctest
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"bash", "sh", "shell", "console", "shell-session"}
PYTHON = {"python", "py", "python3", "pycon", "pycon3"}
OUTPUT = {"text", "output", "markdown-output"}  # shown output; markdown-output: a region
_REGION_OPEN, _REGION_CLOSE = "<!-- output -->", "<!-- end output -->"
TIMEOUT = 300  # seconds for one shell block or console command

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
_MARKER = re.compile(r"<!--\s*(?P<kind>no-run|requires)\s*:\s*(?P<value>.*?)\s*-->", re.S)
_INSTALL = re.compile(r"(?:^|[;&|(]\s*)(?:python3? -m )?pip3? install\b", re.M)
_NUMBER = re.compile(r"(?<![\w.])[+-]?\d+\.\d+(?:e[+-]?\d+)?(?![\d.])")


@dataclass(frozen=True)
class Example:
    """One fenced block of a page."""

    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    no_run: str | None  # the reason, when marked no-run
    requires: tuple[str, ...]

    @property
    def where(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"


def examples_of(page: Path) -> list[Example]:
    """The fenced blocks of ``page`` with their markers."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == _REGION_OPEN:  # Markdown-rendered output, up to its close
            j = i + 1
            while j < len(lines) and lines[j].strip() != _REGION_CLOSE:
                j += 1
            if j == len(lines):
                raise ValueError(f"{page}:{i + 1}: {_REGION_OPEN} without {_REGION_CLOSE}")
            code = "\n".join(lines[i + 1 : j]).strip("\n") + "\n"
            found.append(Example(page, i + 1, "markdown-output", code, None, ()))
            i = j + 1
            continue
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = len(m["indent"]), m["fence"]
        language = m["info"].split()[0].lower() if m["info"].split() else ""
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            close = _FENCE.match(lines[j])
            if (
                close
                and close["fence"][0] == fence[0]
                and len(close["fence"]) >= len(fence)
                and not close["info"].strip()
            ):
                break
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        no_run, requires = _markers_before(lines, i)
        found.append(Example(page, i + 1, language, "\n".join(body) + "\n", no_run, requires))
        i = j + 1
    return found


def _markers_before(lines: list[str], fence: int) -> tuple[str | None, tuple[str, ...]]:
    """The markers in the HTML comments directly above line ``fence`` (blank lines allowed)."""
    k = fence - 1
    comments: list[str] = []
    while k >= 0 and (not lines[k].strip() or lines[k].strip().endswith("-->")):
        if lines[k].strip():
            start = k
            while "<!--" not in lines[start] and start > 0:
                start -= 1
            comments.append("\n".join(lines[start : k + 1]))
            k = start
        k -= 1
    no_run: str | None = None
    requires: list[str] = []
    for comment in comments:
        for m in _MARKER.finditer(comment):
            if m["kind"] == "no-run":
                no_run = m["value"]
            else:
                requires += m["value"].split()
    return no_run, tuple(requires)


# --- running ------------------------------------------------------------------------------


def _environment(tmp: Path) -> dict[str, str]:
    """``ranklens`` and ``python`` of this interpreter first on PATH."""
    bin_dir = Path(sys.executable).parent
    shims = tmp / ".bin"
    shims.mkdir()
    if not (bin_dir / "ranklens").exists():  # not installed as a script: run the module
        (shims / "ranklens").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ranklens "$@"\n')
        (shims / "ranklens").chmod(0o755)
    (shims / "python").symlink_to(sys.executable)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(shims), str(bin_dir), env.get("PATH", "")])
    env["MPLBACKEND"] = "Agg"
    for key in ("PYTHONSTARTUP", "COLUMNS", "LINES", "FORCE_COLOR"):
        env.pop(key, None)
    return env


def _refuse_installs(example: Example, code: str) -> None:
    """An example that installs packages is never run by the tests (it would change this
    environment, or download): it must be marked ``<!-- no-run: installs ... -->``."""
    if _INSTALL.search(code):
        pytest.fail(f"{example.where} runs pip install: mark it <!-- no-run: installs ... -->")


def _bash(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``command``; its stdout and stderr are one stream, as a terminal shows them."""
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )


def _run_shell(example: Example, cwd: Path, env: dict[str, str]) -> str:
    """Run a shell block; what it printed."""
    _refuse_installs(example, example.code)
    done = _bash(example.code, cwd, env)
    if done.returncode != 0:
        pytest.fail(
            f"{example.where}: exit status {done.returncode}\n{example.code}\n"
            f"output:\n{done.stdout[-3000:]}"
        )
    return done.stdout


def _normal(text: str) -> str:
    """``text`` without trailing whitespace, at line ends and at the end."""
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines()) + "\n"


def same_output(shown: str, printed: str) -> bool:
    """Whether ``shown`` is what was ``printed``: equal but for trailing whitespace, with
    ``...`` matching anything (doctest's ``ELLIPSIS``)."""
    want, got = _normal(shown), _normal(printed)
    return want == got or doctest.OutputChecker().check_output(want, got, doctest.ELLIPSIS)


def _check_output(where: str, what: str, shown: str, printed: str) -> None:
    if same_output(shown, printed):
        return
    diff = difflib.unified_diff(
        _normal(shown).splitlines(), _normal(printed).splitlines(), "shown", "printed", lineterm=""
    )
    pytest.fail(
        f"{where}: {what}: the page shows output the code does not print "
        f"(fix the page with the printed output):\n" + "\n".join(diff)
    )


def console_commands(code: str) -> list[tuple[str, str]]:
    """The ``$ `` commands of a console block, each with the output shown after it."""
    commands: list[tuple[str, str]] = []
    lines = code.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        command = [lines[i][2:]]
        while command[-1].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            command.append(lines[i])
        i += 1
        shown: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        commands.append(("\n".join(command), "\n".join(shown)))
    return commands


def _run_console(example: Example, cwd: Path, env: dict[str, str]) -> None:
    for command, shown in console_commands(example.code):
        _refuse_installs(example, command)
        done = _bash(command, cwd, env)
        if done.returncode != 0:
            pytest.fail(
                f"{example.where}: exit status {done.returncode}: $ {command}\n"
                f"output:\n{done.stdout[-3000:]}"
            )
        if shown.strip():
            _check_output(example.where, f"$ {command}", shown, done.stdout)


def claimed_numbers(code: str) -> list[str]:
    """The numbers in the comments of Python ``code`` (``x  # 0.6771`` claims output)."""
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    return [n for t in tokens if t.type == tokenize.COMMENT for n in _NUMBER.findall(t.string)]


def _run_python(example: Example, namespace: dict[str, object]) -> str | None:
    """Run a Python block; what it printed (None for a doctest, which checks its own)."""
    code = example.code
    if example.language.startswith("pycon") or code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(code, namespace, example.where, None, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        assert runner.failures == 0, f"{example.where}:\n" + "".join(report)
        namespace.update(test.globs)  # DocTest ran on a copy: later examples see its names
        return None
    claimed = claimed_numbers(code)
    assert not claimed, (
        f"{example.where}: a comment shows {claimed}, which nothing checks: "
        "show printed values as a doctest (>>>) or a text block of the output"
    )
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(compile(code, example.where, "exec"), namespace)
    except Exception as exc:
        pytest.fail(f"{example.where}: {type(exc).__name__}: {exc}\n{code}")
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")  # type: ignore[attr-defined]
    return printed.getvalue()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_of_the_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = examples_of(page)
    examples = [e for e in blocks if e.language in SHELL | PYTHON]
    runnable = [e for e in examples if e.no_run is None]
    for i, block in enumerate(blocks):
        follows_example = i > 0 and blocks[i - 1].language in SHELL | PYTHON
        if block.language in OUTPUT and not follows_example:
            pytest.fail(
                f"{block.where}: shown output that follows no example: a text block or an "
                "output region comes right after the example that prints it (text that is "
                "not output takes another language, or none)"
            )
    for module in sorted({m for e in runnable for m in e.requires}):
        pytest.importorskip(module, reason=f"{page.name}'s examples need {module}")
    if not runnable:
        return
    if any(e.language in SHELL for e in runnable) and shutil.which("bash") is None:
        pytest.skip("the shell examples need bash, which this system lacks")
    work = tmp_path / "work"
    work.mkdir()
    env = _environment(tmp_path)
    monkeypatch.chdir(work)
    for key in ("PATH", "MPLBACKEND"):
        monkeypatch.setenv(key, env[key])
    namespace: dict[str, object] = {"__name__": "__main__"}
    printed: str | None = None  # by the example just run, if its output may be shown next
    for example in blocks:
        if example.language in OUTPUT:
            if printed is not None:
                _check_output(example.where, "the output shown", example.code, printed)
            printed = None
            continue
        printed = None
        if example.language not in SHELL | PYTHON or example.no_run is not None:
            continue
        if example.language == "console":
            _run_console(example, work, env)
            printed = "<a console block shows its output inline, not in a block after it>"
        elif example.language in SHELL:
            printed = _run_shell(example, work, env)
        else:
            printed = _run_python(example, namespace)
            if printed is None:  # a doctest: output shown after it cannot be checked
                printed = "<a doctest prints its output inline, not in a block after it>"


# --- the conventions themselves ------------------------------------------------------------


def test_every_no_run_marker_gives_a_reason_and_sits_on_a_runnable_example() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        marked = [e for e in examples_of(page) if e.no_run is not None or e.requires]
        for example in marked:
            assert example.language in SHELL | PYTHON, f"{example.where}: a marker on a non-example"
            if example.no_run is not None:
                assert len(example.no_run.split()) >= 2, f"{example.where}: say why it is not run"
        markers = sum(1 for line in text.splitlines() if _MARKER.fullmatch(line.strip()))
        assert markers == sum((e.no_run is not None) + bool(e.requires) for e in marked), (
            f"{page.name}: a no-run/requires marker not directly above a fenced example"
        )


def test_the_extractor_reads_fences_markers_and_console_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n\n"
        "<!-- no-run: installs the package -->\n"
        "```bash\npip install .\n```\n\n"
        "- a list\n\n"
        "  ```python\n  x = 1\n  ```\n\n"
        "<!-- requires: numpy -->\n"
        "~~~~console\n$ echo 1.5 \\\n  2.5\n1.5 2.5\n$ true\n~~~~\n"
        "```json\n{}\n```\n",
        encoding="utf-8",
    )
    found = examples_of(page)
    assert [(e.line, e.language, e.no_run, e.requires) for e in found] == [
        (4, "bash", "installs the package", ()),
        (10, "python", None, ()),
        (15, "console", None, ("numpy",)),
        (21, "json", None, ()),
    ]
    assert found[1].code == "x = 1\n"
    assert console_commands(found[2].code) == [("echo 1.5 \\\n  2.5", "1.5 2.5"), ("true", "")]
    assert _INSTALL.search("pip install 'ranklens[torch]'  # torch")
    assert _INSTALL.search("cd x && python -m pip install -e .")
    assert not _INSTALL.search("ranklens eval --example  # after pip install")
    assert _NUMBER.findall("0.6771ᵃ 1.5e-10 +0.2578 [0.1959, v1.2.3 43") == [
        "0.6771",
        "1.5e-10",
        "+0.2578",
        "0.1959",
    ]


def test_shown_output_is_compared_strictly() -> None:
    assert same_output("a  \nb\n\n", "a\nb")
    assert not same_output("0.4193\n", "0.4194\n")
    assert not same_output("a\nb\n", "a\nb\nc\n")  # output left out
    assert same_output("took ... s\n", "took 1.52 s\n")  # a documented placeholder
    assert claimed_numbers("x = 1  # 0.6771\ny = '# 0.5'  # ok\n") == ["0.6771"]


@pytest.mark.parametrize(
    ("page", "error"),
    [
        ("```python\nprint(1.5)\n```\n\nprints\n\n```text\n1.5\n```\n", None),
        ("```python\nprint(1.5)\n```\n\n```text\n1.6\n```\n", "does not print"),
        ("```python\nprint(1)\nprint(2)\n```\n\n```text\n1\n```\n", "does not print"),
        ("```bash\necho 2.5\n```\n\n```text\n2.5\n```\n", None),
        ("```bash\necho 2.5 >&2\n```\n\n```text\n2.6\n```\n", "does not print"),
        ("```console\n$ echo 0.25\n0.25\n$ echo a\nb\n```\n", "does not print"),
        ("```console\n$ echo 0.25\n```\n", None),
        ("text\n\n```text\n1\n```\n", "follows no example"),
        ("```json\n{}\n```\n\n```text\n{}\n```\n", "follows no example"),
        ("```python\nprint('| a |')\n```\n\n<!-- output -->\n| a |\n<!-- end output -->\n", None),
        (
            "```python\nprint('| b |')\n```\n\n<!-- output -->\n| a |\n<!-- end output -->\n",
            "not print",
        ),
        ("```python\nx = 2  # 0.6771\n```\n", "a comment shows"),
        ("<!-- no-run: a cluster we lack -->\n```bash\nfalse\n```\n\n```text\n9\n```\n", None),
    ],
)
def test_a_page_that_drifts_fails(
    page: str, error: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "page.md"
    path.write_text(page, encoding="utf-8")
    run = tmp_path / "run"
    run.mkdir()
    if error is None:
        test_every_example_of_the_page_runs(path, run, monkeypatch)
        return
    with pytest.raises((pytest.fail.Exception, AssertionError), match=error):
        test_every_example_of_the_page_runs(path, run, monkeypatch)


def test_the_readme_links_every_docs_page_and_stays_short() -> None:
    """The README is the index: a new page gets a row in its table, and the README stays a
    short introduction (the details live in the pages)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)", readme))
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert pages - linked == set(), f"README.md does not link {sorted(pages - linked)}"
    assert linked - pages == set(), f"README.md links missing pages {sorted(linked - pages)}"
    assert "](CONTRIBUTING.md)" in readme and "](benchmarks/README.md" in readme
    assert len(readme.splitlines()) < 150
    # the first thing after the title says what ranklens is, before any install command
    first = readme.split("\n## ", 1)[0]
    assert first.index("ranklens tells you how good a ranking is") < first.index("pip install")
