"""trec_eval compatibility: trec_eval's measure names, parameters and output, over the shared
engine (the ``ranklens trec-eval`` command is a front end to it, not a second implementation).
"""
