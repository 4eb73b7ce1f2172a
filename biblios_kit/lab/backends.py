"""Where jobs run: in this process, or on a Dask cluster (a local one sized to the machine, or an existing scheduler).

Both backends take :class:`~biblios_kit.lab.plan.Job` s and yield each job's rows as it
finishes. A job is a pure function of its data (see :func:`~biblios_kit.lab.plan.run_job`), so
the rows of a game are identical whatever the backend and the number of workers, and a job
re-run after a worker is lost gives the same rows.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from biblios_kit.lab.plan import GameRow, Job, run_job


class Backend(Protocol):
    """Runs jobs and yields (job, rows) as each finishes, in any order."""

    workers: int
    """How many games can run at once."""

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
        """Run ``jobs``; yield each with its rows as it finishes."""
        ...

    def close(self) -> None:
        """Release the backend's resources."""
        ...


class InProcessBackend:
    """Plays every job in this process, in order (the reference the Dask runs are checked against)."""

    workers = 1

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
        """Run ``jobs`` one after the other."""
        for job in jobs:
            yield job, run_job(job)

    def close(self) -> None:
        """Nothing to release."""


class SchedulerUnreachableError(ConnectionError):
    """No Dask scheduler answered at the address given."""

    def __init__(self, address: str, reason: str) -> None:
        self.address = address
        self.reason = reason
        super().__init__(f"{address}: {reason}")


class DaskBackend:
    """Runs jobs on a Dask cluster through ``dask.distributed``.

    With ``address`` (``tcp://host:port``), joins that scheduler; without, starts a
    ``LocalCluster`` of ``workers`` single-threaded worker processes (default: one per CPU)
    on 127.0.0.1, closed by :meth:`close`. Jobs are submitted all at once and gathered as
    they complete; Dask re-runs the jobs of a worker that dies on the others.
    """

    def __init__(self, address: str | None = None, workers: int | None = None, timeout: float = 10.0) -> None:
        distributed: Any = importlib.import_module("dask.distributed")  # untyped library: used through Any
        Client, LocalCluster = distributed.Client, distributed.LocalCluster
        self.cluster: Any = None
        if address is None:
            count = workers or os.cpu_count() or 1
            self.cluster = LocalCluster(
                n_workers=count,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=50,
            )
            self.client: Any = Client(self.cluster)
        else:
            try:
                self.client = Client(address, timeout=timeout)
            except (OSError, TimeoutError) as error:
                raise SchedulerUnreachableError(address, str(error) or type(error).__name__) from None
        info = self.client.scheduler_info()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
        """Submit ``jobs`` and yield each as it completes."""
        as_completed: Any = importlib.import_module("dask.distributed").as_completed
        futures: dict[Any, Job] = {}
        for job in jobs:
            key = f"lab-{job.ref.content_hash[:12]}-{job.cell}-{job.seed}-{job.start}-{job.stop}"
            future = self.client.submit(run_job, job, key=key, pure=False)
            futures[future] = job
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        """Close the client, and the local cluster if this backend started one."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
