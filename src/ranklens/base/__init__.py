"""Layer 0, the foundation: the exception tree, shared type aliases, the loader of optional
dependencies and the segment primitives over offsets. It imports nothing else of ranklens."""
