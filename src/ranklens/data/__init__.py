"""Layer 1, the data model and I/O: :class:`Qrels` and :class:`Run` (columnar arrays grouped
by query), the readers and writers of every input (TREC text, dicts, records, DataFrames,
trec_eval's preference and judgement-group files), the bundled example data and the native
core (``ranklens.data._core``) that parses, groups, ranks and joins."""
