"""Progress of the audit's phases on the console, read from Spark's status tracker.

Each phase runs its Spark jobs in a job group of its own; a thread polls the tracker and shows,
per phase, the tasks done out of the tasks known so far (a stage's tasks are known once it starts).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

if TYPE_CHECKING:
    from pyspark import SparkContext

POLL_SECONDS = 0.5


class PhaseProgress:
    """Use as a context manager around the job; wrap each phase in `phase(description)`."""

    def __init__(self, context: SparkContext, console: Console) -> None:
        self._context = context
        self._bars = Progress(
            TextColumn("{task.description:<28}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("tasks"),
            TimeElapsedColumn(),
            console=console,
        )
        self._groups: dict[str, TaskID] = {}
        self._finished: set[str] = set()
        # Stage id -> (tasks, completed): a finished stage may leave the tracker before the last poll.
        self._stages: dict[int, tuple[int, int]] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="epochlint-progress", daemon=True)

    def __enter__(self) -> PhaseProgress:
        self._bars.start()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()
        self._bars.stop()

    @contextmanager
    def phase(self, description: str) -> Iterator[None]:
        group = f"epochlint-{len(self._groups)}"
        self._context.setJobGroup(group, description)
        with self._lock:
            self._groups[group] = self._bars.add_task(description, total=None)
        try:
            yield
        finally:
            self._update(group, finished=True)
            self._context.setJobGroup("", "")

    def _poll(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            with self._lock:
                groups = [group for group in self._groups if group not in self._finished]
            for group in groups:
                self._update(group, finished=False)

    def _update(self, group: str, finished: bool) -> None:
        # One update at a time, so that a poll that started before the phase ended cannot undo it.
        with self._lock:
            if group in self._finished:
                return
            total, done = self._count(group)
            task = self._groups[group]
            if finished:
                # Stages that Spark skipped (their shuffle output was reused) count as done.
                self._finished.add(group)
                self._bars.update(task, total=total, completed=total)
            else:
                self._bars.update(task, total=total or None, completed=done)

    def _count(self, group: str) -> tuple[int, int]:
        tracker = self._context.statusTracker()
        total = done = 0
        for job_id in tracker.getJobIdsForGroup(group):
            job = tracker.getJobInfo(job_id)
            for stage_id in job.stageIds if job is not None else ():
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    self._stages[stage_id] = (stage.numTasks, stage.numCompletedTasks)
                tasks, completed = self._stages.get(stage_id, (0, 0))
                total += tasks
                done += completed
        return total, done
