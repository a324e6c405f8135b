"""The declarations of expected exposure (Diaz, Mitra, Ekstrand, Biega and Carterette, CIKM
2020): ``EE-L``, ``EE-D`` and ``EE-R`` of a stochastic run (several sampled rankings per
query), by document or by group (``groups=``), with the corrected definitions of
``ranklens expeval --fixed`` (:mod:`ranklens.kernels.exposure_measures`).

>>> from ranklens.measures import parse_measure
>>> str(parse_measure("EE-D(model='rbp',p=0.8)"))
"EE-D(model='rbp',p=0.8)"
"""

from __future__ import annotations

from typing import Any

from ranklens.kernels.options import USER_MODELS
from ranklens.measures.base import Kernel, MeasureSpec, Param

PARAMS = (
    Param(
        "model",
        str,
        "gerr",
        "the browsing model: 'gerr' (a cascade: after a relevant document the user stops "
        "with probability u) or 'rbp' (expeval's -u)",
        choices=USER_MODELS,
    ),
    Param(
        "p",
        float,
        0.5,
        "patience: the probability of going on to the next position (expeval's -p)",
        minimum=0.0,
        maximum=1.0,
        exclusive_maximum=True,
    ),
    Param(
        "u",
        float,
        0.5,
        "utility: gerr's probability of stopping after a relevant document (expeval's -r)",
        minimum=0.0,
        maximum=1.0,
    ),
    Param("binary", bool, False, "every grade above 0 counts as 1 (expeval's -B)"),
    Param(
        "complete",
        bool,
        False,
        "complete judgments, a reranking task: every judged document is a candidate with "
        "its grade, 0 and negative ones included (expeval's -C); otherwise only the "
        "relevant documents have a target, in an unbounded collection",
    ),
    Param(
        "normalize",
        bool,
        True,
        "(x - low) / (high - low) with the corrected bounds of docs/expeval.md; False: the "
        "raw value (expeval's -U)",
    ),
)

_MODEL = (
    "epsilon_d: document d's expected exposure, the mean over the query's sampled rankings "
    "of its exposure p^i (rbp) or p^i (1-u)^r_i (gerr) at 0-based position i below r_i "
    "relevant documents; epsilon*_d: its exposure under the ideal policy (the documents of "
    "each grade in random order, higher grades first); with groups=, documents are "
    "replaced by groups, a group's exposure the sum over its judged relevant documents "
    "(complete=True: its judged documents)"
)
_REFERENCE = (
    "Reference: Diaz, Mitra, Ekstrand, Biega and Carterette, Evaluating Stochastic Rankings "
    "with Expected Exposure, CIKM 2020; github.com/diazf/expeval with ranklens' corrections "
    "(ranklens expeval --fixed)"
)


def _kernel(name: str) -> Kernel:
    def kernel(sampled: Any, **params: Any) -> Any:
        from ranklens.kernels import exposure_measures  # when first computed: see KernelRef

        return exposure_measures.expected_exposure(sampled, name, **params)

    return kernel


SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "EE-L",
        "expected exposure loss: how far the exposure a stochastic ranking policy gives the "
        "documents (or groups) is from the exposure an ideal policy gives them",
        "EE-L = ||epsilon - epsilon*||^2 = EE-D - 2 EE-R + ||epsilon*||^2, normalised to "
        f"[0, 1] by its bounds; {_MODEL}. {_REFERENCE}",
        _kernel("EE-L"),
        PARAMS,
        higher_is_better=False,
        no_rel_value=None,
        rankings="sampled",
    ),
    MeasureSpec(
        "EE-D",
        "expected exposure disparity: how unequally a stochastic ranking policy spreads "
        "exposure over the documents (or groups), whatever their relevance",
        f"EE-D = ||epsilon||^2 = sum_d epsilon_d^2, normalised to [0, 1] by its bounds; "
        f"{_MODEL}. {_REFERENCE}",
        _kernel("EE-D"),
        PARAMS,
        higher_is_better=False,
        no_rel_value=None,
        rankings="sampled",
    ),
    MeasureSpec(
        "EE-R",
        "expected exposure relevance: how much of a stochastic ranking policy's exposure "
        "goes to the documents (or groups) that deserve it",
        "EE-R = epsilon . epsilon* = sum_d epsilon_d epsilon*_d, normalised to [0, 1] by "
        f"its bounds; {_MODEL}. {_REFERENCE}",
        _kernel("EE-R"),
        PARAMS,
        no_rel_value=None,
        rankings="sampled",
    ),
)
