"""The HTML report: its content equals the computed numbers, untrusted ids stay text, and
(in a real headless Chromium) the page loads offline, sorts, filters and explains."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ranklens
from ranklens.base.errors import OptionError
from ranklens.data.examples import example_paths
from ranklens.presentation.reporting import build_report, write_report
from ranklens.presentation.reporting._page import script_json

EVIL_Q = "<script>window.__pwned=1</script>"
EVIL_D = '"><img src=x onerror="window.__pwned=2">'
EVIL_RUN = "<b onmouseover=window.__pwned=3>sys</b>"

QRELS = {
    EVIL_Q: {EVIL_D: 2, "d2": 1, "d3": 0, "d9": 1},
    "q2": {"a": 1, "b": 3, "c": -1},
    "q3": {"x": 0},
    "q4": {"m": 1},
}
RUN_A = {
    EVIL_Q: {EVIL_D: 0.9, "d2": 0.9, "u1": 0.5, "d3": 0.1},
    "q2": {"c": 3.0, "a": 2.0, "zz": 2.0, "b": 1.0},
    "q3": {"x": 1.0, "y": 0.5},
    "q4": {"n": 2.0, "m": 1.0},
}
RUN_B = {
    EVIL_Q: {"d2": 0.8, EVIL_D: 0.2, "d9": 0.1},
    "q2": {"b": 5.0, "a": 4.0},
    "q3": {"y": 1.0},
    "q4": {"m": 3.0},
}
MEASURES = ["nDCG@10", "AP", "P@2", "RR"]


def payload_of(page: str) -> dict[str, Any]:
    block = re.search(r'<script type="application/json" id="rl-data">(.*?)</script>', page, re.S)
    assert block is not None
    data: dict[str, Any] = json.loads(block.group(1))
    return data


def small_report(**options: Any) -> str:
    runs = {"base": RUN_A, EVIL_RUN: RUN_B}
    options.setdefault("plots", False)
    return build_report(QRELS, runs, MEASURES, permutations=200, **options)


def test_per_query_payload_equals_evaluate() -> None:
    page = small_report()
    data = payload_of(page)
    expected_a = ranklens.evaluate(QRELS, RUN_A, MEASURES)
    expected_b = ranklens.evaluate(QRELS, RUN_B, MEASURES)
    assert data["queries"] == list(expected_a.queries)
    labels = [c["label"] for c in data["columns"]]
    assert labels == [f"{run} · {m}" for m in MEASURES for run in ("base", EVIL_RUN)]
    for column in data["columns"]:
        run, measure = column["label"].split(" · ")
        expected = expected_a if run == "base" else expected_b
        want = [expected.per_query[q][measure] for q in data["queries"]]
        assert column["values"] == pytest.approx(want, abs=0, rel=0)


def test_summary_and_significance_tables_hold_the_comparison() -> None:
    page = small_report(test="randomization", seed=7)
    cmp = ranklens.compare(
        QRELS,
        {"base": RUN_A, EVIL_RUN: RUN_B},
        MEASURES,
        test="randomization",
        seed=7,
        permutations=200,
    )
    for m in MEASURES:
        for run in cmp.runs:
            assert f"{cmp.means[run][m]:.4f}" in page
        stats = cmp.vs_baseline[EVIL_RUN][m]
        assert f"{stats.delta:.4f}" in page
        assert f"{stats.wins} / {stats.ties} / {stats.losses}" in page
    assert "randomization test" in page


def test_untrusted_ids_are_never_markup() -> None:
    page = small_report()
    # outside the data block the ids only appear escaped
    markup = re.sub(r'<script type="application/json".*?</script>', "", page, flags=re.S)
    for evil in (EVIL_Q, EVIL_D, EVIL_RUN):
        assert evil not in page
    assert "<img" not in page
    assert "<b " not in markup and html.escape(EVIL_RUN) in markup
    assert markup.count("<script") == 1  # only the report's own script
    # the data block cannot end early: no '<' at all inside it
    block = re.search(r'id="rl-data">(.*?)</script>', page, re.S)
    assert block is not None and "<" not in block.group(1)
    assert EVIL_Q in payload_of(page)["queries"]


def test_content_security_policy_allows_only_the_report_script() -> None:
    page = small_report()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy.group(1)
    assert "default-src 'none'" in policy.group(1)
    assert "http://" not in page and "https://" not in page


def test_explanations_are_ranklens_explain() -> None:
    page = small_report()
    data = payload_of(page)
    stored = data["explanations"]["q2"]
    assert [(e["run"], e["measure"]) for e in stored] == [
        (run, m) for run in ("base", EVIL_RUN) for m in MEASURES
    ]
    for e in stored:
        run = RUN_A if e["run"] == "base" else RUN_B
        expected = ranklens.explain(QRELS, run, "q2", e["measure"])
        assert e["value"] == expected.value
        assert e["columns"] == list(expected.header)
        shown = [r["cells"][:2] for r in e["rows"] if "cells" in r]
        assert shown == [[r.rank, r.docid] for r in expected.ranks]


def test_explain_limit_keeps_the_queries_where_runs_differ_most() -> None:
    data = payload_of(small_report(explain_limit=1))
    a = ranklens.evaluate(QRELS, RUN_A, MEASURES).query_values("nDCG@10")
    b = ranklens.evaluate(QRELS, RUN_B, MEASURES).query_values("nDCG@10")
    spread = {q: abs(a[q] - b[q]) for q in a}
    top = max(spread.values())
    (kept,) = data["explanations"]
    assert spread[kept] == top
    assert payload_of(small_report(explain_limit=0))["explanations"] == {}


def test_measures_without_worked_form_are_listed() -> None:
    page = build_report(QRELS, [RUN_A], ["AP", "Judged@5"], plots=False)
    assert "no worked computation for: Judged@5" in page
    assert {e["measure"] for e in payload_of(page)["explanations"]["q2"]} == {"AP"}


def test_plots_are_inline_svg_without_comments() -> None:
    pytest.importorskip("matplotlib")
    qrels, runs = example_paths()
    page = build_report(qrels, runs, ["nDCG@10", "AP"], permutations=100)
    svgs = re.findall(r"<svg.*?</svg>", page, re.S)
    # pr, cutoff, one distribution per measure, one delta per non-baseline run
    assert len(svgs) == 2 + 2 + 1
    for svg in svgs:
        assert "<!--" not in svg
    ids = re.findall(r'\bid="([^"]+)"', "".join(svgs))
    assert len(ids) == len(set(ids))


def test_write_report_and_options(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    write_report(out, QRELS, [RUN_A], ["AP"], plots=False, title="My <title>")
    text = out.read_text(encoding="utf-8")
    assert "<title>My &lt;title&gt;</title>" in text
    with pytest.raises(OptionError):
        build_report(QRELS, [], ["AP"])
    with pytest.raises(OptionError):
        build_report(QRELS, [RUN_A], ["AP"], explain_limit=-1)
    with pytest.raises(OptionError, match="distinct names"):
        build_report(QRELS, [RUN_A, RUN_A], ["AP"], plots=False)


def test_script_json_is_inert_and_round_trips() -> None:
    value = {"a": "</script><!-- & \u2028", "b": [1.5, float("inf"), None]}
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": value["a"], "b": [1.5, None, None]}


def test_report_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ranklens.cli import main

    out = tmp_path / "report.html"
    assert main(["report", "--example", "-m", "AP", "--no-plots", "-o", str(out), "-q"]) == 0
    assert payload_of(out.read_text(encoding="utf-8"))["queries"]
    # the example without -o writes example-report.html into the current folder
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--example", "-m", "AP", "--no-plots", "-q"]) == 0
    assert payload_of((tmp_path / "example-report.html").read_text(encoding="utf-8"))["queries"]
    # a report of the user's own files without -o is refused in one line
    assert main(["examples", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", "qrels.txt", "run.txt", "-m", "AP", "--no-plots"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ranklens: error:") and err.count("\n") == 1


# --------------------------------------------------------------------------------------
# in a real browser
# --------------------------------------------------------------------------------------


def test_report_in_headless_chromium(browser: Any, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    path = tmp_path / "report.html"
    path.write_text(
        build_report(QRELS, {"base": RUN_A, EVIL_RUN: RUN_B}, MEASURES, permutations=200),
        encoding="utf-8",
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems: list[str] = []
    requests: list[str] = []
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("dialog", lambda d: problems.append(f"dialog: {d.message}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_selector("#rl-queries tbody tr")
    assert problems == []
    assert requests == [path.as_uri()]
    assert page.evaluate("window.__pwned") is None
    assert page.inner_text("#rl-count") == "4 of 4 queries"

    # the evil ids are shown as text
    first_cells = page.eval_on_selector_all(
        "#rl-queries tbody tr td:first-child", "els => els.map(e => e.textContent)"
    )
    assert EVIL_Q in first_cells
    assert page.eval_on_selector_all("#rl-queries img, #rl-queries script", "e => e.length") == 0

    # sorting by a column orders the rows by its values (descending on the 2nd click)
    header = page.locator("#rl-queries thead th").nth(1)  # base · nDCG@10
    data = payload_of(path.read_text(encoding="utf-8"))
    values = dict(zip(data["queries"], data["columns"][0]["values"], strict=True))
    for clicks, reverse in ((1, False), (1, True)):
        for _ in range(clicks):
            header.click()
        shown = page.eval_on_selector_all(
            "#rl-queries tbody tr td:first-child", "els => els.map(e => e.textContent)"
        )
        got = [values[q] for q in shown]
        assert got == sorted(got, reverse=reverse)

    # filtering hides the other rows
    page.fill("#rl-filter", "q2")
    assert page.inner_text("#rl-count") == "1 of 4 queries"
    page.fill("#rl-filter", "")

    # clicking the evil query shows its explanations, ids as text
    page.locator("#rl-queries tbody tr", has_text="__pwned=1").first.click()
    panel = page.inner_text("#rl-explain")
    assert EVIL_Q in panel and EVIL_D in panel
    assert page.evaluate("window.__pwned") is None
    assert page.eval_on_selector_all("#rl-explain img, #rl-explain script", "e => e.length") == 0
    assert problems == []

    shot = tmp_path / "shot.png"
    page.screenshot(path=str(shot), full_page=True)
    from matplotlib.image import imread

    pixels = np.asarray(imread(str(shot)))
    assert pixels.shape[0] > 900 and pixels.shape[1] == 1280
    assert float(pixels[..., :3].std()) > 0.05  # not blank
    assert float((pixels[..., :3] < 0.5).mean()) > 0.005  # some dark ink (text, lines)
    page.close()


def test_jupyter_html_of_results_and_comparison() -> None:
    res = ranklens.evaluate(QRELS, RUN_B, MEASURES)
    res = type(res)(EVIL_RUN, res.measures, res.queries, res.values, res.query_counts)
    page = res._repr_html_()
    assert html.escape(EVIL_RUN) in page and "<b " not in page
    for value in res.aggregate.values():
        assert f"{value:.4f}" in page
    cmp = ranklens.compare(QRELS, {"base": RUN_A, EVIL_RUN: RUN_B}, MEASURES, permutations=100)
    table = cmp._repr_html_()
    assert html.escape(EVIL_RUN) in table and "<b " not in table
    for m in MEASURES:
        assert f"{cmp.vs_baseline[EVIL_RUN][m].delta:.4f}" in table


def test_comparison_plot_methods_draw_its_results() -> None:
    pytest.importorskip("matplotlib")
    cmp = ranklens.compare(QRELS, {"base": RUN_A, "new": RUN_B}, MEASURES, permutations=100)
    fig = cmp.plot_delta("new", "AP")
    heights = sorted(p.get_height() for p in fig.axes[0].patches)
    a = ranklens.evaluate(QRELS, RUN_A, "AP").query_values("AP")
    b = ranklens.evaluate(QRELS, RUN_B, "AP").query_values("AP")
    assert heights == pytest.approx(sorted(b[q] - a[q] for q in a))
    assert len(cmp.plot_dist("AP").axes) == 1
    with pytest.raises(OptionError):
        cmp.plot_delta("nope", "AP")


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    build_report(QRELS, [RUN_A], ["AP"], plots=False, progress=True)
    assert quiet.getvalue() == ""
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    build_report(QRELS, [RUN_A], ["AP"], plots=False, progress=False)
    assert terminal.getvalue() == ""
    build_report(QRELS, [RUN_A], ["AP"], plots=False, progress=True)
    assert "explained" in terminal.getvalue() or "\x1b" in terminal.getvalue()


def test_missing_matplotlib_says_how_to_do_without(monkeypatch: pytest.MonkeyPatch) -> None:
    import ranklens.base.optional as optional

    real = optional.importlib.import_module

    def no_matplotlib(name: str, *args: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(optional.importlib, "import_module", no_matplotlib)
    with pytest.raises(ranklens.MissingDependencyError, match=r"ranklens\[plot\].*--no-plots"):
        build_report(QRELS, [RUN_A], ["AP"])
    assert build_report(QRELS, [RUN_A], ["AP"], plots=False).startswith("<!DOCTYPE html>")
