"""Layer 6, front ends: other tools' command lines and output formats reproduced exactly over
the one engine (``trec_eval``; ``ndeval``)."""
