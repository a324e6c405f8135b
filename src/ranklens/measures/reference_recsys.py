"""Reference documentation of the beyond-accuracy recommender measures
(:mod:`ranklens.measures.catalog_recsys`): equivalents in RecBole, Elliot and Microsoft's
recommenders, and hand-computed examples (see :mod:`ranklens.measures.reference`).

Every example uses three users and five items: u1's top 2 is ``a c``, u2's ``d a``, and u3
(in the test interactions only) has no list; item popularity (training interactions) is
a 10, b 5, c 3, d 1, e 1 (20 in all). Exposure in the top-2 lists: a 2, c 1, d 1, b and
e 0. The short head (20% of the 20 interactions, 4) is item a alone.

The propensity-scored examples take N = 20 training users: C = (ln 20 - 1) 2.5^0.55 and
w(n) = 1 + C (n + 1.5)^-0.55 for an item with n interactions.

The ILD example gives items 2-dimensional feature vectors (a and d (1, 0), b and e
(0, 1), c (1, 1)); the PopRSP example trains u1 on b, u2 on c and u3 on a.

>>> len(DOCS)
14
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

from ranklens.measures.reference_model import MeasureExample, doc

QRELS = {"u1": {"a": 1}, "u2": {"b": 1, "c": 2}, "u3": {"e": 1}}
RUN = {"u1": {"a": 0.9, "b": 0.5, "c": 0.5}, "u2": {"a": 0.8, "d": 0.8, "b": 0.1}}
POPULARITY = {"a": 10, "b": 5, "c": 3, "d": 1, "e": 1}
OPTIONS: dict[str, Any] = {"popularity": POPULARITY}
_RUN_LEVEL = (
    "Computed over the whole run (aggregate 'run'): it has no per-query values (-q and "
    "Results.query_values refuse it); ranklens.compare tests it by a paired bootstrap over "
    "users. Only the evaluated users' lists count (queries=, default the users of the qrels)."
)
_TOP2 = (
    "The top-2 lists are u1: a c (c before b: equal scores, item id descending) and u2: d a "
    "(tie: d before a); u3 has none."
)


def _example(
    measure: str, expected: float, narration: str, options: dict[str, Any] = OPTIONS
) -> MeasureExample:
    return MeasureExample(measure, QRELS, RUN, expected, f"{_TOP2} {narration}", options)


PS_OPTIONS: dict[str, Any] = {"popularity": POPULARITY, "num_users": 20}
FEATURES = {"a": (1.0, 0.0), "b": (0.0, 1.0), "c": (1.0, 1.0), "d": (1.0, 0.0), "e": (0.0, 1.0)}
FEATURE_OPTIONS: dict[str, Any] = {"item_features": FEATURES}
TRAIN = {"u1": ("b",), "u2": ("c",), "u3": ("a",)}
TRAIN_OPTIONS: dict[str, Any] = {"popularity": POPULARITY, "train": TRAIN}
_C: float = (math.log(20) - 1) * math.pow(2.5, 0.55)


def _w(n: float) -> float:
    """The inverse propensity of an item with ``n`` training interactions (N = 20)."""
    return 1.0 + _C * math.pow(n + 1.5, -0.55)


_PS_NOTE = (
    "Needs popularity= and the number of training users (num_users=, or popularity= as a "
    "table of interactions with a user column). Computed over the whole run (aggregate "
    "'run'): the sum over users of the value, over the sum of the best achievable values, "
    "as pyxclib's psprecision / psndcg / psrecall (not a mean of per-user ratios); no "
    "per-query values."
)
_PS_RELEVANT = "Relevant: u1 a; u2 b and c (w(3) > w(5)); u3 e. Only u1's a is shown and relevant."


DOCS = MappingProxyType(
    {
        "Coverage": doc(
            _example(
                "Coverage@2",
                3 / 5,
                "Items shown: a, c, d; the catalogue is the 5 items of the popularity data: "
                "3/5 = 0.6.",
            ),
            _RUN_LEVEL + " The catalogue: num_items=, else the items of popularity=; a run "
            "showing more distinct items than that is an error.",
            other="RecBole ItemCoverage@k (distinct items over its dataset's item count: pass "
            "that count as num_items); Elliot ItemCoverage is the count of distinct items, "
            "not a share (Coverage@k times N); Microsoft recommenders catalog_coverage "
            "(distinct recommended items over distinct training items: popularity= from the "
            "training interactions, no num_items)",
        ),
        "Gini": doc(
            _example(
                "Gini@2",
                ((2 * 3 - 5 - 1) * 1 + (2 * 4 - 5 - 1) * 1 + (2 * 5 - 5 - 1) * 2) / (5 * 4),
                "Exposures over the 5 items in increasing order: 0 0 1 1 2 (sum 4): "
                "(0*0 + 0*0 + 0*1 + 2*1 + 4*2) / (5 * 4) = 0.5.",
            ),
            _RUN_LEVEL + " scope='catalogue' (default) counts never-shown items as 0.",
            other="RecBole GiniIndex@k (the same, over its dataset's item count: pass it as "
            "num_items); Elliot Gini reports 1 - N/(N-1) G: Gini(form='elliot')@k; tools "
            "that take the Gini of the shown items only: Gini(scope='shown')@k",
        ),
        "Entropy": doc(
            _example(
                "Entropy@2",
                -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25)),
                "Exposure shares: a 2/4, c 1/4, d 1/4: -(0.5 ln 0.5 + 2 * 0.25 ln 0.25) = 1.0397.",
            ),
            _RUN_LEVEL,
            other="RecBole ShannonEntropy@k (natural log; its shares divide by users x k, "
            "the same when every list has k items); Elliot SEntropy (bits, per-user weights "
            "1/|L_u|: Entropy(log='log2')@k when every list has k items); Microsoft "
            "recommenders distributional_coverage (bits: Entropy(log='log2'))",
        ),
        "ARP": doc(
            _example(
                "ARP@2",
                ((10 + 3) / 2 + (1 + 10) / 2 + 0) / 3,
                "u1: (10 + 3)/2 = 6.5; u2: (1 + 10)/2 = 5.5; u3 (no list): 0; mean 12/3 = 4.",
            ),
            "Needs popularity=. An item the popularity data does not list has popularity 0; "
            "a user without a list scores 0 (queries='both' leaves such users out).",
            other="RecBole AveragePopularity@k (popularity: training interactions per item, "
            "ARP(count='interactions')@k; it divides by k, the same for full lists); Elliot "
            "ARP (popularity: distinct training users per item, as ARP@k counts a table of "
            "training interactions)",
        ),
        "APLT": doc(
            _example(
                "APLT@2",
                (1 / 2 + 1 / 2 + 0) / 3,
                "Short head: a (10 >= 20% of 20); u1: c in the long tail, 1/2; u2: d, 1/2; "
                "u3: 0; mean 1/3.",
            ),
            "Needs popularity=. Items missing from the popularity data are in the long tail.",
            other="Elliot APLT (short head from its Popularity pop_ratio: pass head_share "
            "equal to it; its ties between equally popular items follow its internal item "
            "order, here item id order); RecBole TailPercentage@k chooses the long tail by "
            "its tail_ratio setting (a count threshold or a fraction of the items), not by "
            "a share of the interactions",
        ),
        "ACLT": doc(
            _example(
                "ACLT@2",
                (1 + 1 + 0) / 3,
                "Short head: a; u1 shows 1 long-tail item (c), u2 1 (d), u3 0: mean 2/3.",
            ),
            "Needs popularity=. Counts, not shares: bounded by k.",
            other="Elliot ACLT (short head as for APLT)",
        ),
        "PSP": doc(
            _example(
                "PSP@2",
                _w(10) / (_w(10) + _w(3) + _w(5) + _w(1)),
                f"{_PS_RELEVANT} Best lists: u1 a, u2 c b, u3 e: PSP@2 = w(10) / (w(10) + "
                "w(3) + w(5) + w(1)) (the 1/k cancel) = 0.1964.",
                PS_OPTIONS,
            ),
            _PS_NOTE,
            other="pyxclib xclib.evaluation.xc_metrics.psprecision (inv_psp from "
            "compute_inv_propesity(train_labels, A, B)); the Extreme Classification "
            "Repository's PSP@k",
        ),
        "PSnDCG": doc(
            _example(
                "PSnDCG@2",
                _w(10) / (_w(10) + (_w(3) + _w(5) / math.log2(3)) / (1 + 1 / math.log2(3)) + _w(1)),
                f"{_PS_RELEVANT} u1: w(10) / Z, Z = 1; best: u1 w(10), u2 (w(3) + "
                "w(5)/log2 3) / (1 + 1/log2 3), u3 w(1): the ratio is 0.2586.",
                PS_OPTIONS,
            ),
            _PS_NOTE,
            other="pyxclib xclib.evaluation.xc_metrics.psndcg",
        ),
        "PSR": doc(
            _example(
                "PSR@2",
                _w(10) / (_w(10) + (_w(3) + _w(5)) / 2 + _w(1)),
                f"{_PS_RELEVANT} u1: w(10)/1; best: u1 w(10)/1, u2 (w(3) + w(5))/2, u3 "
                "w(1)/1: the ratio is 0.2597.",
                PS_OPTIONS,
            ),
            _PS_NOTE,
            other="pyxclib xclib.evaluation.xc_metrics.psrecall",
        ),
        "EPC": doc(
            _example(
                "EPC@2",
                ((1 - 10 / 20) / (1 + 1 / math.log2(3)) + 0 + 0) / 3,
                "u1: a relevant at rank 1, (1 - 10/20) * 1 / (1 + 1/log2 3) = 0.3066; u2 "
                "shows no relevant item, u3 no list: 0; mean 0.1022 (N = 20).",
                PS_OPTIONS,
            ),
            "Needs popularity= (distinct training users per item) and num_users=. Users "
            "without a relevant item score 0 (Elliot leaves them out of its mean).",
            other="Elliot EPC (the same discounted form, over users with a relevant item); "
            "Microsoft recommenders novelty is unrelated to relevance: no equivalent",
        ),
        "EFD": doc(
            _example(
                "EFD@2",
                (-math.log2(10 / 20) / (1 + 1 / math.log2(3)) + 0 + 0) / 3,
                "u1: a relevant at rank 1, -log2(10/20) * 1 / (1 + 1/log2 3) = 0.6131; u2 "
                "and u3: 0; mean 0.2044.",
            ),
            "Needs popularity=. Users without a relevant item score 0 (Elliot leaves them "
            "out of its mean).",
            other="Elliot EFD (the same, its unseen-item novelty included; over users with "
            "a relevant item)",
        ),
        "PopREO": doc(
            MeasureExample(
                "PopREO@3",
                QRELS,
                RUN,
                abs(1 / 1 - 1 / 3) / (1 / 1 + 1 / 3),
                "Top-3 lists: u1 a c b, u2 d a b, u3 none. Short head: a. Relevant in the "
                "head: u1's a, found: P_head = 1/1; in the long tail: u2's b and c, u3's e, of "
                "which b is found: P_tail = 1/3; |1 - 1/3| / (1 + 1/3) = 0.5.",
                OPTIONS,
            ),
            "Needs popularity=. Computed over the whole run (aggregate 'run'), no per-query "
            "values. Items the popularity data does not list are in the long tail "
            "(unlisted='ignore' leaves them out of both groups).",
            other="Elliot PopREO (its groups hold only training items: "
            "PopREO(unlisted='ignore'); its denominators leave out each user's training "
            "items, which test items are not; its head from pop_ratio: head_share=)",
        ),
        "ILD": doc(
            MeasureExample(
                "ILD@3",
                QRELS,
                RUN,
                ((3 - math.sqrt(2)) / 3 + 2 / 3 + 0) / 3,
                "Top-3 lists: u1 a c b, u2 d a b, u3 none. u1: d(a, c) = d(c, b) = 1 - 1/sqrt 2, "
                "d(a, b) = 1: (3 - sqrt 2)/3 = 0.5286; u2: d(d, a) = 0, d(d, b) = d(a, b) = 1: "
                "2/3; u3 (no pair): 0; mean 0.3984.",
                FEATURE_OPTIONS,
            ),
            "Needs item_features=. A user whose list has fewer than 2 items scores 0; an "
            "item of a list without features is an error, and so is a zero vector with the "
            "cosine distance. distance='jaccard' reads label sets (or 0/1 vectors).",
            other="Microsoft recommenders diversity / user_diversity with "
            "item_sim_measure='item_feature_vector' (1 - the mean cosine similarity of the "
            "pairs of a list: ILD on its lists; users with fewer than 2 items have no pair "
            "and leave its mean, here they score 0; a pair without a similarity counts 0, "
            "here an item without features is an error); its default "
            "item_sim_measure='item_cooccurrence_count' uses co-occurrence in the training "
            "data, not features: no equivalent. RecBole and Elliot have no ILD",
        ),
        "PopRSP": doc(
            MeasureExample(
                "PopRSP@2",
                QRELS,
                RUN,
                abs(2 / 2 - 2 / 10) / (2 / 2 + 2 / 10),
                f"{_TOP2} Short head: a; the long tail: b c d e. Candidates (items not "
                "trained on): u1 (b) head 1, tail 3; u2 (c) 1, 3; u3 (a) 0, 4. Recommended: "
                "head a twice, tail c and d: P_head = 2/2, P_tail = 2/10; |1 - 0.2| / "
                "(1 + 0.2) = 0.6667.",
                TRAIN_OPTIONS,
            ),
            "Needs train= (each user's training items) and popularity= (else the "
            "popularity is train='s interactions per item). Computed over the whole run "
            "(aggregate 'run'), no per-query values. Only items of a list that the user did "
            "not train on count (the published formula ranks un-interacted items). Items "
            "the popularity data does not list are in the long tail, and the catalogue is "
            "num_items= items, else the popularity data's (unlisted='ignore': the groups "
            "hold only the popularity data's items).",
            other="Elliot PopRSP (its groups hold only training items: "
            "PopRSP(unlisted='ignore'); its head from pop_ratio: head_share=; its users are "
            "those with recommendations: queries='run'); RecBole has no PopRSP",
        ),
    }
)
