"""Run a peer library's own test suite against ranklens' drop-in module, and on the peer.

The peer's tests run unchanged from a checkout of its repository (at the tag of the
installed version), once on the peer itself and once with the peer's modules resolved to
ranklens' (``torchmetrics.retrieval`` and ``torchmetrics.functional.retrieval`` become
``ranklens.compat.torchmetrics`` and ``ranklens.compat.torchmetrics.functional``); the
script prints the counts of both runs and every test that passes on the peer but not on
ranklens, marked as a documented difference (docs/coming-from.md) or not::

    git clone --branch v1.9.0 https://github.com/Lightning-AI/torchmetrics /tmp/torchmetrics
    nice python tools/run_peer_suite.py torchmetrics --checkout /tmp/torchmetrics
    python tools/run_peer_suite.py torchmetrics --checkout /tmp/torchmetrics --sample 400

    git clone https://github.com/AmenRa/ranx /tmp/ranx  # no tags; tests/ unchanged since
    python tools/run_peer_suite.py ranx --checkout /tmp/ranx  # f60b1ac (2024-07-01)

For ranx every ``ranx`` module is resolved to the ``ranklens.compat.ranx`` module of the
same name and ranx itself is never imported on that side; its suite runs from a copy of
the checkout's ``tests/`` (it writes files there, and the checkout's ``ranx/`` sources
would shadow the installed ranx on the peer's side).

``--sample N`` runs a deterministic sample of N tests (the same ids on both sides, chosen by
a hash of the seed and each test id, so a sample does not move when tests are added
elsewhere); without it the whole suite runs. ``--against peer`` or ``--against ranklens``
runs one side only; ``--json FILE`` writes every test's outcome on each side, and ``--load
FILE`` takes a side from such a file instead of running it (the two sides of the whole
suite can run at different times); arguments after ``--`` go to pytest (``-- -k ndcg``).

Each peer is one entry of :data:`PEERS`: where its suite lies in its checkout, how its
modules are replaced, the test-only packages that may be stood in for when they are not
installed, and the documented differences (test ids, with the reason). The same file is
the pytest plugin that does the replacing, sampling and recording inside the pytest
process (loaded with ``-p run_peer_suite``, configured through ``RANKLENS_PEER_SUITE``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import importlib.util
import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import tempfile
import types
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CONFIG_VARIABLE = "RANKLENS_PEER_SUITE"
"""The environment variable that configures the plugin inside the pytest process."""


@dataclass(frozen=True)
class PeerSuite:
    """One peer: its suite, the replacement of its modules and the documented differences.

    Attributes
    ----------
    package
        The peer's distribution and import name.
    tests
        The suite, relative to ``rootdir``.
    rootdir
        Where pytest runs, relative to the checkout (the peer's tests import their helpers
        from there).
    redirect
        Replaces the peer's modules by ranklens' in ``sys.modules`` (runs in the pytest
        process before any test module is imported); returns ``{public name: the module
        of ranklens' object}``, ``""`` where ranklens has none.
    pytest_args
        Options the peer's own configuration needs or must be without.
    stand_ins
        Test-only packages of the peer's suite that do not change what is tested (a cache
        of reference results, say), given as source code used only when the package is
        not installed.
    differences
        ``{regular expression of test ids: reason}``: the tests that fail on ranklens on
        purpose, each named in docs/coming-from.md with the same reason.
    copy
        Paths of the checkout (relative to it) copied into a scratch folder where the suite
        then runs: for a suite that writes files beside itself, or whose checkout holds the
        peer's sources (which would shadow the installed package); empty: run in place.
    """

    package: str
    tests: str
    rootdir: str
    redirect: Callable[[], dict[str, str]]
    pytest_args: tuple[str, ...] = ()
    stand_ins: dict[str, str] = field(default_factory=dict)
    differences: dict[str, str] = field(default_factory=dict)
    copy: tuple[str, ...] = ()


def alias_modules(prefixes: list[str], replacements: dict[str, Any], public: set[str]) -> list[str]:
    """Put in ``sys.modules``, for every module under ``prefixes`` (each imported first,
    its submodules too), a copy of it in which each name of ``public`` is ranklens' object
    (from ``replacements``) or absent where ranklens has none; every other name (private
    helpers, imported utilities) stays the peer's. Returns the modules replaced."""
    names: list[str] = []
    for prefix in prefixes:
        package = importlib.import_module(prefix)
        names.append(prefix)
        for info in pkgutil.walk_packages(getattr(package, "__path__", []), prefix + "."):
            importlib.import_module(info.name)
            names.append(info.name)
    for name in names:
        original = sys.modules[name]
        alias = types.ModuleType(name, original.__doc__)
        for key, value in vars(original).items():
            if key in public:
                if key in replacements:
                    setattr(alias, key, replacements[key])
            elif key not in ("__name__", "__doc__"):
                setattr(alias, key, value)
        alias.__dict__["__ranklens_redirect__"] = True
        sys.modules[name] = alias
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, alias)
    return names


def redirect_torchmetrics() -> dict[str, str]:
    """``torchmetrics.retrieval`` (and its modules) to ``ranklens.compat.torchmetrics``,
    ``torchmetrics.functional.retrieval`` to ``ranklens.compat.torchmetrics.functional``."""
    classes = importlib.import_module("torchmetrics.retrieval")
    functions = importlib.import_module("torchmetrics.functional.retrieval")
    compat = importlib.import_module("ranklens.compat.torchmetrics")
    functional = importlib.import_module("ranklens.compat.torchmetrics.functional")
    public = set(classes.__all__) | set(functions.__all__)
    replacements = {n: getattr(compat, n) for n in classes.__all__ if hasattr(compat, n)}
    replacements.update(
        {n: getattr(functional, n) for n in functions.__all__ if hasattr(functional, n)}
    )
    alias_modules(
        ["torchmetrics.retrieval", "torchmetrics.functional.retrieval"], replacements, public
    )
    return {name: getattr(replacements.get(name), "__module__", "") for name in sorted(public)}


class _BlockPeer:
    """A ``sys.meta_path`` finder that refuses a peer's modules ranklens has no counterpart
    of (so that the peer itself is never imported in their place)."""

    def __init__(self, package: str, replacement: str) -> None:
        self.package = package
        self.replacement = replacement

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname == self.package or fullname.startswith(self.package + "."):
            raise ModuleNotFoundError(
                f"{fullname} has no counterpart in {self.replacement}", name=fullname
            )


def _module_names(package: str) -> list[str]:
    """The modules of an installed package, from its files (nothing is imported)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return [package]
    root = Path(next(iter(spec.submodule_search_locations)))
    names = []
    for file in sorted(root.rglob("*.py")):
        parts = file.relative_to(root).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join((package, *parts)))
    return names


def redirect_ranx() -> dict[str, str]:
    """Every ``ranx`` module to the ``ranklens.compat.ranx`` module of the same name
    (``ranx.metrics.ndcg`` is ``ranklens.compat.ranx.metrics.ndcg``); a ranx module without
    one cannot be imported: ranx itself is never loaded. Returns ``{ranx's module: its
    counterpart}`` over the modules of the installed ranx (``""``: none)."""
    prefix = "ranklens.compat.ranx"
    compat = importlib.import_module(prefix)
    modules = {"ranx": compat}
    for info in pkgutil.walk_packages(compat.__path__, prefix + "."):
        if any(part.startswith("_") for part in info.name[len(prefix) + 1 :].split(".")):
            continue  # private helpers of the module, no ranx counterpart
        modules["ranx" + info.name[len(prefix) :]] = importlib.import_module(info.name)
    theirs = _module_names("ranx")  # before blocking: found on disk, not imported
    sys.modules.update(modules)
    sys.meta_path.insert(0, _BlockPeer("ranx", prefix))
    return {name: modules[name].__name__ if name in modules else "" for name in theirs}


_CACHIER_STAND_IN = '''"""Stand-in for cachier (a disk cache of reference values): none."""


def cachier(**kwargs):
    return lambda function: function
'''

RANX_DIFFERENCES: dict[str, str] = {
    r"fusion/bayesfuse_test\.py::test_estimate_log_odds$": (
        "ranx's private numba helper _estimate_log_odds: its test compares the log-odds with =="
        " to a value summed in ranx's order; ranklens' estimate differs in the last bit"
        " (at most 2.5e-16)"
    ),
    r"fusion/condorcet_test\.py::test_get_(candidates|results)$": (
        "ranx's private numba helpers of condorcet take a numba.typed.List of ranx's numba"
        " typed dicts (Run.run); ranklens' Run.run is a plain dict, which numba cannot type"
    ),
}
"""The tests of ranx's suite that pass on ranx and not on ``ranklens.compat.ranx``, each
with its reason (docs/coming-from.md, "Coming from ranx", lists the same)."""


PEERS: dict[str, PeerSuite] = {
    "ranx": PeerSuite(
        package="ranx",
        tests="tests",
        rootdir=".",
        redirect=redirect_ranx,
        # the suite writes files into tests/unit/ranx/test_data, and the checkout's ranx/
        # sources would shadow the installed ranx on the peer's side
        copy=("tests", "conftest.py"),
        differences=RANX_DIFFERENCES,
    ),
    "torchmetrics": PeerSuite(
        package="torchmetrics",
        tests="unittests/retrieval",
        rootdir="tests",
        redirect=redirect_torchmetrics,
        # its pyproject adds doctest options (pytest-doctestplus) that the suite does not need
        pytest_args=("-o", "addopts=", "-o", "xfail_strict=true"),
        stand_ins={"cachier": _CACHIER_STAND_IN},
        # none: no test of torchmetrics 1.9's retrieval suite meets a deliberate difference
        # (docs/coming-from.md lists them; the suite's scores have no ties and its float
        # targets are nDCG gains, which the module takes as torchmetrics does)
        differences={},
    ),
}


# --- the pytest plugin (runs inside the pytest process) ---------------------------------


def _settings() -> dict[str, Any] | None:
    text = os.environ.get(CONFIG_VARIABLE)
    return json.loads(text) if text else None


def _sample_key(seed: int, nodeid: str) -> str:
    return hashlib.sha256(f"{seed}:{nodeid}".encode()).hexdigest()


def _message(report: Any) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(crash.message if crash is not None else report.longrepr or "").strip()
    return text.splitlines()[0][:300] if text else ""


class Recorder:
    """Samples the collected tests and records each one's outcome (the plugin's state)."""

    def __init__(self, settings: dict[str, Any], redirected: dict[str, str]) -> None:
        self.settings = settings
        self.redirected = redirected
        self.collected = 0
        self.outcomes: dict[str, dict[str, str]] = {}

    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        """Keep the ``sample`` tests with the smallest hashes of (seed, test id)."""
        self.collected = len(items)
        sample = self.settings.get("sample")
        if not sample or sample >= len(items):
            return
        seed = self.settings.get("seed", 0)
        ranked = sorted(items, key=lambda item: _sample_key(seed, item.nodeid))
        chosen = {item.nodeid for item in ranked[:sample]}
        config.hook.pytest_deselected(items=[i for i in items if i.nodeid not in chosen])
        items[:] = [item for item in items if item.nodeid in chosen]

    def pytest_runtest_logreport(self, report: Any) -> None:
        """passed, failed, skipped, xfailed or xpassed (the call); error (a failed setup
        or teardown)."""
        if report.when == "call":
            if hasattr(report, "wasxfail"):
                outcome = "xfailed" if report.skipped else "xpassed"
            else:
                outcome = report.outcome
            self.outcomes[report.nodeid] = {"outcome": outcome, "message": _message(report)}
        elif report.failed:
            self.outcomes[report.nodeid] = {"outcome": "error", "message": _message(report)}
        elif report.skipped and report.when == "setup":
            self.outcomes[report.nodeid] = {"outcome": "skipped", "message": _message(report)}

    def pytest_sessionfinish(self, session: Any, exitstatus: int) -> None:
        """Write the outcomes and the number of tests collected to the report file."""
        with open(self.settings["report"], "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "collected": self.collected,
                    "redirected": self.redirected,
                    "outcomes": self.outcomes,
                },
                handle,
            )


def pytest_load_initial_conftests(early_config: Any, parser: Any, args: list[str]) -> None:
    """Replace the peer's modules (against ranklens) before the peer's conftests and tests
    are imported, and register the recorder."""
    settings = _settings()
    if settings is None:
        return
    redirected = PEERS[settings["peer"]].redirect() if settings["against"] == "ranklens" else {}
    early_config.pluginmanager.register(Recorder(settings, redirected), "ranklens-peer-recorder")


# --- the command ------------------------------------------------------------------------


def run_side(
    peer: PeerSuite,
    checkout: Path,
    against: str,
    sample: int | None,
    seed: int,
    extra: list[str],
) -> dict[str, Any]:
    """Run the suite once (``against`` the peer or ranklens) in a pytest subprocess."""
    with tempfile.TemporaryDirectory(prefix="peer-suite-") as scratch:
        paths = [str(Path(__file__).resolve().parent)]
        for name, source in peer.stand_ins.items():
            if importlib.util.find_spec(name) is None:
                Path(scratch, f"{name}.py").write_text(source, encoding="utf-8")
                if scratch not in paths:
                    paths.append(scratch)
        report = Path(scratch, "report.json")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env[CONFIG_VARIABLE] = json.dumps(
            {
                "peer": peer.package,
                "against": against,
                "sample": sample,
                "seed": seed,
                "report": str(report),
            }
        )
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "--tb=no",
            "--disable-warnings",
            "-p",
            "no:cacheprovider",
            "-p",
            "run_peer_suite",
            *peer.pytest_args,
            peer.tests,
            *extra,
        ]
        where = checkout
        if peer.copy:
            where = Path(scratch, "checkout")
            for part in peer.copy:
                original = checkout / part
                if original.is_dir():
                    shutil.copytree(original, where / part)
                else:
                    (where / part).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(original, where / part)
        finished = subprocess.run(
            command, cwd=where / peer.rootdir, env=env, capture_output=True, text=True
        )
        if not report.exists():
            raise SystemExit(
                f"pytest against {against} wrote no report (exit {finished.returncode}):\n"
                + (finished.stdout + finished.stderr)[-3000:]
            )
        result: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
        result["summary"] = (finished.stdout.strip().splitlines() or [""])[-1]
        return result


def _counts(outcomes: dict[str, dict[str, str]]) -> Counter[str]:
    return Counter(entry["outcome"] for entry in outcomes.values())


def _difference(peer: PeerSuite, nodeid: str) -> str | None:
    for pattern, reason in peer.differences.items():
        if re.search(pattern, nodeid):
            return reason
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("peer", choices=sorted(PEERS))
    parser.add_argument("--checkout", required=True, type=Path, help="the peer's repository")
    parser.add_argument("--against", choices=["both", "peer", "ranklens"], default="both")
    parser.add_argument("--sample", type=int, default=None, help="run N tests (deterministic)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--json", type=Path, default=None, help="write every outcome here")
    parser.add_argument(
        "--load",
        type=Path,
        action="append",
        default=[],
        help="take a side's outcomes from an earlier --json file instead of running it",
    )
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: len(argv) - len(extra) - (1 if extra else 0)])
    peer = PEERS[args.peer]
    sides = ["peer", "ranklens"] if args.against == "both" else [args.against]
    loaded: dict[str, Any] = {}
    for path in args.load:
        loaded.update(json.loads(path.read_text(encoding="utf-8")))
    results = {
        side: loaded[side]
        if side in loaded
        else run_side(peer, args.checkout, side, args.sample, args.seed, extra)
        for side in sides
    }
    version = importlib.metadata.version(peer.package)
    first = results[sides[0]]
    run = len(first["outcomes"])
    scope = f"a sample of {run} (seed {args.seed})" if args.sample else f"{run} run"
    print(
        f"{peer.package} {version}'s suite ({peer.rootdir}/{peer.tests} in {args.checkout}): "
        f"{first['collected']} tests collected, {scope}"
    )
    if "ranklens" in results:
        redirected = results["ranklens"]["redirected"]
        absent = [name for name, module in redirected.items() if not module]
        print(
            f"{len(redirected) - len(absent)} of the peer's {len(redirected)} public names "
            "resolved to ranklens' objects"
            + (f"; without a ranklens counterpart: {', '.join(absent)}" if absent else "")
        )
    kinds = ["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
    print(f"{'run against':<14}" + "".join(f"{k:>9}" for k in kinds))
    for side in sides:
        label = peer.package if side == "peer" else "ranklens"
        counts = _counts(results[side]["outcomes"])
        print(f"{label:<14}" + "".join(f"{counts.get(k, 0):>9}" for k in kinds))
    if len(sides) == 2:
        theirs, ours = results["peer"]["outcomes"], results["ranklens"]["outcomes"]
        passing = [n for n, e in theirs.items() if e["outcome"] == "passed"]
        lost = [n for n in passing if ours.get(n, {}).get("outcome") != "passed"]
        documented = {n: _difference(peer, n) for n in lost}
        undocumented = [n for n in lost if documented[n] is None]
        print(
            f"passing on {peer.package}: {len(passing)}; also on ranklens: "
            f"{len(passing) - len(lost)}; documented differences: "
            f"{len(lost) - len(undocumented)}; undocumented: {len(undocumented)}"
        )
        reasons = Counter(reason for reason in documented.values() if reason is not None)
        for reason, count in sorted(reasons.items()):
            print(f"  documented ({count}): {reason}")
        for nodeid in undocumented:
            print(f"  UNDOCUMENTED {nodeid}: {ours.get(nodeid, {}).get('message', 'not run')}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
