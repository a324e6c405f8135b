"""Statistics on per-query values: paired tests, resampling, corrections, effect sizes,
Tukey's HSD and the rank correlation of orderings of systems.

Pure functions on numpy arrays; they know nothing of qrels, runs or measures.
:func:`ranklens.compare` puts them together for runs evaluated on the same queries.

=========================  ===============================================================
module                     holds
=========================  ===============================================================
``paired_tests``           Student's t (and its interval), Wilcoxon signed-rank, sign test,
                           wins/ties/losses
``randomization``          Fisher's paired sign-flip randomization test
``bootstrap``              paired bootstrap test (shift method) and percentile interval
``corrections``            Holm, Bonferroni, Benjamini-Hochberg
``effect_size``            paired Cohen's d (d_z)
``tukey``                  Tukey's HSD, one-way or with queries as blocks
``correlation``            Kendall's tau-b and Spearman's rho of two orderings of systems
``power``                  power, minimum detectable difference, topic set size design
``discriminative``         ASLs by bootstrap and randomised Tukey HSD; swap rates
``friedman``               Friedman's test, mean ranks, Nemenyi's critical difference
``bayesian``               posterior probability of being better; region of practical
                           equivalence
``risk``                   URisk, TRisk (one baseline), ZRisk, GeoRisk (all systems)
=========================  ===============================================================

>>> from ranklens.analysis.stats import t_test, adjust_p_values
>>> p = t_test([[0.1, 0.3], [0.2, -0.1], [0.3, 0.2], [0.2, 0.0]]).p_value
>>> adjust_p_values(p, "bonferroni").round(3).tolist()
[0.033, 0.707]
"""

from __future__ import annotations

from ranklens.analysis.stats.bayesian import prob_better, rope_probabilities
from ranklens.analysis.stats.bootstrap import BootstrapResult, bootstrap_interval, bootstrap_test
from ranklens.analysis.stats.corrections import CORRECTIONS, Correction, adjust_p_values
from ranklens.analysis.stats.correlation import RankCorrelation, system_correlation
from ranklens.analysis.stats.effect_size import paired_cohens_d
from ranklens.analysis.stats.friedman import (
    FriedmanResult,
    friedman_test,
    nemenyi_critical_difference,
)
from ranklens.analysis.stats.paired_tests import (
    PairedResult,
    sign_test,
    t_interval,
    t_test,
    wilcoxon_test,
    wins_ties_losses,
)
from ranklens.analysis.stats.randomization import randomization_test
from ranklens.analysis.stats.risk import georisk, urisk_trisk, zrisk
from ranklens.analysis.stats.tukey import TukeyHSD, tukey_hsd

__all__ = [
    "CORRECTIONS",
    "BootstrapResult",
    "Correction",
    "FriedmanResult",
    "PairedResult",
    "RankCorrelation",
    "TukeyHSD",
    "adjust_p_values",
    "bootstrap_interval",
    "bootstrap_test",
    "friedman_test",
    "georisk",
    "nemenyi_critical_difference",
    "paired_cohens_d",
    "prob_better",
    "randomization_test",
    "rope_probabilities",
    "sign_test",
    "system_correlation",
    "t_interval",
    "t_test",
    "tukey_hsd",
    "urisk_trisk",
    "wilcoxon_test",
    "wins_ties_losses",
    "zrisk",
]
