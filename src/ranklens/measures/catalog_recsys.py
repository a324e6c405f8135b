"""The declarations of the beyond-accuracy recommender measures: catalogue coverage and
concentration of exposure over the whole run (aggregate ``"run"``), and popularity bias per
user (:mod:`ranklens.kernels.recommender`). They read the items of the run's top-k lists
and the evaluator's item data (``popularity=``, ``num_items=``); the qrels only choose the
evaluated users (the ``queries=`` policy)."""

from __future__ import annotations

import math
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ranklens.kernels.options import (
    CATALOGUE_SCOPES,
    DEFAULT_A,
    DEFAULT_B,
    DISTANCES,
    ENTROPY_LOGS,
    GINI_FORMS,
)
from ranklens.measures.base import MeasureSpec, Param
from ranklens.ranking.item_tables import POPULARITY_COUNTS

if TYPE_CHECKING:
    from ranklens.kernels.recommender import PropensityKind


def _rec() -> ModuleType:
    """The recommender kernels, imported when a measure is first computed (see
    :class:`~ranklens.measures.base.KernelRef`)."""
    from ranklens.kernels import recommender

    return recommender


def _lists() -> ModuleType:
    """The kernels of measures of the item lists (ILD, PopRSP), imported as :func:`_rec`."""
    from ranklens.kernels import recommender_lists

    return recommender_lists


CUTOFF = Param("cutoff", int, None, "only the top k items of each list count (k >= 1)", minimum=1)
HEAD_SHARE = Param(
    "head_share",
    float,
    0.2,
    "the short head: the most popular items that together hold this share of the "
    "training interactions",
    minimum=0.0,
    maximum=1.0,
    exclusive_minimum=True,
)
SCOPE = Param(
    "scope",
    str,
    "catalogue",
    "'catalogue': every item of the catalogue, those never shown with exposure 0 "
    "(RecBole); 'shown': only the items shown at least once",
    choices=CATALOGUE_SCOPES,
)
GINI_FORM = Param(
    "form",
    str,
    "index",
    "'index': the Gini index G; 'elliot': 1 - N/(N-1) G, what Elliot's Gini reports",
    choices=GINI_FORMS,
)
ENTROPY_LOG = Param(
    "log",
    str,
    "ln",
    "'ln': natural logarithm (RecBole's ShannonEntropy); 'log2': in bits (Elliot's "
    "SEntropy, with lists of equal length)",
    choices=ENTROPY_LOGS,
)
COUNT = Param(
    "count",
    str,
    "users",
    "what an item's popularity counts when popularity= (or train=) holds training "
    "interactions: 'users', its distinct users (the published definition: a user who "
    "interacted with it several times counts once); 'interactions', its interactions (rows, "
    "as RecBole counts them); counts given as {item: count} or a file are used as they are",
    choices=POPULARITY_COUNTS,
)
LIST = (
    "L_u: user u's top-k list (its first min(k, n_u) items); phi(i): item i's popularity "
    "(its distinct training users, or the counts given; its interactions with "
    "count='interactions'; 0 if the popularity data does not list it)"
)
EXPOSURE = (
    "x_i = |{u : i in L_u}|, the number of lists showing item i, over the N items of the "
    "catalogue (num_items=, else the items of the popularity data), 0 for items never shown"
)

_BEYOND_ACCURACY: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "Coverage",
        "catalogue coverage: the share of the catalogue shown in some user's top-k list",
        f"Coverage@k = |U_u L_u| / N, over the whole run (not a mean over users); {LIST}; "
        "N: num_items=, else the number of items in the popularity data. Reference: "
        "Ge, Delgado-Battenfeld and Jannach, RecSys 2010 (catalog coverage)",
        lambda r, cutoff: _rec().exposure(r, cutoff, "coverage"),
        (),
        CUTOFF,
        aliases=("ItemCoverage",),
        aggregate="run",
        no_rel_value=None,
    ),
    MeasureSpec(
        "Gini",
        "Gini index of the items' exposure in the top-k lists (0: every item shown equally "
        "often, towards 1: a few items take all the exposure)",
        "Gini@k = sum_{j=1..N} (2j - N - 1) x_(j) / (N sum_j x_(j)), x_(1) <= ... <= x_(N) "
        f"the exposures in increasing order, over the whole run; {EXPOSURE}; "
        "scope='shown': N = the items shown at least once; 0 if nothing is shown; "
        "form='elliot': 1 - N/(N-1) Gini@k. "
        "Reference: Fleder and Hosanagar, Management Science 2009; RecBole's GiniIndex",
        lambda r, cutoff, scope, form: _rec().exposure(r, cutoff, "gini", scope, form),
        (SCOPE, GINI_FORM),
        CUTOFF,
        aliases=("GiniIndex",),
        aggregate="run",
        higher_is_better=False,
        no_rel_value=None,
    ),
    MeasureSpec(
        "Entropy",
        "Shannon entropy (natural log) of the distribution of exposure over the items",
        "Entropy@k = -sum_i p_i ln p_i (log2 with log='log2'), p_i = x_i / sum_j x_j, over "
        "the whole run; "
        f"{EXPOSURE} (they add 0 log 0 = 0); 0 if nothing is shown. Reference: Shani and "
        "Gunawardana, Recommender Systems Handbook 2011; RecBole's ShannonEntropy",
        lambda r, cutoff, log: _rec().exposure(r, cutoff, "entropy", variant=log),
        (ENTROPY_LOG,),
        CUTOFF,
        aliases=("ShannonEntropy",),
        aggregate="run",
        bounds=(0.0, math.inf),
        no_rel_value=None,
    ),
    MeasureSpec(
        "ARP",
        "average recommendation popularity: the mean popularity of the items in a user's "
        "top-k list, averaged over users",
        f"ARP@k = mean_u (1/|L_u|) sum_(i in L_u) phi(i) (0 for an empty list); {LIST}. "
        "Reference: Abdollahpouri, Burke and Mobasher, FLAIRS 2019 (phi(i): the number of "
        "ratings of i, one per user)",
        lambda r, cutoff, count: _rec().average_popularity(r, cutoff, count),
        (COUNT,),
        CUTOFF,
        aliases=("AveragePopularity",),
        higher_is_better=False,
        bounds=(0.0, math.inf),
        no_rel_value=None,
    ),
    MeasureSpec(
        "APLT",
        "average percentage of long tail items: the share of a user's top-k list outside "
        "the short head, averaged over users",
        f"APLT@k = mean_u |L_u & Gamma| / |L_u| (0 for an empty list); {LIST}; Gamma, the "
        "long tail: every item but the short head, the most popular items (ranked by "
        "popularity phi, ties by item id in byte order) that together hold head_share of "
        "the total popularity (the shortest such prefix); items without interactions are in "
        "the long tail. Reference: Abdollahpouri, Burke and Mobasher, FLAIRS 2019",
        lambda r, cutoff, head_share, count: _rec().long_tail_share(r, cutoff, head_share, count),
        (HEAD_SHARE, COUNT),
        CUTOFF,
        no_rel_value=None,
    ),
    MeasureSpec(
        "ACLT",
        "average coverage of long tail items: the number of long-tail items in a user's "
        "top-k list, averaged over users",
        f"ACLT@k = mean_u |L_u & Gamma|; {LIST}; Gamma, the long tail, as for APLT. "
        "Reference: Abdollahpouri, Burke and Mobasher, FLAIRS 2019",
        lambda r, cutoff, head_share, count: _rec().long_tail_count(r, cutoff, head_share, count),
        (HEAD_SHARE, COUNT),
        CUTOFF,
        bounds=(0.0, math.inf),
        no_rel_value=None,
    ),
)

PS_REL = Param("rel", int, 1, "minimum grade of a relevant item", minimum=1)
PS_A = Param(
    "A", float, DEFAULT_A, "Jain et al.'s A (0.5 Wikipedia, 0.6 Amazon)", minimum=0.0
)
PS_B = Param(
    "B",
    float,
    DEFAULT_B,
    "Jain et al.'s B (0.4 Wikipedia, 2.6 Amazon); above 0: at 0 an item without training "
    "users would weigh infinitely",
    minimum=0.0,
    exclusive_minimum=True,
)
PS_CUTOFF = Param("cutoff", int, None, "the length k of the lists (k >= 1)", minimum=1)
_PROPENSITY = (
    "w_l = 1/p_l = 1 + C e^(-A ln(N_l + B)), C = (ln N - 1)(B + 1)^A: the inverse propensity "
    "of item l, N_l its distinct training users (popularity=; at most N), N the training "
    "users (num_users=, at least 3: C < 0 for N < e would make propensities above 1); "
    "normalised over the whole run by the best achievable value (each user's relevant "
    "items by decreasing w), as pyxclib: a ratio of sums over users, not a mean of per-user "
    "ratios; an inverse propensity too large for a double (a huge A) is refused. "
    "Reference: Jain, Prabhu and Varma, KDD 2016"
)


def _propensity_scored(form: PropensityKind, summary: str, formula: str) -> MeasureSpec:
    """``PS`` + ``form``: a propensity-scored measure over the whole run."""

    def kernel(r: Any, rel: int, cutoff: int, A: float, B: float) -> Any:  # noqa: N803
        return _rec().propensity_scored(r, cutoff, rel, form, A, B)

    return MeasureSpec(
        f"PS{form}",
        summary,
        f"{formula}; {_PROPENSITY}",
        kernel,
        (PS_REL, PS_A, PS_B),
        PS_CUTOFF,
        at_required=True,
        aggregate="run",
        no_rel_value=None,
    )


_PROPENSITY_SCORED: tuple[MeasureSpec, ...] = (
    _propensity_scored(
        "P",
        "propensity-scored precision: relevant items in the top k weighted by their inverse "
        "propensity, over the best achievable",
        "PSP@k = sum_u (1/k) sum_{j <= k} y_uj w_(l_uj) / sum_u (1/k) sum_{j <= k} y*_uj "
        "w*_uj, y_uj = 1 if the j-th item of u's list is relevant",
    ),
    _propensity_scored(
        "nDCG",
        "propensity-scored nDCG: the DCG of inverse-propensity gains, over the best achievable",
        "PSnDCG@k = sum_u psDCG_u / Z_u over sum_u psDCG*_u / Z_u, psDCG_u = sum_{j <= k} "
        "y_uj w_(l_uj) / log2(j + 1), Z_u = sum_{j <= min(R_u, k)} 1/log2(j + 1)",
    ),
    _propensity_scored(
        "R",
        "propensity-scored recall: relevant items in the top k weighted by their inverse "
        "propensity, per relevant item, over the best achievable",
        "PSR@k = sum_u sum_{j <= k} y_uj w_(l_uj) / max(R_u, 1) over the same for the best "
        "lists; R_u the relevant items of u",
    ),
)

NOVELTY_REL = Param("rel", int, 1, "minimum grade of a relevant item", minimum=1)
_NOVELTY = (
    "d_j = 1/log2(j + 1), the sums over the first min(k, n_u) positions of u's list, "
    "rel_j = 1 if its j-th item is relevant (grade >= rel); 0 for an empty list; the mean "
    "over users. Reference: Vargas and Castells, RecSys 2011"
)
_NOVELTY_SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "EPC",
        "expected popularity complement: the rank-discounted novelty 1 - phi(i)/N of the "
        "relevant recommended items",
        "EPC@k = mean_u sum_j d_j rel_j (1 - phi(i_j)/N) / sum_j d_j, phi(i) the item's "
        "distinct training users (p(seen|i) = phi(i)/N; a popularity above N is refused), N "
        f"the training users (num_users=); {_NOVELTY}",
        lambda r, rel, cutoff: _rec().expected_novelty(r, cutoff, rel, "EPC"),
        (NOVELTY_REL,),
        CUTOFF,
    ),
    MeasureSpec(
        "EFD",
        "expected free discovery: the rank-discounted inverse collection frequency "
        "-log2(phi(i) / sum_l phi(l)) of the relevant recommended items",
        "EFD@k = mean_u sum_j d_j rel_j (-log2(phi(i_j) / sum_l phi(l))) / sum_j d_j, phi(i) "
        "the item's distinct training users (p(i|seen) = phi(i) / the (user, item) pairs "
        "with an interaction); an item without interactions takes the largest value of an "
        f"item with some (as Elliot); {_NOVELTY}",
        lambda r, rel, cutoff: _rec().expected_novelty(r, cutoff, rel, "EFD"),
        (NOVELTY_REL,),
        CUTOFF,
        bounds=(0.0, math.inf),
    ),
)

UNLISTED = Param(
    "unlisted",
    str,
    "tail",
    "items the popularity data does not list: in the long 'tail', or in neither group "
    "('ignore', as Elliot)",
    choices=("tail", "ignore"),
)
_OPPORTUNITY_SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "PopREO",
        "popularity-based ranking-based equal opportunity: how unequal the true positive "
        "rates of short-head and long-tail items are (0: equal)",
        "PopREO@k = std(P_head, P_tail) / mean(P_head, P_tail) (population std: "
        "|P_head - P_tail| / (P_head + P_tail)), P_g = sum_u |L_u & T_u & g| / sum_u "
        "|T_u & g|, T_u the relevant items of u (grade >= rel), the groups the short head "
        "and the long tail as for APLT (head_share); over the whole run; NaN when a group "
        "has no relevant item or nothing relevant is found. Reference: Zhu, Wang and "
        "Caverlee, SIGIR 2021",
        lambda r, rel, head_share, unlisted, count, cutoff: _rec().popularity_opportunity(
            r, cutoff, rel, head_share, unlisted, count
        ),
        (NOVELTY_REL, HEAD_SHARE, UNLISTED, COUNT),
        PS_CUTOFF,
        at_required=True,
        aggregate="run",
        higher_is_better=False,
        bounds=(0.0, 1.0),
        no_rel_value=None,
    ),
)

DISTANCE = Param(
    "distance",
    str,
    "cosine",
    "'cosine': 1 - the cosine similarity of the feature vectors (of label sets: |A & B| / "
    "sqrt(|A| |B|)); 'jaccard': 1 - |A & B| / |A | B| of label sets or 0/1 vectors",
    choices=DISTANCES,
)
_LIST_SPECS: tuple[MeasureSpec, ...] = (
    MeasureSpec(
        "ILD",
        "intra-list diversity: the mean distance between the item features of the pairs of "
        "distinct items of a user's top-k list, averaged over users",
        "ILD@k = mean_u 2/(n_u (n_u - 1)) sum_{i < j in L_u} d(i, j), n_u = |L_u|, 0 for a "
        "list of fewer than 2 items; d(i, j) = 1 - x_i.x_j / (|x_i| |x_j|) (cosine, the "
        "default) or 1 - |A_i & A_j| / |A_i | A_j| (distance='jaccard'; two empty label sets "
        "are at distance 0); x_i, A_i: item i's features (item_features=); L_u: user u's "
        "top-k list (the first k items of its ranking, all of them if it has fewer). "
        "Reference: Ziegler, McNee, Konstan and Lausen, WWW 2005 (intra-list similarity); "
        "Smyth and McClave, ICCBR 2001",
        lambda r, distance, cutoff: _lists().intra_list_diversity(r, cutoff, distance),
        (DISTANCE,),
        CUTOFF,
        bounds=(0.0, 2.0),
        no_rel_value=None,
    ),
    MeasureSpec(
        "PopRSP",
        "popularity-based ranking-based statistical parity: how unequal the rates at which "
        "short-head and long-tail items are recommended are (0: equal)",
        "PopRSP@k = std(P_head, P_tail) / mean(P_head, P_tail) (population std: "
        "|P_head - P_tail| / (P_head + P_tail)), P_g = sum_u |(L_u & g) - I_u| / sum_u "
        "|g - I_u|, I_u the training items of u (train=), the groups the short head and the "
        "long tail (the rest of the catalogue: num_items=, else the items of the popularity "
        "data) as for APLT (head_share); over the whole run; NaN when a group has no "
        "candidate item or nothing is recommended. Reference: Zhu, Wang and Caverlee, "
        "SIGIR 2021",
        lambda r, head_share, unlisted, count, cutoff: _lists().statistical_parity(
            r, cutoff, head_share, unlisted, count
        ),
        (HEAD_SHARE, UNLISTED, COUNT),
        PS_CUTOFF,
        at_required=True,
        aggregate="run",
        higher_is_better=False,
        bounds=(0.0, 1.0),
        no_rel_value=None,
    ),
)

SPECS: tuple[MeasureSpec, ...] = (
    *_BEYOND_ACCURACY,
    *_PROPENSITY_SCORED,
    *_NOVELTY_SPECS,
    *_OPPORTUNITY_SPECS,
    *_LIST_SPECS,
)
