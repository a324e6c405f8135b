"""Layer 7, presentation: tables and text formats of comparisons, worked explanations,
plots and the HTML report. It reads results and comparisons; nothing below imports it
(except the thin ``plot_*``/``to_latex``-style methods, lazily)."""
