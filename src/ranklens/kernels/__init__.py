"""Pure vectorised measure kernels: :class:`~ranklens.ranking.align.Ranked` arrays in, one float64
value per query out. One module per family; no loops over queries or documents."""
