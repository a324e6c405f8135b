"""``ranklens serve DIR``: the local page over a folder of results files, loaded in a real
headless Chromium (the experiments, their comparisons, each report with its per-query
drill-down, the diff of two), and the command's errors (a port in use, a folder without
results: one line, exit 2)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ranklens.workflow.experiment import write_experiment
from ranklens.workflow.server import make_server
from ranklens.workflow.store import load_results
from workflow_support import run_cli

EVIL_Q = "<script>window.__pwned=1</script>"
QRELS = f"{EVIL_Q} 0 d1 1\n{EVIL_Q} 0 d2 0\nq2 0 a 1\nq2 0 b 2\nq3 0 x 1\nq4 0 m 1\nq4 0 n 1\n"
RUN_A = (
    f"{EVIL_Q} Q0 d2 1 0.9 a\n{EVIL_Q} Q0 d1 2 0.5 a\nq2 Q0 c 1 3 a\nq2 Q0 a 2 2 a\n"
    "q3 Q0 y 1 1 a\nq3 Q0 x 2 0.5 a\nq4 Q0 z 1 2 a\nq4 Q0 m 2 1 a\n"
)
RUN_B = (
    f"{EVIL_Q} Q0 d1 1 0.9 b\n{EVIL_Q} Q0 d2 2 0.5 b\nq2 Q0 b 1 3 b\nq2 Q0 a 2 2 b\n"
    "q3 Q0 x 1 1 b\nq4 Q0 m 1 2 b\nq4 Q0 n 2 1 b\n"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A folder with two experiments over small files (an id that is markup included):
    ``results/first.json`` and ``results/second.json`` (rerun with another test)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "qrels.txt").write_text(QRELS)
    (data / "a.run").write_text(RUN_A)
    (data / "b.run").write_text(RUN_B)
    for name, test in (("first", "t"), ("second", "sign")):
        manifest = tmp_path / f"{name}.yaml"
        manifest.write_text(
            "qrels: data/qrels.txt\nruns: {base: data/a.run, better: data/b.run}\n"
            f"measures: [nDCG@10, AP, RR]\ncompare: {{baseline: base, test: {test}}}\n"
            f"groups: {{hard: [q2, q3]}}\noutput: results/{name}.json\n"
        )
        write_experiment(manifest)
    return tmp_path / "results"


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    server = make_server(folder, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def fetch(url: str, host: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def test_served_pages_in_headless_chromium(browser: Any, store: Path) -> None:
    pytest.importorskip("matplotlib")
    first = load_results(store / "first.json")
    with serving(store) as base:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        problems: list[str] = []
        requests: list[str] = []
        page.on(
            "console",
            lambda m: problems.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(base + "/")
        assert page.title() == "ranklens experiments"
        headings = page.eval_on_selector_all("h2 a", "els => els.map(e => e.textContent)")
        assert headings == ["first", "second"]
        # the means of the first experiment, as stored, with the comparison's p-value
        table = page.locator("table").first
        rows = table.locator("tbody tr").all_inner_texts()
        better = first["runs"]["better"]["aggregate"]
        assert rows[1].split("\t")[0] == "better"
        assert f"{better['AP']:.4f}" in rows[1]
        p_corrected = first["comparison"]["runs"][1]["vs_baseline"]["AP"]["p_value_corrected"]
        assert f"p={p_corrected:.3g}" in rows[1]

        # one experiment's report: the per-query table, and a query's worked computation
        page.click("h2 a >> text=first")
        page.wait_for_selector("#rl-queries tbody tr")
        assert page.inner_text("#rl-count") == "4 of 4 queries"
        assert page.evaluate("window.__pwned") is None
        page.locator("#rl-queries tbody tr", has_text="__pwned=1").first.click()
        panel = page.inner_text("#rl-explain")
        assert EVIL_Q in panel and "AP" in panel
        assert page.locator("figure svg").count() >= 2  # the report's plots, inline
        assert page.evaluate("window.__pwned") is None

        # back, and the diff of the two experiments
        page.click("text=← all experiments")
        page.select_option("select[name=a]", "first.json")
        page.select_option("select[name=b]", "second.json")
        page.click("button[type=submit]")
        page.wait_for_selector("li")
        changes = page.eval_on_selector_all("li", "els => els.map(e => e.textContent)")
        assert "option compare.test changed: 't' → 'sign'" in changes
        assert problems == []
        assert all(url.startswith(base + "/") for url in requests), requests
        page.close()


def test_the_report_falls_back_to_the_stored_numbers(store: Path) -> None:
    (store.parent / "data" / "b.run").write_text(RUN_B.replace("q3 Q0 x 1 1 b", "q3 Q0 w 1 1 b"))
    with serving(store) as base:
        status, page = fetch(base + "/experiment/first.json")
    assert status == 200
    assert "(per-topic scores as given)" in page  # not from the changed run file
    assert '"explanations": {}' in page  # no rankings: no worked computations
    assert f"{load_results(store / 'first.json')['runs']['better']['aggregate']['AP']:.4f}" in page


def test_the_index_shows_the_means_by_group(store: Path) -> None:
    per_query = load_results(store / "first.json")["runs"]["better"]["per_query"]
    mean = (per_query["q2"]["AP"] + per_query["q3"]["AP"]) / 2
    with serving(store) as base:
        page = fetch(base + "/")[1]
    assert "Means by group of queries" in page
    row = page.split('<td class="id">hard (2 queries)</td><td>better</td>')[1].split("</tr>")[0]
    cells = row.replace("<td>", "").split("</td>")[:3]  # nDCG@10, AP, RR
    assert cells[1] == f"{mean:.4f}"


def test_only_the_store_is_served_and_only_to_its_host(store: Path) -> None:
    (store / "broken.json").write_text('{"format": "ranklens.results/1", "name": ')
    with serving(store) as base:
        status, index = fetch(base + "/")
        assert status == 200 and "broken.json:1: is not JSON" in index and "first" in index
        assert fetch(base + "/results/first.json")[1] == (store / "first.json").read_text()
        assert fetch(base + "/results/first.json.meta.json")[0] == 404
        assert fetch(base + f"/results/{os.pardir}/data/qrels.txt")[0] == 404
        assert fetch(base + "/experiment/nope.json")[0] == 404
        assert fetch(base + "/nothing")[0] == 404
        assert fetch(base + "/", host="attacker.example:80")[0] == 403
        port = base.rsplit(":", 1)[1]
        assert fetch(base + "/", host=f"localhost:{port}")[0] == 200


def test_serve_binds_to_localhost_by_default(store: Path) -> None:
    server = make_server(store, port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()


def test_a_port_in_use_and_a_folder_without_results_exit_2(store: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run_cli(["serve", str(store), "--port", str(port)])
    assert (code, out) == (2, "")
    assert err == (
        f"ranklens: error: port {port} on 127.0.0.1 is in use: choose another with --port "
        "(--port 0 picks a free one)\n"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "other.json").write_text('{"not": "results"}')
    code, _, err = run_cli(["serve", str(empty), "--port", "0"])
    assert code == 2 and "holds no ranklens results file" in err and len(err.splitlines()) == 1
    code, _, err = run_cli(["serve", str(tmp_path / "missing"), "--port", "0"])
    assert code == 2 and "is not a folder" in err


def test_the_command_serves_until_interrupted(store: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "ranklens", "serve", str(store), "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert (
            line
            == f"ranklens: serving 2 results files of {store} at http://127.0.0.1:{port}/ (Ctrl-C stops)\n"
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                status, page = fetch(f"http://127.0.0.1:{port}/")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        assert status == 200 and "first" in page and "second" in page
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        if process.stderr is not None:
            process.stderr.close()
