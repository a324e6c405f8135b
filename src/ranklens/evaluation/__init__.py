"""Layer 5, evaluation: :class:`Evaluator` (judgments prepared once, many runs),
:func:`evaluate` and :class:`Results`."""
