"""The values of the kernels' options, apart from the kernels.

The measure declarations (:mod:`ranklens.measures`) list these values as their parameters'
choices and defaults. Kept here, in a module without numpy or the data layer, the
declarations read them without importing the kernel modules, which are imported when a
measure is first computed (importing every kernel module cost each evaluation about 15 ms;
2026-11-27). Each kernel module imports its values from here, so that each has one
definition.
"""

from __future__ import annotations

REPORTS = ("EU", "ETU", "EC", "ETC", "EI")
"""The C/W/L numbers (:mod:`ranklens.kernels.cwl`)."""

USER_MODELS: tuple[str, ...] = ("gerr", "rbp")
"""The browsing models of expected exposure (:mod:`ranklens.kernels.exposure`)."""

CATALOGUE_SCOPES = ("catalogue", "shown")
"""Gini's items: the whole catalogue, or those shown (:mod:`ranklens.kernels.recommender`)."""
GINI_FORMS = ("index", "elliot")
ENTROPY_LOGS = ("ln", "log2")
DEFAULT_A = 0.55
DEFAULT_B = 1.5
"""Jain et al.'s A and B by default (their values for most data sets)."""

DISTANCES = ("cosine", "jaccard")
"""ILD's distances between item features (:mod:`ranklens.kernels.recommender_lists`)."""

CITATION_UNKNOWN_POLICIES = ("zero", "ignore", "error")
"""What a citation's unknown support label does (:mod:`ranklens.kernels.rag_citations`)."""
NUGGET_SETS = ("vital", "weighted", "all")
"""Which nuggets a score is over: the vital ones, all of them weighted (vital 1, okay 1/2),
or all of them (:mod:`ranklens.kernels.rag_nuggets`)."""
NUGGET_UNKNOWN_POLICIES = ("nuggetizer", "ignore", "error")
"""What a nugget label outside the defined sets does (:mod:`ranklens.kernels.rag_nuggets`)."""
ROUGE_STATS = ("f", "p", "r")
"""ROUGE's statistics: F, precision, recall (:mod:`ranklens.kernels.rag_text`)."""

RBP_GAINS = ("binary", "graded", "raw")
RESIDUAL_TAILS = ("always", "trec")
"""RBP's gains and when its residual is reported (:mod:`ranklens.kernels.rbp`)."""
