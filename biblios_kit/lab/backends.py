"""Where jobs run: in this process, or on a Dask cluster (a local one sized to the machine, or an existing scheduler).

Both backends take :class:`~biblios_kit.lab.plan.Job` s and yield each job's rows as it
finishes. A job is a pure function of its data (see :func:`~biblios_kit.lab.plan.run_job`), so
the rows of a game are identical whatever the backend and the number of workers, and a job
re-run after a worker is lost gives the same rows.
"""

from __future__ import annotations

import importlib
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from typing import Any, Protocol

from biblios_kit.lab.plan import GameRow, Job, run_job


class Backend(Protocol):
    """Runs jobs and yields (job, rows) as each finishes, in any order."""

    workers: int
    """How many games can run at once."""

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
        """Run ``jobs`` (taken from the iterable as the backend has room); yield each with its rows as it finishes."""
        ...

    def close(self) -> None:
        """Release the backend's resources."""
        ...


class InProcessBackend:
    """Plays every job in this process, in order (the reference the Dask runs are checked against)."""

    workers = 1

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
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


WORKERS_GONE_AFTER = 60.0
"""Seconds a Dask run waits with no worker on the cluster before it stops (:class:`WorkersGoneError`)."""


class WorkersGoneError(RuntimeError):
    """The cluster has had no worker for ``seconds`` seconds while games waited to be played."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"no Dask worker for {seconds:g} s")


class ClusterLostError(RuntimeError):
    """The connection to the Dask scheduler was lost (the scheduler stopped, or the network between)."""


class WorkerWatch:
    """Notices a cluster left without workers: :meth:`check` raises once none was seen for ``limit`` seconds.

    ``count`` gives the number of workers now (an error counts as none: a scheduler that
    cannot be asked has no worker for this run).
    """

    def __init__(self, count: Callable[[], int], limit: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.count = count
        self.limit = limit
        self.clock = clock
        self.since: float | None = None
        """When the cluster was first seen without workers (``None`` while it has some)."""

    def check(self) -> None:
        """Count the workers; raise :class:`WorkersGoneError` if there has been none for ``limit`` seconds."""
        try:
            workers = self.count()
        except Exception:  # the scheduler is gone or does not answer
            workers = 0
        now = self.clock()
        if workers > 0:
            self.since = None
            return
        if self.since is None:
            self.since = now
        if now - self.since >= self.limit:
            raise WorkersGoneError(self.limit)


class DaskBackend:
    """Runs jobs on a Dask cluster through ``dask.distributed``.

    With ``address`` (``tcp://host:port``), joins that scheduler; without, starts a
    ``LocalCluster`` of ``workers`` single-threaded worker processes (default: one per CPU)
    on 127.0.0.1, closed by :meth:`close`. Jobs are taken as room frees up (a few per
    worker in flight) and gathered as they complete; Dask re-runs the jobs of a worker that
    dies on the others. A cluster left without any worker (all of them gone, or none ever
    joined) stops the run after ``idle_limit`` seconds with :class:`WorkersGoneError`; a
    scheduler lost for longer than ``timeout`` stops it with :class:`ClusterLostError`.
    """

    def __init__(self, address: str | None = None, workers: int | None = None, timeout: float = 10.0,
                 idle_limit: float | None = None, poll: float = 2.0) -> None:  # fmt: skip
        self.idle_limit = WORKERS_GONE_AFTER if idle_limit is None else idle_limit
        """Seconds without any worker after which :meth:`run` gives up (:class:`WorkersGoneError`)."""
        self.poll = min(poll, self.idle_limit)
        """Seconds without a finished job after which the workers are counted."""
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
            logging.getLogger("distributed").setLevel(logging.CRITICAL)  # as silence_logs above: no log tracebacks
            try:
                self.client = Client(address, timeout=timeout)
            except (OSError, TimeoutError) as error:
                raise SchedulerUnreachableError(address, str(error) or type(error).__name__) from None
        info = self.client.scheduler_info()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    def _count_workers(self) -> int:
        return len(self.client.nthreads())

    def run(self, jobs: Iterable[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
        """Submit ``jobs`` as room frees up (a few per worker in flight) and yield each as it completes.

        Raises :class:`WorkersGoneError` when the cluster has had no worker for
        ``idle_limit`` seconds while jobs wait, :class:`ClusterLostError` when the client
        loses the scheduler (an error raised by a job itself goes through as it is).
        """
        distributed: Any = importlib.import_module("dask.distributed")
        closed: type[Exception] = importlib.import_module("distributed.comm").CommClosedError
        pending = iter(jobs)
        futures: dict[Any, Job] = {}
        window = max(16, 4 * self.workers)
        watch = WorkerWatch(self._count_workers, self.idle_limit)

        def fill() -> None:
            while len(futures) < window:
                job = next(pending, None)
                if job is None:
                    return
                key = f"lab-{job.ref.content_hash[:12]}-{job.cell}-{job.seed}-{job.start}-{job.stop}"
                futures[self.client.submit(run_job, job, key=key, pure=False)] = job

        try:
            fill()
            while futures:
                try:
                    done = distributed.wait(list(futures), timeout=self.poll, return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    watch.check()
                    continue
                for future in done:
                    job = futures.pop(future)
                    yield job, future.result()
                fill()
        except (CancelledError, closed) as error:  # the client gave up reconnecting: every future is cancelled
            raise ClusterLostError(str(error) or type(error).__name__) from None
        finally:
            for future in futures:
                future.cancel()

    def close(self) -> None:
        """Close the client, and the local cluster if this backend started one."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
