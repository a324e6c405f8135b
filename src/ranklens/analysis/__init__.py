"""Layer 6, analysis of results: statistics (paired tests, corrections, intervals),
:func:`compare` and curves. It reads :class:`~ranklens.Results`; it never formats them."""
