"""Collecting what Spark tasks send back (:mod:`ranklens.scale.part_batches`'s batches) on
the driver, as one Arrow table, with progress reported from Spark's status tracker."""

from __future__ import annotations

import threading
import uuid
import warnings
from typing import Any

from ranklens.base.progress import Progress


def collect(frame: Any, progress: Progress | None) -> Any:
    """``frame.toArrow()`` (a pyarrow Table); with ``progress``, its jobs run in a job
    group of their own (this thread's, restored after) whose tasks a polling thread
    reports."""
    if progress is None:
        return to_arrow(frame)
    context = frame.sparkSession.sparkContext
    group = f"ranklens-{uuid.uuid4().hex}"
    previous = context.getLocalProperty("spark.jobGroup.id")
    stop = threading.Event()
    known = [0, 0]

    def tasks() -> tuple[int, int]:
        tracker = context.statusTracker()
        done = total = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage_id in info.stageIds if info is not None else ():
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done, total = done + stage.numCompletedTasks, total + stage.numTasks
        return done, total

    def poll() -> None:
        while not stop.wait(0.25):
            done, total = tasks()
            if total and (done, total) != tuple(known):
                known[:] = [done, total]
                progress(done, total)

    context.setLocalProperty("spark.jobGroup.id", group)
    watcher = threading.Thread(target=poll, name="ranklens-spark-progress", daemon=True)
    watcher.start()
    try:
        table = to_arrow(frame)
    finally:
        stop.set()
        watcher.join()
        context.setLocalProperty("spark.jobGroup.id", previous)
    total = max(tasks()[1], known[1], 1)
    progress(total, total)  # skipped stages never complete their tasks
    return table


def to_arrow(frame: Any) -> Any:
    """``frame.toArrow()``, without pyspark's "not yet fully supports pandas 3" warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return frame.toArrow()
