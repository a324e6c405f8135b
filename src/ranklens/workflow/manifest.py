"""An experiment written down: the manifest that ``ranklens run`` reads (YAML or TOML).

.. code-block:: yaml

    qrels: qrels.txt
    runs: {bm25: bm25.run, rerank: rerank.run}
    measures: [nDCG@10, AP]
    compare: {baseline: bm25, test: t}
    output: results/first.json

The keys (only ``qrels``, ``runs`` and ``measures`` are required):

=============  ===========================================================================
name           the experiment's name (default: the manifest's file stem)
qrels          the judgments file
runs           ``{name: run file}``
measures       a list of measures (or one comma-separated string)
conventions    ``{ties, queries, depth, duplicates}`` as for ``ranklens eval``
compare        ``{baseline, test, correction, alpha, confidence, permutations, seed,
               all_pairs, ...}``: the options of :func:`~ranklens.analysis.comparison
               .compare_results` (:func:`compare_keys`; ``true``: the defaults)
groups         ``{group: [query id, ...] or a file of query ids}``: the means per group
report         an HTML report's path, or ``{path, title, plots, explain_limit}``
mlflow         ``{experiment, run_name, tracking_uri}`` (``true``: MLflow's defaults)
output         the results file (default: ``<manifest stem>.results.json`` beside it)
=============  ===========================================================================

Paths are relative to the manifest's folder. Any other key, a missing file, an unknown
measure are refused with one line naming the manifest.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ranklens.base.errors import InputError, MeasureError, MissingDependencyError, ParseError

KEYS = (
    "name",
    "qrels",
    "runs",
    "measures",
    "conventions",
    "compare",
    "groups",
    "report",
    "mlflow",
    "output",
)
CONVENTION_KEYS = ("ties", "queries", "depth", "duplicates")
REPORT_KEYS = ("path", "title", "plots", "explain_limit")
MLFLOW_KEYS = ("experiment", "run_name", "tracking_uri")


@dataclass(frozen=True)
class Manifest:
    """A manifest read and checked (every path as written, relative to :attr:`folder`).

    Attributes
    ----------
    path : the manifest file.
    name : the experiment's name.
    qrels : the judgments file.
    runs : ``{name: run file}``, in the manifest's order.
    measures : the canonical names of the measures.
    conventions : the evaluation conventions given (``ties``, ``queries``, ...).
    compare : the comparison's options, or ``None`` for no comparison.
    groups : ``{group: query ids}`` (a file named in the manifest is read).
    group_files : ``{group: file}`` for the groups given as files.
    report : ``{path, title, plots, explain_limit}`` given, or ``None``.
    mlflow : ``{experiment, run_name, tracking_uri}`` given, or ``None``.
    output : the results file.
    """

    path: str
    name: str
    qrels: str
    runs: dict[str, str]
    measures: tuple[str, ...]
    conventions: dict[str, Any] = field(default_factory=dict)
    compare: dict[str, Any] | None = None
    groups: dict[str, tuple[str, ...]] = field(default_factory=dict)
    group_files: dict[str, str] = field(default_factory=dict)
    report: dict[str, Any] | None = None
    mlflow: dict[str, Any] | None = None
    output: str = ""

    @property
    def folder(self) -> str:
        """The manifest's folder, which its paths are relative to."""
        return os.path.dirname(os.path.abspath(self.path))

    def resolve(self, path: str) -> str:
        """``path`` (as written in the manifest) from the current directory."""
        return os.path.normpath(os.path.join(self.folder, os.path.expanduser(path)))

    def inputs(self) -> dict[str, str]:
        """Every input file by its role (``qrels``, ``run:NAME``, ``group:NAME``), as
        written."""
        out = {"qrels": self.qrels}
        out.update({f"run:{n}": p for n, p in self.runs.items()})
        out.update({f"group:{n}": p for n, p in self.group_files.items()})
        return out


def load_document(path: str) -> dict[str, Any]:
    """The manifest's mapping, read as YAML (``.yaml``/``.yml``) or TOML (``.toml``).

    Raises
    ------
    InputError
        Another suffix, a missing file, text that is not YAML/TOML, or no mapping at the
        top.
    """
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in (".yaml", ".yml", ".toml"):
        raise InputError(
            "a manifest is a YAML (.yaml, .yml) or TOML (.toml) file; name it so", path=path
        )
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise InputError("no such manifest; check the path", path=path) from None
    except OSError as exc:
        raise InputError(f"cannot read the manifest: {exc.strerror or exc}", path=path) from None
    loaded = _parsed(raw, path, "TOML" if suffix == ".toml" else "YAML")
    if not isinstance(loaded, dict):
        raise InputError(
            "a manifest is a mapping of keys (qrels, runs, measures, ...), not "
            f"{type(loaded).__name__}",
            path=path,
        )
    return loaded


def _parser(kind: str) -> tuple[Any, type[Exception]]:
    """The function that reads ``kind`` (YAML or TOML) text, and the error it raises."""
    import importlib

    if kind == "YAML":
        try:
            yaml = importlib.import_module("yaml")
        except ImportError as exc:
            raise MissingDependencyError(
                "a YAML manifest needs PyYAML, which is not installed: pip install pyyaml (or "
                "write the manifest as TOML)"
            ) from exc
        return yaml.safe_load, yaml.YAMLError
    name = "tomllib" if sys.version_info >= (3, 11) else "tomli"
    try:
        toml = importlib.import_module(name)
    except ImportError as exc:  # Python 3.10 without tomli
        raise MissingDependencyError(
            "a TOML manifest needs tomli on Python 3.10: pip install tomli"
        ) from exc
    return toml.loads, toml.TOMLDecodeError


def _parsed(raw: bytes, path: str, kind: str) -> Any:
    """The manifest's text read as ``kind``; an error names the file and the line."""
    load, error = _parser(kind)
    try:
        return load(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ParseError("is not UTF-8 text", path=path) from None
    except error as exc:
        mark = getattr(exc, "problem_mark", None)  # YAML's; TOML's errors have lineno
        line = int(mark.line) + 1 if mark is not None else getattr(exc, "lineno", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0].split(" (at line")[0]
        raise ParseError(f"is not valid {kind} ({problem})", path=path, line=line) from None


def read_manifest(path: str | os.PathLike[str]) -> Manifest:
    """Read and check the manifest at ``path``: known keys, values of the right types,
    measures that parse, input files that exist.

    Raises
    ------
    InputError
        Any of these is not so; the message names the manifest and the key.
    """
    where = os.fspath(path)
    document = load_document(where)
    unknown = [k for k in document if k not in KEYS]
    if unknown:
        raise InputError(
            f"unknown key '{unknown[0]}' (a manifest has {', '.join(KEYS)})", path=where
        )
    for key in ("qrels", "runs", "measures"):
        if key not in document:
            raise InputError(
                f"the key '{key}' is missing (a manifest needs qrels, runs and measures)",
                path=where,
            )
    name = _text(document.get("name", _stem(where)), "name", where)
    qrels = _text(document["qrels"], "qrels", where)
    runs = _runs(document["runs"], where)
    measures = _measures(document["measures"], where)
    conventions = _options(document.get("conventions", {}), CONVENTION_KEYS, "conventions", where)
    compare = document.get("compare")
    compare = (
        None
        if compare in (None, False)
        else _options({} if compare is True else compare, compare_keys(), "compare", where)
    )
    if compare is not None and compare.get("baseline") not in (None, *runs):
        raise InputError(
            f"compare: baseline '{compare['baseline']}' is not one of the runs ({', '.join(runs)})",
            path=where,
        )
    if compare is not None and len(runs) < 2:
        raise InputError("compare needs at least 2 runs", path=where)
    report = document.get("report")
    if report is not None:
        report = {"path": report} if isinstance(report, str) else report
        report = _options(report, REPORT_KEYS, "report", where)
        if "path" not in report:
            raise InputError("report: give its path (report: {path: report.html})", path=where)
    mlflow = document.get("mlflow")
    mlflow = (
        None
        if mlflow in (None, False)
        else _options({} if mlflow is True else mlflow, MLFLOW_KEYS, "mlflow", where)
    )
    output = _text(document.get("output", f"{_stem(where)}.results.json"), "output", where)
    manifest = Manifest(
        where, name, qrels, runs, measures, conventions, compare, {}, {}, report, mlflow, output
    )
    for role, relative in manifest.inputs().items():
        _exists(manifest, role, relative)
    groups, group_files = _groups(document.get("groups", {}), manifest)
    for role, relative in {f"group:{n}": p for n, p in group_files.items()}.items():
        _exists(manifest, role, relative)
    return Manifest(
        where,
        name,
        qrels,
        runs,
        measures,
        conventions,
        compare,
        groups,
        group_files,
        report,
        mlflow,
        output,
    )


def compare_keys() -> tuple[str, ...]:
    """The keys of ``compare``: the options of :func:`ranklens.analysis.comparison
    .compare_results` (the test, the correction, the baseline ...), but the inputs."""
    import inspect

    from ranklens.analysis.comparison import compare_results

    inputs = ("results", "measures", "names", "correlate", "correlate_with", "qrels_labels")
    parameters = inspect.signature(compare_results).parameters
    return tuple(p for p in parameters if p not in (*inputs, "progress"))


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _text(value: Any, key: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"'{key}' must be a non-empty string, not {value!r:.60}", path=where)
    return value


def _runs(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping) or not value:
        raise InputError("'runs' must map run names to run files ({bm25: bm25.run})", path=where)
    return {str(k): _text(v, f"runs.{k}", where) for k, v in value.items()}


def _measures(value: Any, where: str) -> tuple[str, ...]:
    """The canonical names of the measures: a list, or one string (separated as the
    measure language separates them); trec_eval's names stand for all they name
    (``P.5,10`` is P@5 and P@10)."""
    from ranklens.measures.language import parse_measures

    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise InputError("'measures' must be a list of measure names ([nDCG@10, AP])", path=where)
    try:
        return tuple(dict.fromkeys(m.name for m in parse_measures(names)))
    except MeasureError as exc:
        raise InputError(f"measures: {exc}", path=where) from None


def _options(value: Any, keys: tuple[str, ...], what: str, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"'{what}' must be a mapping of {', '.join(keys)}", path=where)
    unknown = [k for k in value if k not in keys]
    if unknown:
        raise InputError(
            f"{what}: unknown key '{unknown[0]}' (it takes {', '.join(keys)})", path=where
        )
    return {k: value[k] for k in keys if k in value}


def _groups(value: Any, manifest: Manifest) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    where = manifest.path
    if not isinstance(value, Mapping):
        raise InputError("'groups' must map group names to query ids or files", path=where)
    groups: dict[str, tuple[str, ...]] = {}
    files: dict[str, str] = {}
    for name, given in value.items():
        if isinstance(given, str):
            _exists(manifest, f"group:{name}", given)
            files[str(name)] = given
            with open(manifest.resolve(given), encoding="utf-8") as handle:
                lines = [line.split() for line in handle]
            groups[str(name)] = tuple(f[0] for f in lines if f and not f[0].startswith("#"))
        elif isinstance(given, list) and all(isinstance(q, str | int) for q in given):
            groups[str(name)] = tuple(str(q) for q in given)
        else:
            raise InputError(
                f"groups.{name} must be a list of query ids or a file of them", path=where
            )
    return groups, files


def _exists(manifest: Manifest, role: str, relative: str) -> None:
    target = manifest.resolve(relative)
    if not os.path.isfile(target):
        what = role.replace(":", " ")
        raise InputError(
            f"{what} file '{relative}' does not exist (looked for {target}; paths are relative "
            "to the manifest's folder)",
            path=manifest.path,
        )
