r"""``expeval [options] qrels run``: github.com/diazf/expeval's expected exposure evaluation
(Diaz et al., CIKM 2020; TREC Fair Ranking 2020-2021), its output line for line.

What expeval does, reproduced (docs/expeval.md has the full list, with the quirks):

* **qrels** ``qid groups docno rel`` (or ``qid docno rel``: no group, id -1); groups are
  integers joined by ``|``. Only grades above 0 are kept unless ``-C`` (complete
  judgments: every judged document is a candidate); a query without a kept judgment is not
  evaluated. A document judged twice takes the later kept grade and the union of groups.
* **runs** ``qid sample docno rank score [tag]``: one ranking per (query, sample), in rank
  order (ranks from 1, no gaps); the score and tag are ignored. A rank below 1 or repeated
  in a sample is reported on standard output (``invalid rank N``, ``duplicate item at
  position N``) and the line dropped. Queries without judgments are ignored.
* per query: EE-D (``disparity``), EE-R (``relevance``) and EE-L (``difference``),
  normalised unless ``-U``, printed ``name<TAB>qid<TAB>%f`` in the qrels' query order, no
  mean. A judged query the run lacks gets the upper bound of EE-D, the lower bound of EE-R,
  and, for EE-L, EE-R's upper bound.

Deliberate differences (where expeval stops with a Python traceback): a malformed line is a
one-line error naming the file and line; a sample with a gap in its ranks is an error naming
the query and sample; ``|`` or ``,`` may separate groups; blank lines are skipped; a
patience outside ``[0, 1)`` or an unknown user model is refused. Where expeval prints a
number that means nothing: a document twice in one sample (expeval adds both positions'
exposure, which puts EE-D and EE-R above 1) is an error naming both lines; a run without
any line, and qrels without a kept judgment (expeval prints the worst values for every
query, or nothing), are errors.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ranklens.base.errors import (
    DuplicateError,
    EmptyInputError,
    InputError,
    OptionError,
    ParseError,
)
from ranklens.data.source import read_bytes
from ranklens.kernels.exposure import (
    ExposureValues,
    UserModel,
    UserModelKind,
    Vector,
    document_bounds,
    exposure_values,
    grade_levels,
    group_bounds,
    group_exposure,
    run_exposure,
    target_exposure,
)

_INTEGER = re.compile(r"[+-]?[0-9]+")
NAMES = ("disparity", "relevance", "difference")


@dataclass(frozen=True)
class ExpevalOptions:
    """expeval's command-line options, and ranklens' corrections (``fixed``).

    ``model`` ``-u`` (``gerr`` or ``rbp``), ``patience`` ``-p``, ``utility`` ``-r``,
    ``binary`` ``-B``, ``groups`` ``-G``, ``complete`` ``-C``, ``normalise`` not ``-U``;
    ``fixed`` (``--fixed``) the corrected bounds and missing-query values;
    ``mean`` (``--mean``) three ``name<TAB>all<TAB>value`` lines at the end.
    """

    model: UserModelKind = "gerr"
    patience: float = 0.5
    utility: float = 0.5
    binary: bool = False
    groups: bool = False
    complete: bool = False
    normalise: bool = True
    fixed: bool = False
    mean: bool = False


@dataclass
class ExpevalQrels:
    """The kept judgments and group labels, per query in first-seen order."""

    grades: dict[str, dict[str, int]] = field(default_factory=dict)
    groups: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    name: str = ""
    lines: int = 0
    """The judgment lines read (kept or not)."""


@dataclass
class ExpevalRun:
    """The sampled rankings per query (``{qid: {sample: {rank: docno}}}``) and the
    messages expeval prints while reading them."""

    rankings: dict[str, dict[str, dict[int, str]]] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    name: str = ""
    lines: int = 0
    """The run lines read (kept or not)."""


def _lines(source: object) -> tuple[Iterator[tuple[int, list[str]]], str]:
    """The non-blank lines' (1-based number, fields), read one at a time."""
    data, name = read_bytes(source)
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape")

    def fields() -> Iterator[tuple[int, list[str]]]:
        for number, line in enumerate(text, 1):
            split = line.split()
            if split:
                yield number, split

    return fields(), name


def _is_integer(text: str) -> bool:
    return (text.isascii() and text.isdigit()) or _INTEGER.fullmatch(text) is not None


def _group_ids(text: str, name: str, number: int) -> list[int]:
    parts = re.split(r"[|,]", text)
    if not all(_INTEGER.fullmatch(p) for p in parts):
        raise ParseError(
            f"groups {text!r} are not integers joined by '|' (expeval's 'qid groups docno "
            "rel', e.g. '030 1|2 ZF08-175-870 1')",
            path=name,
            line=number,
        )
    return [int(p) for p in parts]


def read_expeval_qrels(
    source: object, binary: bool = False, complete: bool = False
) -> ExpevalQrels:
    """expeval's qrels: ``qid groups docno rel`` or ``qid docno rel`` lines."""
    lines, name = _lines(source)
    qrels = ExpevalQrels(name=name)
    for number, fields in lines:
        qrels.lines += 1
        if len(fields) == 3:
            qid, group_text, doc, rel_text = fields[0], "-1", fields[1], fields[2]
        elif len(fields) >= 4:
            qid, group_text, doc, rel_text = fields[:4]
        else:
            raise ParseError(
                f"expected 'qid groups docno rel' or 'qid docno rel', got {len(fields)} field(s)",
                path=name,
                line=number,
            )
        if not _is_integer(rel_text):
            raise ParseError(
                f"the relevance {rel_text!r} is not an integer", path=name, line=number
            )
        group_ids = _group_ids(group_text, name, number)
        rel = int(rel_text)
        if rel > 0 and binary:
            rel = 1
        if complete or rel > 0:
            qrels.grades.setdefault(qid, {})[doc] = rel
            labels = qrels.groups.setdefault(qid, {}).setdefault(doc, [])
            labels.extend(g for g in dict.fromkeys(group_ids) if g not in labels)
    return qrels


def read_expeval_run(source: object) -> ExpevalRun:
    """expeval's run: ``qid sample docno rank score [tag]`` lines.

    Raises
    ------
    ParseError
        A malformed line.
    DuplicateError
        A document twice in one sample (naming both lines).
    """
    lines, name = _lines(source)
    run = ExpevalRun(name=name)
    kept: dict[tuple[str, str, str], int] = {}  # (query, sample, document): its line
    for number, fields in lines:
        run.lines += 1
        if len(fields) < 5:
            raise ParseError(
                f"expected 'qid sample docno rank score [tag]', got {len(fields)} field(s)",
                path=name,
                line=number,
            )
        qid, sample, doc, rank_text, score_text = fields[:5]
        if not _is_integer(rank_text):
            raise ParseError(f"the rank {rank_text!r} is not an integer", path=name, line=number)
        try:
            float(score_text)
        except ValueError:
            raise ParseError(
                f"the score {score_text!r} is not a number", path=name, line=number
            ) from None
        rank = int(rank_text)
        ranks = run.rankings.setdefault(qid, {}).setdefault(sample, {})
        if rank <= 0:
            run.messages.append(f"invalid rank {rank}")
        elif rank in ranks:
            run.messages.append(f"duplicate item at position {rank}")
        else:
            first = kept.setdefault((qid, sample, doc), number)
            if first != number:
                raise DuplicateError(
                    f"document {doc!r} occurs twice in sample {sample!r} of query {qid!r} "
                    f"(lines {first} and {number}); a sampled ranking ranks each document "
                    "once (expeval would add both positions' exposure)",
                    path=name,
                    lines=(first, number),
                    query=qid,
                    document=doc,
                )
            ranks[rank] = doc
    return run


def ordered_samples(run: ExpevalRun, qid: str) -> list[list[str]]:
    """The query's sampled rankings, each in rank order; a gap in the ranks is an error."""
    out = []
    for sample, ranks in run.rankings[qid].items():
        if ranks and max(ranks) != len(ranks):
            missing = min(set(range(1, len(ranks) + 1)) - set(ranks))
            raise ParseError(
                f"query {qid!r}, sample {sample!r}: rank {missing} is missing (ranks must run "
                "1, 2, 3, ... without gaps in each sample)",
                path=run.name,
            )
        out.append([ranks[r] for r in sorted(ranks)])
    return out


def expeval_values(
    qrels_source: object, run_source: object, options: ExpevalOptions | None = None
) -> tuple[dict[str, ExposureValues], list[str]]:
    """expeval's values per evaluated query (in its output order) and the messages it prints
    while reading the run.

    Raises
    ------
    EmptyInputError
        The qrels or the run hold no line.
    InputError
        No query has a kept judgment (a grade above 0; with ``complete``, any).
    """
    opts = options or ExpevalOptions()
    model = UserModel(opts.model, opts.patience, opts.utility)
    qrels = read_expeval_qrels(qrels_source, opts.binary, opts.complete)
    if qrels.lines == 0:
        raise EmptyInputError("the qrels hold no judgment", path=qrels.name)
    if not qrels.grades:
        raise InputError(
            "no query has a relevant document (a grade above 0), so no query has a target "
            "exposure to evaluate; with -C (complete judgments) every judged document counts",
            path=qrels.name,
        )
    run = read_expeval_run(run_source)
    if run.lines == 0:
        raise EmptyInputError(
            "the run holds no sampled ranking ('qid sample docno rank score [tag]' lines)",
            path=run.name,
        )
    values: dict[str, ExposureValues] = {}
    for qid, grades in qrels.grades.items():
        doc_target = target_exposure(grades, model, opts.fixed)
        doc_run = None
        if qid in run.rankings:
            doc_run = run_exposure(ordered_samples(run, qid), grades, model)
        target: Vector = doc_target
        exposure: Vector | None = doc_run
        if opts.groups:
            doc_groups = qrels.groups[qid]
            counted = [d for d in doc_groups if opts.complete or grades[d] > 0]
            target = group_exposure(doc_target, doc_groups, counted)
            relevant = sum(1 for g in grades.values() if g > 0)
            bounds = group_bounds(target, relevant, model, opts.fixed, len(counted))
            if doc_run is not None:
                exposure = group_exposure(doc_run, doc_groups, counted)
        else:
            levels = len(grade_levels(grades))
            bounds = document_bounds(doc_target, levels, model, opts.complete, opts.fixed)
        values[qid] = exposure_values(target, exposure or None, bounds, opts.fixed)
    return values, run.messages


def _number(value: float) -> str:
    return "%f" % value  # noqa: UP031 (expeval's format, inf and nan included)


def run_expeval(
    qrels_source: object, run_source: object, options: ExpevalOptions | None = None
) -> str:
    """expeval's output for the qrels and run: the reading messages, then per query
    ``disparity``, ``relevance`` and ``difference`` lines (``name<TAB>qid<TAB>%f``)."""
    opts = options or ExpevalOptions()
    values, messages = expeval_values(qrels_source, run_source, opts)
    out = [f"{m}\n" for m in messages]
    for qid, value in values.items():
        for name in NAMES:
            number = _pick(value, name, opts.normalise)
            out.append(f"{name}\t{qid}\t{_number(number)}\n")
    if opts.mean and values:
        for name in NAMES:
            mean = math.fsum(_pick(v, name, opts.normalise) for v in values.values()) / len(values)
            out.append(f"{name}\tall\t{_number(mean)}\n")
    return "".join(out)


def _pick(value: ExposureValues, name: str, normalise: bool) -> float:
    number: float = getattr(value, name if normalise else f"{name}_raw")
    return number


def parse_options(model: str, patience: str, utility: str, **flags: bool) -> ExpevalOptions:
    """:class:`ExpevalOptions` from the command line's text values (``-u``, ``-p``, ``-r``)."""
    if model not in ("gerr", "rbp"):
        raise OptionError(f"-u must be gerr or rbp, not {model!r}")
    numbers = []
    for flag, text in (("-p", patience), ("-r", utility)):
        try:
            numbers.append(float(text))
        except ValueError:
            raise OptionError(f"{flag} needs a number in [0, 1], not {text!r}") from None
    UserModel(model, numbers[0], numbers[1])  # type: ignore[arg-type]  # validates
    return ExpevalOptions(model=model, patience=numbers[0], utility=numbers[1], **flags)  # type: ignore[arg-type]
