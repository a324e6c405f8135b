"""A local web page over a results store: ``ranklens serve DIR``.

The pages (standard library :mod:`http.server`, nothing loaded from the network):

- ``/``: every results file under the folder: each experiment's runs and measures, its
  means with the comparison against the baseline (Δ, corrected p-value, significance),
  the inputs' hashes, and a form to tell two experiments apart;
- ``/experiment/<path>``: the HTML report of one experiment (:mod:`ranklens.presentation
  .reporting`), rendered on request: from its input files when they are all there and
  unchanged (their sha256 as recorded), with the worked computations and every plot;
  else from the numbers stored in the results file (summary, significance, per-topic
  distributions, the per-query table);
- ``/results/<path>``: the results file itself;
- ``/diff?a=<path>&b=<path>``: what changed between two results files, and why.

The server binds to 127.0.0.1 by default, answers only requests addressed to that host
(a page of another site cannot reach it through a DNS name of its own), and serves only
the results files it found.
"""

from __future__ import annotations

import errno
import html
import importlib.util
import os
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from ranklens.base.errors import InputError, OptionError
from ranklens.workflow.store import find_results, load_results, sha256_of, stored_results

PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'self'"
)


class ResultsStore:
    """The results files under a folder, read when asked, and their rendered reports
    (kept until the file changes)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = os.path.abspath(os.fspath(folder))
        if not os.path.isdir(self.folder):
            raise InputError(
                "is not a folder; give the folder of the results files", path=os.fspath(folder)
            )
        self._reports: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def paths(self) -> list[str]:
        """The results files, relative to the folder (POSIX separators)."""
        return [
            os.path.relpath(p, self.folder).replace(os.sep, "/") for p in find_results(self.folder)
        ]

    def document(self, relative: str) -> dict[str, Any] | None:
        """The results document at ``relative``, or ``None`` when it is not one of them."""
        if relative not in self.paths():
            return None
        return load_results(os.path.join(self.folder, relative))

    def report(self, relative: str) -> str | None:
        """The HTML report of the experiment at ``relative`` (``None``: no such file)."""
        document = self.document(relative)
        if document is None:
            return None
        path = os.path.join(self.folder, relative)
        stamp = os.stat(path).st_mtime
        with self._lock:  # one report at a time (matplotlib draws in one thread)
            kept = self._reports.get(relative)
            if kept is None or kept[0] != stamp:
                kept = (stamp, _with_back_link(render_report(path, document)))
                self._reports[relative] = kept
            return kept[1]


def input_paths(results_path: str, document: dict[str, Any]) -> dict[str, str] | None:
    """The input files of a results document as paths from here, when every one is there
    with the hash recorded; else ``None``."""
    manifest = document.get("manifest", {}).get("path")
    if not manifest:
        return None
    folder = os.path.dirname(
        os.path.normpath(os.path.join(os.path.dirname(results_path), manifest))
    )
    out = {}
    for role, entry in document.get("inputs", {}).items():
        path = os.path.normpath(os.path.join(folder, entry["path"]))
        if not os.path.isfile(path) or sha256_of(path) != entry["sha256"]:
            return None
        out[role] = path
    return out


def render_report(results_path: str, document: dict[str, Any]) -> str:
    """The HTML report of one experiment: from its input files when they are unchanged,
    else from the stored numbers (module docstring)."""
    from ranklens.presentation.reporting import build_report, build_scores_report
    from ranklens.workflow.experiment import report_options

    plots = importlib.util.find_spec("matplotlib") is not None
    options = document["options"]
    chosen = dict(options.get("compare") or {})
    title = f"{document['name']} ({os.path.basename(results_path)})"
    paths = input_paths(results_path, document)
    if paths is not None:
        runs = {role.split(":", 1)[1]: p for role, p in paths.items() if role.startswith("run:")}
        return build_report(
            paths["qrels"],
            runs,
            options["measures"],
            title=title,
            plots=plots,
            **report_options(document),
        )
    results = stored_results(document)
    comparison = None
    if chosen and len(results) > 1:
        from ranklens.analysis.comparison import compare_results

        comparison = compare_results(results, **chosen)
    return build_scores_report(results, comparison, title=title, plots=plots)


def _with_back_link(page: str) -> str:
    return page.replace("<body>", '<body><p class="meta"><a href="/">← all experiments</a></p>', 1)


def _page(title: str, body: str) -> str:
    from ranklens.presentation.reporting._assets import STYLE

    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{PAGE_POLICY}">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{body}</body></html>\n"
    )


def _fmt(value: Any) -> str:
    return "-" if not isinstance(value, int | float) else f"{value:.4f}"


def index_page(store: ResultsStore) -> str:
    """The page of every experiment of the store."""
    from ranklens.presentation.reporting._page import table

    paths = store.paths()
    sections = []
    for relative in paths:
        try:
            document = load_results(os.path.join(store.folder, relative))
        except InputError as exc:  # one broken file, not the page
            sections.append(f"<h2>{html.escape(relative)}</h2><p>{html.escape(str(exc))}</p>")
            continue
        link = f"/experiment/{quote(relative)}"
        comparison = document.get("comparison") or {}
        stats = {r["name"]: r.get("vs_baseline", {}) for r in comparison.get("runs", [])}
        measures = document["options"]["measures"]
        rows = []
        for run, entry in document["runs"].items():
            cells = [html.escape(run)]
            for m in measures:
                st = stats.get(run, {}).get(m)
                mark = ""
                if st is not None and st.get("p_value_corrected") is not None:
                    significant = st["p_value_corrected"] <= comparison.get("alpha", 0.05)
                    arrow = "▲" if (st.get("delta") or 0) > 0 else "▼"
                    mark = (
                        f' <sup title="Δ {_fmt(st.get("delta"))}, p corrected '
                        f'{st["p_value_corrected"]:.4g}">{arrow if significant else ""}'
                        f"p={st['p_value_corrected']:.3g}</sup>"
                    )
                cells.append(f"{_fmt(entry['aggregate'].get(m))}{mark}")
            rows.append(cells)
        inputs = ", ".join(
            f"{html.escape(role)}: {html.escape(e['path'])} <code>{e['sha256'][:12]}</code>"
            for role, e in document["inputs"].items()
        )
        baseline = comparison.get("baseline")
        against = (
            f"compared with {html.escape(str(baseline))} ({html.escape(comparison['test'])} "
            f"test, {html.escape(comparison['correction'])} correction; ▲/▼ significant)"
            if baseline
            else "no comparison"
        )
        groups = _groups_table(document, measures)
        sections.append(
            f'<h2 id="{html.escape(relative)}"><a href="{link}">{html.escape(document["name"])}'
            f'</a></h2><p class="meta">{html.escape(relative)} · ranklens '
            f"{html.escape(document['ranklens'])} · {against} · "
            f'<a href="/results/{quote(relative)}">results file</a></p>'
            + table(["run", *map(html.escape, measures)], rows)
            + groups
            + f'<p class="note">inputs: {inputs}</p>'
        )
    options = "".join(f"<option>{html.escape(p)}</option>" for p in paths)
    form = (
        '<form method="get" action="/diff"><p>What changed between '
        f'<select name="a" aria-label="first results file">{options}</select> and '
        f'<select name="b" aria-label="second results file">{options}</select> '
        '<button type="submit">diff</button></p></form>'
        if len(paths) > 1
        else ""
    )
    count = f'<p class="meta">{len(paths)} experiments under {html.escape(store.folder)}</p>'
    return _page("ranklens experiments", count + form + "".join(sections))


def _groups_table(document: dict[str, Any], measures: list[str]) -> str:
    """The means over each group of queries, a row per group and run ('' without groups)."""
    from ranklens.presentation.reporting._page import table

    rows = [
        [f"{html.escape(group)} ({entry['queries']} queries)", html.escape(run)]
        + [_fmt(means.get(m)) for m in measures]
        for group, entry in document.get("groups", {}).items()
        for run, means in entry["runs"].items()
    ]
    if not rows:
        return ""
    return "<h3>Means by group of queries</h3>" + table(
        ["group", "run", *map(html.escape, measures)], rows
    )


def diff_page(store: ResultsStore, a: str, b: str) -> str | None:
    """The page of what changed between the results files ``a`` and ``b``."""
    from ranklens.workflow.diff import diff_results

    first, second = store.document(a), store.document(b)
    if first is None or second is None:
        return None
    lines = diff_results(first, second).lines()
    body = (
        "<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in lines) + "</ul>"
        if lines
        else "<p>The two results files hold the same numbers, made the same way.</p>"
    )
    back = '<p class="meta"><a href="/">← all experiments</a></p>'
    return _page(f"{a} → {b}", back + body)


def make_server(
    folder: str | os.PathLike[str],
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    log: Callable[[str], None] | None = None,
) -> ThreadingHTTPServer:
    """A server of the results under ``folder`` at ``host:port`` (``port`` 0: a free one;
    the server's ``server_address`` says which), ready for ``serve_forever()``.

    Raises
    ------
    InputError
        ``folder`` is not a folder, or holds no results file.
    OptionError
        The port is in use or may not be bound.
    """
    store = ResultsStore(folder)
    if not store.paths():
        raise InputError(
            "holds no ranklens results file (the .json files 'ranklens run MANIFEST' writes); "
            "run a manifest first, or give the folder its output went to",
            path=os.fspath(folder),
        )
    say: Callable[[str], None] = log or (lambda _line: None)
    handler = type("Handler", (_Handler,), {"store": store, "say": staticmethod(say)})
    try:
        server = ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise OptionError(
                f"port {port} on {host} is in use: choose another with --port (--port 0 "
                "picks a free one)"
            ) from None
        raise OptionError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    server.daemon_threads = True
    return server


def address_of(server: Any) -> tuple[str, int]:
    """The host and port a server listens on."""
    host, port = server.server_address[:2]
    return str(host), int(port)


class _Handler(BaseHTTPRequestHandler):
    store: ResultsStore
    say: Callable[[str], None]

    def do_GET(self) -> None:
        if not self._host_allowed():
            self._send(403, "text/plain", "403: this server answers requests to its own host")
            return
        url = urlsplit(self.path)
        route = unquote(url.path)
        try:
            if route == "/":
                self._send(200, "text/html", index_page(self.store))
            elif route.startswith("/experiment/"):
                self._reply(self.store.report(route[len("/experiment/") :]), "text/html")
            elif route.startswith("/results/"):
                relative = route[len("/results/") :]
                found = relative in self.store.paths()
                text = None
                if found:
                    with open(os.path.join(self.store.folder, relative), encoding="utf-8") as f:
                        text = f.read()
                self._reply(text, "application/json")
            elif route == "/diff":
                query = parse_qs(url.query)
                a, b = query.get("a", [""])[0], query.get("b", [""])[0]
                self._reply(diff_page(self.store, a, b), "text/html")
            else:
                self._reply(None, "text/plain")
        except Exception as exc:  # one failing page, not the server
            self._send(500, "text/plain", f"500: {type(exc).__name__}: {exc}")

    def _host_allowed(self) -> bool:
        host, port = address_of(self.server)
        given = self.headers.get("Host", "")
        allowed = {f"{h}:{port}" for h in (host, "127.0.0.1", "localhost", "[::1]")}
        return given in allowed

    def _reply(self, text: str | None, kind: str) -> None:
        if text is None:
            self._send(404, "text/plain", "404: no such page or results file")
        else:
            self._send(200, kind, text)

    def _send(self, status: int, kind: str, text: str) -> None:
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        self.say(format % args)
