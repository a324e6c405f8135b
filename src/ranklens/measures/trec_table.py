"""trec_eval's 57 measures in its registry order, mapped to ranklens measures.

Each :class:`TrecMeasure` says how trec_eval parses the measure's parameter string
(``-m name.params``), what the printed value names are, how the summary is formed, and
which ranklens measure computes each value. :func:`request` turns ``-m`` arguments
(nicknames included) into the ordered list of :class:`Slot` to print.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ranklens.kernels.preferences import PREFS_MEASURES
from ranklens.measures.base import Measure
from ranklens.measures.registry import lookup
from ranklens.measures.trec_common import OFFICIAL as OFFICIAL_MEASURES
from ranklens.measures.trec_common import with_relevance_level

ParamKind = Literal["none", "cutoffs", "levels", "floats", "float", "pairs"]
Summary = Literal["mean", "sum", "gm", "none", "runid", "num_q"]

DEFAULT_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
DEFAULT_LEVELS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
DEFAULT_MULTS = "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"


class TrecUsageError(Exception):
    """A measure request trec_eval refuses; ``code`` is trec_eval's exit status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Slot:
    """One printed value: its trec_eval name and what computes it.

    ``measure`` is a ranklens measure, or ``None`` for values computed by the front end
    (``kind``: ``runid``, ``num_q``, ``relstring``, ``prefs``, ``jg``).
    """

    name: str
    measure: Measure | None
    summary: Summary
    integer: bool = False
    per_query: bool = True
    kind: str = "measure"
    arg: object = None


@dataclass(frozen=True)
class Options:
    """The command-line settings a measure's construction depends on."""

    level: int = 1
    num_docs: int = 0
    v9: bool = False


Builder = Callable[["TrecMeasure", list[object], str | None, Options], list[Slot]]


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure: its name, parameter syntax, defaults and value builder."""

    name: str
    params: ParamKind
    default: str | None
    build: Builder
    v10_only: bool = False
    source: Literal["qrels", "prefs", "jg"] = "qrels"
    notes: str = field(default="", compare=False)


# -- parameter parsing, as trec_eval's meas_init.c ----------------------------------------


def _atol(text: str) -> int:
    match = re.match(r"\s*[-+]?\d+", text)
    return int(match.group(0)) if match else 0


def _atof(text: str) -> float:
    match = re.match(r"\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)", text)
    return float(match.group(0)) if match else 0.0


def parse_params(measure: TrecMeasure, raw: str) -> list[object]:
    """Parse ``raw`` (the text after the first '.') as trec_eval does for ``measure``."""
    parts = raw.split(",")
    init_error = f"trec_eval: Cannot initialize measure '{measure.name}'"
    if measure.params == "cutoffs":
        cutoffs = sorted(_atol(p) for p in parts)
        if any(c <= 0 for c in cutoffs):
            raise TrecUsageError(f"trec_eval: Negative cutoff detected\n{init_error}", 2)
        if len(set(cutoffs)) != len(cutoffs):
            raise TrecUsageError(f"trec_eval: duplicate cutoffs detected\n{init_error}", 2)
        return list(cutoffs)
    if measure.params == "levels":
        levels = sorted(_atof(p) for p in parts)
        if len(set(levels)) != len(levels):
            raise TrecUsageError(f"trec_eval: duplicate cutoffs detected\n{init_error}", 2)
        return list(levels)
    if measure.params == "floats":
        return [_atof(p) for p in parts]
    if measure.params == "float":
        return [_atof(parts[0])]
    if measure.params == "pairs":
        pairs: list[object] = []
        for part in parts:
            key, eq, value = part.partition("=")
            if not eq or not key:
                raise TrecUsageError(
                    f"trec_eval: malformed pair parameters in '{raw}'\n{init_error}", 2
                )
            pairs.append((key, _atof(value)))
        return pairs
    raise TrecUsageError(f"trec_eval: measure '{measure.name}' takes no parameters", 2)


# -- builders -------------------------------------------------------------------------------


def _make(name: str, level: int, **params: object) -> Measure:
    """Ranklens measure ``name`` with ``params`` (those it has), under ``-l level``."""
    spec = lookup(name)
    if spec is None:
        raise TrecUsageError(
            f"ranklens: trec_eval measure needs ranklens measure '{name}', not available", 2
        )
    known = {p.name for p in spec.all_params()}
    measure = spec.make(**{k: v for k, v in params.items() if k in known})
    return with_relevance_level(measure, level)


def _suffix(measure: TrecMeasure, raw: str | None) -> str:
    return measure.name if raw is None else f"{measure.name}_{raw}"


def _one(
    target: str,
    summary: Summary = "mean",
    integer: bool = False,
    per_query: bool = True,
    **fixed: object,
) -> Builder:
    """A measure with one value, named like the trec measure (or name_<raw> with params)."""

    def build(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
        measure = _make(target, o.level, **fixed)
        return [Slot(_suffix(m, raw), measure, summary, integer, per_query)]

    return build


def _cutoffs(target: str, **fixed: object) -> Builder:
    def build(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
        return [
            Slot(f"{m.name}_{k}", _make(target, o.level, cutoff=k, **fixed), "mean") for k in params
        ]

    return build


def _levels(target: str, at: str, **fixed: object) -> Builder:
    def build(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
        extra: dict[str, object] = dict(fixed)
        if o.v9:
            extra["rounding"] = "trec9"
        return [
            Slot(f"{m.name}_{x:3.2f}", _make(target, o.level, **{at: x}, **extra), "mean")
            for x in params
            if isinstance(x, float)
        ]

    return build


def _gains(params: Sequence[object]) -> tuple[tuple[int, float], ...] | None:
    """Integer-named pairs as a gain map (trec_eval's ``valid_int`` names only)."""
    gains = {
        int(k): float(v)
        for k, v in (p for p in params if isinstance(p, tuple))
        if re.fullmatch(r"[-+]?\d+", str(k))
    }
    return tuple(sorted(gains.items())) or None


def _gain_measure(target: str, **fixed: object) -> Builder:
    def build(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
        gains = _gains(params)
        # trec_eval's names order custom gains as trec_eval does (the measure language's
        # own names order them by exact gain)
        order = {} if gains is None else {"ideal": "trec_eval"}
        measure = _make(target, o.level, gains=gains, **order, **fixed)
        return [Slot(_suffix(m, raw), measure, "mean")]

    return build


def _utility(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
    if len(params) != 4:
        raise TrecUsageError(
            "trec_eval.calc_utility: improper number of coefficients\n"
            "trec_eval: Can't calculate measure 'utility'",
            4,
        )
    a, b, c, d = (float(x) for x in params if isinstance(x, float))
    measure = _make("Utility", o.level, a=a, b=b, c=c, d=d, num_docs=o.num_docs)
    return [Slot(_suffix(m, raw), measure, "mean")]


def _eleven_point(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
    levels = tuple(sorted(float(x) for x in params if isinstance(x, float)))
    measure = _make("11ptAvg", o.level, levels=levels, rounding="trec9" if o.v9 else "round")
    return [Slot(_suffix(m, raw), measure, "mean")]


def _set_f(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
    x = float(params[0]) if params and isinstance(params[0], float) else 1.0
    measure = _make("SetF", o.level, beta=math.sqrt(x))
    return [Slot(_suffix(m, raw), measure, "mean")]


def _rbp(target: str, **fixed: object) -> Builder:
    def build(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
        p = 0.9
        for item in params:
            if isinstance(item, tuple) and item[0] == "p":
                p = float(item[1])
        if _gains(params) is not None:
            raise TrecUsageError(
                f"ranklens: custom gains for {m.name} are not supported; only p=", 2
            )
        return [Slot(_suffix(m, raw), _make(target, o.level, p=p, **fixed), "mean")]

    return build


def _special(kind: str, summary: Summary, per_query: bool, integer: bool = False) -> Builder:
    def build(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
        arg: object = None
        if kind == "relstring":
            first = params[0] if params else 10.0
            arg = int(first) if isinstance(first, float | int) else 10
        return [Slot(_suffix(m, raw), None, summary, integer, per_query, kind, arg)]

    return build


def _external(source: str, integer: bool = False, summary: Summary = "mean") -> Builder:
    """A value computed by the prefs or judgement-group modules."""

    def build(m: TrecMeasure, params: list[object], raw: str | None, o: Options) -> list[Slot]:
        if m.params == "cutoffs" or m.params == "levels":
            fmt = "{}_{}" if m.params == "cutoffs" else "{}_{:3.2f}"
            return [
                Slot(fmt.format(m.name, x), None, summary, integer, True, source, (m.name, x))
                for x in params
            ]
        return [Slot(m.name, None, summary, integer, True, source, (m.name, None))]

    return build


_PREFS = PREFS_MEASURES

MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "none", None, _special("runid", "runid", False)),
    TrecMeasure("num_q", "none", None, _special("num_q", "num_q", False, True)),
    TrecMeasure("num_ret", "none", None, _one("NumRet", "sum", True)),
    TrecMeasure("num_rel", "none", None, _one("NumRel", "sum", True)),
    TrecMeasure("num_rel_ret", "none", None, _one("NumRelRet", "sum", True)),
    TrecMeasure("map", "none", None, _one("AP")),
    TrecMeasure("gm_map", "none", None, _one("AP", "gm", per_query=False)),
    TrecMeasure("Rprec", "none", None, _one("Rprec")),
    TrecMeasure("bpref", "none", None, _one("Bpref")),
    TrecMeasure("recip_rank", "none", None, _one("RR")),
    TrecMeasure("iprec_at_recall", "levels", DEFAULT_LEVELS, _levels("IPrec", "recall")),
    TrecMeasure("P", "cutoffs", DEFAULT_CUTOFFS, _cutoffs("P")),
    TrecMeasure("relstring", "float", None, _special("relstring", "none", True)),
    TrecMeasure("recall", "cutoffs", DEFAULT_CUTOFFS, _cutoffs("R")),
    TrecMeasure("infAP", "none", None, _one("infAP")),
    TrecMeasure("gm_bpref", "none", None, _one("Bpref", "gm", per_query=False)),
    TrecMeasure("Rprec_mult", "levels", DEFAULT_MULTS, _levels("RprecMult", "mult")),
    TrecMeasure("utility", "floats", "1,-1,0,0", _utility),
    TrecMeasure("11pt_avg", "floats", DEFAULT_LEVELS, _eleven_point),
    TrecMeasure("binG", "none", None, _one("BinG")),
    TrecMeasure("G", "pairs", None, _gain_measure("G")),
    TrecMeasure("dcg", "pairs", None, _gain_measure("DCG")),
    TrecMeasure("ideal_dcg", "pairs", None, _gain_measure("IDCG")),
    TrecMeasure("ndcg", "pairs", None, _gain_measure("nDCG")),
    TrecMeasure("ndcg_rel", "pairs", None, _gain_measure("nDCGRel")),
    TrecMeasure("Rndcg", "pairs", None, _gain_measure("RnDCG")),
    TrecMeasure("ndcg_cut", "cutoffs", DEFAULT_CUTOFFS, _cutoffs("nDCG")),
    TrecMeasure("map_cut", "cutoffs", DEFAULT_CUTOFFS, _cutoffs("AP")),
    TrecMeasure("relative_P", "cutoffs", DEFAULT_CUTOFFS, _cutoffs("RelP")),
    TrecMeasure("success", "cutoffs", "1,5,10", _cutoffs("Success")),
    TrecMeasure("set_P", "none", None, _one("P")),
    TrecMeasure("set_relative_P", "none", None, _one("SetRelP")),
    TrecMeasure("set_recall", "none", None, _one("R")),
    TrecMeasure("set_map", "none", None, _one("SetAP")),
    TrecMeasure("set_F", "float", None, _set_f),
    TrecMeasure("num_nonrel_judged_ret", "none", None, _one("NumNonRelJudgedRet", "sum", True)),
    *(
        TrecMeasure(
            name,
            "none",
            None,
            _external("prefs", name.startswith("prefs_num"), "sum" if "num" in name else "mean"),
            source="prefs",
        )
        for name in _PREFS
    ),
    TrecMeasure("map_avgjg", "none", None, _external("jg"), source="jg"),
    TrecMeasure("P_avgjg", "cutoffs", DEFAULT_CUTOFFS, _external("jg"), source="jg"),
    TrecMeasure("Rprec_mult_avgjg", "levels", DEFAULT_MULTS, _external("jg"), source="jg"),
    TrecMeasure("yaap", "none", None, _one("YAAP")),
    TrecMeasure("rbp", "pairs", None, _rbp("RBP", gain="graded"), v10_only=True),
    TrecMeasure("rbp_resid", "pairs", None, _rbp("RBPResid", tail="trec"), v10_only=True),
    TrecMeasure("unj", "cutoffs", "5,10,20", _cutoffs("Unjudged"), v10_only=True),
)

BY_NAME = {m.name: m for m in MEASURES}

OFFICIAL = ["runid", *OFFICIAL_MEASURES]
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": tuple(OFFICIAL),
    "all_trec": (
        *OFFICIAL,
        *[
            "relstring",
            "recall",
            "unj",
            "rbp",
            "rbp_resid",
            "infAP",
            "gm_bpref",
            "utility",
            "11pt_avg",
            "ndcg",
            "relative_P",
            "Rprec_mult",
            "success",
            "map_cut",
            "ndcg_cut",
            "ndcg_rel",
            "Rndcg",
            "binG",
            "G",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
            "num_nonrel_judged_ret",
        ],
    ),
    "set": tuple(
        [
            "runid",
            "num_q",
            "num_ret",
            "num_rel",
            "num_rel_ret",
            "utility",
            "set_P",
            "set_recall",
            "set_relative_P",
            "set_map",
            "set_F",
        ]
    ),
    "all_prefs": ("runid", "num_q", *_PREFS),
    "prefs": ("runid", "num_q", *_PREFS[:6]),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


def _suggest(name: str) -> str:
    """What the user may have meant by the illegal measure ``name``: close trec_eval names,
    or, for a name of ranklens' measure language, where that name is understood."""
    import difflib

    pool = [*BY_NAME, *NICKNAMES]
    close = difflib.get_close_matches(name, pool, n=3, cutoff=0.6)
    if not close:
        lower = {p.lower(): p for p in pool}
        close = [lower[name.lower()]] if name.lower() in lower else []
    same = _trec_spelling(name)
    if same is not None:
        close = [same, *(c for c in close if c != same)][:3]
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?" if close else " ("
    if any(ch in name for ch in "@(") or name in _language_names():
        hint += " " if close else ""
        hint += (
            f"'{name}' is a name of ranklens' measure language: 'ranklens eval -m' takes "
            "it, trec-eval takes trec_eval's names"
        )
    elif not close:
        hint += "'ranklens trec-eval -m all_trec' computes every trec_eval measure"
    return hint + ")"


def _trec_spelling(name: str) -> str | None:
    """trec_eval's ``-m`` name of ``name`` (``NAME`` or ``NAME@K``) in ranklens' measure
    language, case aside (``ndcg@10`` -> ``ndcg_cut.10``, ``P@5`` -> ``P.5``, ``AP`` ->
    ``map``), or ``None``."""
    from ranklens.measures.registry import ALIASES, REGISTRY

    found = re.fullmatch(r"([A-Za-z][\w-]*)(?:@(\d+(?:\.\d+)?))?", name.strip())
    if found is None:
        return None
    base, cutoff = found.groups()
    names = {n.lower(): n for n in (*REGISTRY, *ALIASES)}
    spec = lookup(names.get(base.lower(), base))
    if spec is None or spec.trec_name is None:
        return None
    with_at, _, without_at = spec.trec_name.partition("|")
    if cutoff is None:
        value_name = without_at
    elif with_at and spec.at is not None:
        number = float(cutoff)
        value_name = with_at.format(at=int(number) if number.is_integer() else number)
    else:
        return None
    if not value_name:
        return None
    if value_name in BY_NAME:
        return value_name
    stem, _, parameter = value_name.rpartition("_")
    return f"{stem}.{parameter}" if stem in BY_NAME else None


def _language_names() -> set[str]:
    from ranklens.measures.registry import ALIASES, REGISTRY

    return {*REGISTRY, *ALIASES}


def request(names: Sequence[str], options: Options) -> list[Slot]:
    """The values to print for ``-m`` arguments ``names``, in trec_eval's registry order.

    As trec_eval does, a measure named several times takes the first parameter string given
    for it; ``-m`` values are nicknames, ``name`` or ``name.params``.
    """
    chosen: dict[str, str | None] = {}
    for text in names or ["official"]:
        if text in NICKNAMES:
            for name in NICKNAMES[text]:
                if options.v9 and BY_NAME[name].v10_only:
                    continue
                chosen.setdefault(name, None)
            continue
        name, dot, raw = text.partition(".")
        measure = BY_NAME.get(name)
        if measure is None or (options.v9 and measure.v10_only):
            raise TrecUsageError(f"trec_eval: illegal measure '{text}'{_suggest(name)}", 1)
        if dot and not raw:
            raise TrecUsageError(
                f"trec_eval: improper measure in parameter '{name}'\n"
                f"trec_eval: illegal measure '{name}'",
                1,
            )
        if chosen.get(name) is None:
            chosen[name] = raw if dot else None
    slots: list[Slot] = []
    for measure in MEASURES:
        if measure.name not in chosen:
            continue
        given = chosen[measure.name]
        param_text = given if given is not None else measure.default
        params = parse_params(measure, param_text) if param_text is not None else []
        slots.extend(measure.build(measure, params, given, options))
    return slots
