"""The lab on a real Dask cluster (a scheduler and two worker processes on 127.0.0.1): same figures as in-process,
and a worker killed mid-run loses no finished game."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from biblios_kit.i18n import use_language
from biblios_kit.lab.backends import DaskBackend, InProcessBackend, SchedulerUnreachableError
from biblios_kit.lab.plan import MAIN, Arm, Experiment, RulesetRef
from biblios_kit.lab.runner import LabReport, run_experiment
from biblios_kit.rules import load_ruleset

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskBackend]:
    backend = DaskBackend(workers=2)
    try:
        yield backend
    finally:
        backend.close()


@pytest.fixture(autouse=True)
def _english() -> None:
    use_language("en")


def _experiment(bots: str, games: int, batch: int) -> Experiment:
    refs = (RulesetRef.of(load_ruleset("biblios")), RulesetRef.of(load_ruleset("second-place-dice")))
    arms = (MAIN, Arm("restrict", restriction="no-bluff"))
    return Experiment(refs, (3,), (bots,), arms, games=games, seed=3, batch=batch)


def _figures(report: LabReport) -> list[dict]:
    return [cell.to_json() for cell in report.cells]


def _rows(path: Path) -> list[tuple[str, int]]:
    return sorted((row["cell"], row["index"]) for row in map(json.loads, path.read_text().splitlines()[1:]))


def test_cluster_results_equal_in_process(cluster: DaskBackend, tmp_path: Path) -> None:
    assert cluster.workers == 2
    experiment = _experiment("random", games=24, batch=4)
    local = run_experiment(experiment, InProcessBackend(), tmp_path / "local.jsonl")
    remote = run_experiment(experiment, cluster, tmp_path / "dask.jsonl")
    assert _figures(remote) == _figures(local)
    assert remote.workers == 2 and remote.played == local.played == 4 * 24
    # Rows arrive in completion order but are the same games, seed for seed.
    assert _rows(tmp_path / "dask.jsonl") == _rows(tmp_path / "local.jsonl")


def test_an_unreachable_scheduler_is_reported() -> None:
    with pytest.raises(SchedulerUnreachableError) as caught:
        DaskBackend(address="tcp://127.0.0.1:9", timeout=1.0)
    assert caught.value.address == "tcp://127.0.0.1:9"


def test_cli_runs_on_an_existing_scheduler(cluster: DaskBackend, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from biblios_kit.cli.app import build_app

    address = cluster.cluster.scheduler_address
    assert address.startswith("tcp://127.0.0.1:")
    common = ["lab", "sweep", "biblios", "--set", "dice.0.start=2,4", "-p", "2", "-b", "random", "-g", "8", "--json"]
    runner = CliRunner()
    remote = runner.invoke(build_app(), [*common, "--cluster", address, "--results", str(tmp_path / "a.jsonl")])
    local = runner.invoke(build_app(), [*common, "--in-process", "--results", str(tmp_path / "b.jsonl")])
    assert remote.exit_code == 0 and local.exit_code == 0, remote.stderr + local.stderr
    remote_data, local_data = json.loads(remote.stdout), json.loads(local.stdout)
    assert remote_data["workers"] == 2 and local_data["workers"] == 1
    assert remote_data["cells"] == local_data["cells"]


# Last: it kills a worker (the nanny starts a new one, but not at once).
def test_a_killed_worker_loses_no_finished_game(cluster: DaskBackend, tmp_path: Path) -> None:
    experiment = _experiment("easy", games=16, batch=2)
    pids = list(cluster.client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids
    killed: list[int] = []

    def progress(done: int, planned: int) -> None:
        if done and not killed:  # a job has finished: kill a worker while the others are in flight
            os.kill(pids[0], signal.SIGKILL)
            killed.append(done)

    path = tmp_path / "killed.jsonl"
    report = run_experiment(experiment, cluster, path, progress=progress)
    assert killed and killed[0] < 4 * 16
    rows = _rows(path)
    assert len(rows) == len(set(rows)) == 4 * 16  # every game once: none lost, none written twice
    reference = run_experiment(experiment, InProcessBackend(), tmp_path / "reference.jsonl")
    assert _figures(report) == _figures(reference)
