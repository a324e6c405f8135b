"""The experiment workflow: check input files (:mod:`.checks`), run an experiment from a
manifest into a results file (:mod:`.manifest`, :mod:`.experiment`), tell two results
files apart (:mod:`.diff`), and browse a folder of them (:mod:`.server`).

This layer sits above presentation (the HTML report, MLflow logging) and below the
command line.
"""
