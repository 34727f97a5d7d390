"""Counting in prefix jobs: processes, Dask, checkpoints that survive an interruption."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError, run_jobs
from rompicapo.paths import checkpoints, count_jobs
from rompicapo.paths import count as count_module
from rompicapo.paths.count import count_paths

# 5x6 caselle from every start: 113,456 paths, by the brute-force counters of
# test_paths_count.py (the 5x6 table is cross-checked there against the plain DFS).
TOTAL_5X6 = 113_456


@pytest.fixture(scope="module")
def uninterrupted():
    return count_paths(5, 6, jobs=1)


def _interrupt_after(n_done: int):
    """A run_jobs that delivers ``n_done`` results and then raises KeyboardInterrupt, like a
    Ctrl-C in the middle of a count."""

    def fake(func, jobs, **kw):
        for k, pair in enumerate(run_jobs(func, jobs, n_jobs=1)):
            if k == n_done:
                raise KeyboardInterrupt
            yield pair

    return fake


def test_uninterrupted_count(uninterrupted):
    assert uninterrupted.count == TOTAL_5X6
    assert uninterrupted.jobs >= count_module.TARGET_JOBS


def test_checkpoint_resumes_to_the_same_total(tmp_path, monkeypatch, uninterrupted):
    ckpt = tmp_path / "count.json"
    with monkeypatch.context() as m:
        m.setattr(count_jobs, "run_jobs", _interrupt_after(37))
        with pytest.raises(KeyboardInterrupt):
            count_paths(5, 6, checkpoint=ckpt)
    saved = json.loads(ckpt.read_text())["payload"]
    assert len(saved["done"]) == 37  # every finished job was saved on the interrupt
    assert saved["problem"]["rows"] == 5 and saved["problem"]["start"] is None

    ran: list = []

    def counting_run_jobs(func, jobs, **kw):
        jobs = list(jobs)
        ran.extend(jobs)
        return run_jobs(func, jobs, n_jobs=1)

    monkeypatch.setattr(count_jobs, "run_jobs", counting_run_jobs)
    resumed = count_paths(5, 6, checkpoint=ckpt)
    assert len(ran) == uninterrupted.jobs - 37  # only the unfinished jobs ran again
    assert resumed.table.tolist() == uninterrupted.table.tolist()
    assert (resumed.count, resumed.nodes) == (uninterrupted.count, uninterrupted.nodes)
    assert resumed.counts["nodes_from_checkpoint"] == sum(n for _, n in saved["done"].values())
    assert resumed.check_samples() if _has_verifier() else True

    ran.clear()
    again = count_paths(5, 6, checkpoint=ckpt)  # all done: nothing runs, same answer
    assert ran == [] and again.count == TOTAL_5X6


def test_checkpoint_refuses_another_problem(tmp_path):
    ckpt = tmp_path / "count.json"
    count_paths(4, 5, jobs=1, checkpoint=ckpt)
    for other in (
        dict(rows=5, cols=4),
        dict(rows=4, cols=5, start=(0, 0)),
        dict(rows=4, cols=5, closed=True),
        dict(rows=4, cols=5, moves="knight"),
    ):
        rows, cols = other.pop("rows"), other.pop("cols")
        with pytest.raises(InputError, match="different problem"):
            count_paths(rows, cols, jobs=1, checkpoint=ckpt, **other)
    assert count_paths(4, 5, jobs=1, checkpoint=ckpt).count == 144


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        '{"format": "something else", "version": 1, "problem": {}, "done": {}}',
        '{"format": "rompicapo-count-checkpoint", "version": 1, "problem": {}, "done": []}',
        '{"format": "rompicapo-count-checkpoint", "version": 1, "problem": {}, '
        '"done": {"0.3": [1]}}',
        '{"format": "rompicapo-count-checkpoint", "version": 1, "problem": {}, '
        '"done": {"x": [1, 2]}}',
    ],
)
def test_corrupt_checkpoint_is_one_line_error(tmp_path, text):
    ckpt = tmp_path / "count.json"
    ckpt.write_text(text)
    with pytest.raises(InputError, match="corrupt") as info:
        count_paths(4, 5, checkpoint=ckpt)
    assert "\n" not in str(info.value)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(st.text(max_size=80), st.binary(max_size=80).map(lambda b: b.decode("latin-1"))))
def test_checkpoint_loader_never_crashes(tmp_path, text):
    ckpt = tmp_path / "fuzz.json"
    ckpt.write_text(text)
    try:
        checkpoints.load_checkpoint(ckpt)
    except InputError as exc:
        assert "\n" not in str(exc)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.dictionaries(
        st.text(alphabet="0123456789.x", max_size=8),
        st.one_of(st.lists(st.integers(-3, 3), max_size=3), st.integers(), st.none()),
        max_size=4,
    )
)
def test_checkpoint_loader_checks_job_entries(tmp_path, done):
    ckpt = tmp_path / "fuzz.json"
    ckpt.write_text(
        json.dumps(
            {"format": count_module.CHECKPOINT_FORMAT, "version": 1, "problem": {}, "done": done}
        )
    )
    try:
        data = checkpoints.load_checkpoint(ckpt)
    except InputError:
        return
    for key, (leaves, nodes) in data["done"].items():
        assert all(part.isdigit() for part in key.split("."))
        assert leaves >= 0 and nodes >= 0


def test_processes_give_the_same_count(uninterrupted):
    result = count_paths(5, 6, jobs=2)
    assert result.table.tolist() == uninterrupted.table.tolist()
    assert result.nodes == uninterrupted.nodes


def test_dask_local_cluster_gives_the_same_count(uninterrupted):
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        by_address = count_paths(5, 6, start=(2, 0), scheduler=cluster.scheduler_address)
        by_client = count_paths(4, 5, scheduler=client)
    assert by_address.count == uninterrupted.table[2, 0] == 7094
    assert by_client.count == 144


def _has_verifier() -> bool:
    try:
        import rompicapo.paths.verify  # noqa: F401
    except ImportError:
        return False
    return True
