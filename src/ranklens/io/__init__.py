"""Reading and writing qrels and runs: TREC text, dicts, records and DataFrames."""
