"""The parameter study: Dask runs, SQLite rows, resume without reruns, report, errors."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.cli import main
from rompicapo.common import InputError
from rompicapo.edges.generate import generate
from rompicapo.edges.puzzle import eternity2, format_pieces
from rompicapo.edges.study import (
    BLACKWOOD_HEURISTIC_SIDES,
    Budget,
    Design,
    StudyError,
    Variant,
    base_variant,
    colour_sets,
    open_study,
    perturb_breaks,
    perturb_quota,
    plan_jobs,
    run_job,
    run_study,
)
from rompicapo.edges.study_report import study_report

# Eternity II with 20,000-node jobs: each job takes a few milliseconds of search (plus ~20 ms
# of tables), and a node budget makes each job's counts the same on every run (what the resume
# test compares). Generated puzzles would not do: Blackwood's curve, scaled to a small board,
# asks for more prioritised sides than its first rows can hold and the search stops there.
PUZZLE = eternity2()
DESIGN = Design(colour_sets="sample:3", curves=2, break_variants=1, seeds=1, baseline_seeds=2)
BUDGET = Budget(node_limit=20_000)
SMALL, _ = generate(6, 6, frame_colours=2, inner_colours=4, seed=3)
# Columns that do not depend on the machine, the time or the worker.
STABLE = "id, variant, params, seed, budget, depth, score, score_depth, placements, nodes, heat"


def _table(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(f"SELECT {STABLE} FROM results ORDER BY id").fetchall()
    finally:
        conn.close()


def test_design_counts_and_identity() -> None:
    jobs = plan_jobs(PUZZLE, DESIGN, BUDGET)
    # baseline 2 seeds + 3 colour sets + 2 curves + Bucas's breaks + 1 random break set, one
    # seed each
    assert len(jobs) == len({j["id"] for j in jobs}) == 9
    assert [j["id"] for j in plan_jobs(PUZZLE, DESIGN, BUDGET)] == [j["id"] for j in jobs]
    # off 256 cells: no Bucas set; all 2 x C(4, 2) colour sets, one of them the baseline's,
    # whose two seeds are the baseline's seeds 0 and 1 (the same jobs, run once)
    small = plan_jobs(SMALL, Design(colour_sets="all", curves=1, break_variants=1), BUDGET)
    assert len(colour_sets(SMALL)) == 12 and len(small) == 10 + 2 * (12 + 1 + 1) - 2
    listed = Design(colour_sets="list:13-10-16,5-3-8", curves=0, break_variants=0, seeds=3,
                    baseline_seeds=0)  # fmt: skip
    assert sorted({tuple(j["variant"]["heuristic"]) for j in plan_jobs(PUZZLE, listed, BUDGET)}) \
        == [(3, 5, 8), (10, 13, 16)]  # fmt: skip
    other = plan_jobs(PUZZLE, DESIGN, Budget(node_limit=20_001))
    assert not {j["id"] for j in jobs} & {j["id"] for j in other}  # the budget is identity
    # Eternity II: 5 frame colours x C(17, 2) inner pairs (reference §1: frame colours
    # 1 5 9 13 17, 17 inner colours)
    assert len(colour_sets(eternity2())) == 5 * 136
    assert base_variant(eternity2()).heuristic == (10, 13, 16)


def test_local_dask_cluster_writes_the_expected_rows(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    db = tmp_path / "s.sqlite"
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        run = run_study(db, PUZZLE, DESIGN, BUDGET, scheduler=client)
    jobs = plan_jobs(PUZZLE, DESIGN, BUDGET)
    assert (run.planned, run.ran, run.remaining, run.interrupted) == (9, 9, 0, False)
    rows = _table(db)
    assert sorted(r[0] for r in rows) == sorted(j["id"] for j in jobs)
    by_id = {j["id"]: j for j in jobs}
    for row in rows:
        job = by_id[row[0]]
        assert Variant.from_json(row[2]) == Variant.from_dict(job["variant"])
        assert row[3] == job["seed"] and row[9] == 20_000  # nodes = the budget
        # 20,000 nodes place some pieces, far from all 256 (480 joints); score <= joints of
        # the pieces placed (a 16-wide board filled row by row: under 2 per piece)
        assert 16 < row[5] < 256 and 0 < row[6] < 2 * row[7]
    # the same jobs in this process give the same rows (node budgets are reproducible)
    db2 = tmp_path / "local.sqlite"
    run_study(db2, PUZZLE, DESIGN, BUDGET, jobs=1)
    assert _table(db2) == rows


def _counting(calls: Counter, stop_at: int | None = None):
    lock = threading.Lock()

    def job(spec: dict) -> dict:
        with lock:
            calls[spec["id"]] += 1
            if stop_at is not None and sum(calls.values()) == stop_at:
                raise KeyboardInterrupt  # Ctrl-C while the stop_at-th job runs
        return run_job(spec)

    return job


def test_interrupted_study_resumes_without_reruns(tmp_path: Path) -> None:
    whole = tmp_path / "whole.sqlite"
    run_study(whole, PUZZLE, DESIGN, BUDGET, jobs=1)
    db = tmp_path / "cut.sqlite"
    calls: Counter = Counter()
    first = run_study(db, PUZZLE, DESIGN, BUDGET, jobs=1, limit=3, job_func=_counting(calls))
    assert (first.ran, first.interrupted, len(_table(db))) == (3, True, 3)
    # Ctrl-C during the 3rd new job: the two before it are kept, the one running is not
    second = run_study(db, PUZZLE, DESIGN, BUDGET, jobs=1, job_func=_counting(calls, stop_at=6))
    assert (second.already_done, second.ran, second.interrupted) == (3, 2, True)
    assert len(_table(db)) == 5
    third = run_study(db, PUZZLE, DESIGN, BUDGET, jobs=1, job_func=_counting(calls))
    assert (third.already_done, third.ran, third.remaining) == (5, 4, 0)
    assert _table(db) == _table(whole)
    # every job ran once, except the one the interrupt hit, which ran again (it had no result)
    assert sorted(calls.values()) == [1] * 8 + [2]
    assert run_study(db, PUZZLE, DESIGN, BUDGET, jobs=1).ran == 0


def test_report_renders_pngs_that_open(tmp_path: Path) -> None:
    from PIL import Image

    db = tmp_path / "r.sqlite"
    design = Design(colour_sets="sample:6", curves=3, break_variants=2, seeds=1)
    run_study(db, PUZZLE, design, BUDGET, jobs=1)
    out = study_report(db, tmp_path / "report").to_dict()
    pngs = [Path(f) for f in out["files"] if f.endswith(".png")]
    assert {p.name for p in pngs} == {"colour_sets.png", "quota_curves.png", "scores.png",
                                      "heat.png"}  # fmt: skip
    for p in pngs:
        with Image.open(p) as im:
            im.verify()
            assert im.size[0] > 100 and im.size[1] > 100
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "| baseline | 1 | 10 |" in summary  # Design default: 10 baseline seeds
    assert (tmp_path / "report" / "variants.csv").read_text().count("\n") == out["variants"] + 1
    # every file is written whole through a temporary one renamed into place: none is left
    assert sorted(p.name for p in (tmp_path / "report").iterdir() if p.name.startswith(".")) == []


def test_a_report_that_fails_midway_keeps_the_earlier_files_whole(tmp_path: Path, monkeypatch):
    import matplotlib.figure

    db = tmp_path / "r.sqlite"
    run_study(db, PUZZLE, Design(colour_sets="sample:6", curves=3, break_variants=2, seeds=1),
              BUDGET, jobs=1)  # fmt: skip
    study_report(db, tmp_path / "report")
    before = {p.name: p.read_bytes() for p in (tmp_path / "report").iterdir()}

    def full_disk(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full_disk)
    with pytest.raises(OSError):
        study_report(db, tmp_path / "report")
    after = {p.name: p.read_bytes() for p in (tmp_path / "report").iterdir()}
    assert after == before  # the pictures of the first report, whole; no temporary file left


def test_bad_study_files_give_one_line_errors(tmp_path: Path, capsys) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(StudyError, match="not a SQLite file"):
        open_study(junk, PUZZLE)
    foreign = tmp_path / "foreign.sqlite"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(StudyError, match="not a rompicapo edges study"):
        open_study(foreign, PUZZLE)
    good = tmp_path / "good.sqlite"
    open_study(good, PUZZLE, create=True).close()
    with pytest.raises(StudyError, match="another puzzle"):
        open_study(good, SMALL)
    conn = sqlite3.connect(good)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'version'")
    conn.commit()
    conn.close()
    with pytest.raises(StudyError, match="schema version 99"):
        open_study(good, PUZZLE)
    truncated = tmp_path / "trunc.sqlite"
    run_study(truncated, PUZZLE, Design(colour_sets="none", curves=0, break_variants=0), BUDGET,
              jobs=1)  # fmt: skip
    data = truncated.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(StudyError):
        open_study(truncated, PUZZLE)
    # the CLI: one line on stderr, exit status 2
    pieces = tmp_path / "p.txt"
    pieces.write_text(format_pieces(SMALL))
    for bad in (junk, foreign):
        assert main(["edges", "study-report", str(bad), "--out", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and str(bad) in err
        assert main(["edges", "study", str(pieces), "--db", str(bad), "--nodes", "10"]) == 2
        assert capsys.readouterr().err.strip().count("\n") == 0


def test_cli_study_then_report(tmp_path: Path, capsys) -> None:
    db = tmp_path / "c.sqlite"
    args = ["edges", "study", "eternity2", "--db", str(db), "--jobs", "1", "--nodes", "2000",
            "--colour-sets", "sample:2", "--curves", "1", "--break-variants", "0", "--seeds", "1",
            "--baseline-seeds", "2", "--quiet"]  # fmt: skip
    assert main([*args, "--max-jobs", "2"]) == 0
    assert "2 jobs run now" in capsys.readouterr().out
    assert main(args) == 0
    assert "3 jobs run now, 2 found finished, 0 left of 5" in capsys.readouterr().out
    assert main(["edges", "study-report", str(db), "--out", str(tmp_path / "rep")]) == 0
    assert "5 jobs; report written" in capsys.readouterr().out
    assert main([*args[:-1], "--colour-sets", "some"]) == 2
    assert "colour sets must be" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Variant generation and serialisation
# --------------------------------------------------------------------------------------------

BASE_QUOTA = base_variant(eternity2()).quota


@settings(max_examples=60, deadline=None)
@given(
    heuristic=st.lists(st.integers(0, 63), min_size=1, max_size=5),
    quota=st.lists(st.integers(0, 300), max_size=40),
    breaks=st.lists(st.integers(0, 1000), max_size=15),
)
def test_variant_json_round_trip(heuristic, quota, breaks) -> None:
    v = Variant(tuple(heuristic), tuple(quota), tuple(breaks))
    assert Variant.from_json(v.to_json()) == v
    assert Variant.from_dict(v.to_dict()).key == v.key
    # order of the colours and of the break indexes does not make another variant
    assert Variant(tuple(reversed(heuristic)), tuple(quota), tuple(reversed(breaks))) == v


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), amplitude=st.floats(0, 0.9))
def test_perturbed_quota_is_a_usable_curve(seed, amplitude) -> None:
    q = np.array(perturb_quota(BASE_QUOTA, np.random.default_rng(seed), amplitude))
    base = np.array(BASE_QUOTA)
    assert len(q) == 256 and np.all(q[base == 0] == 0)
    active = q[base > 0]
    assert np.all(np.diff(active) >= 0) and active.max() <= BLACKWOOD_HEURISTIC_SIDES
    # within the amplitude of Blackwood's curve (before the cap and the monotone repair)
    assert np.all(active <= np.floor(base[base > 0] * (1 + amplitude)) + 1e-9)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shift=st.integers(0, 20), n=st.integers(16, 400))
def test_perturbed_breaks_stay_on_the_board(seed, shift, n) -> None:
    base = [round(p * n / 256) for p in (201, 206, 211, 216, 221, 225, 229, 233, 237, 239)]
    b = perturb_breaks(base, n, np.random.default_rng(seed), shift)
    assert len(b) == 10 and list(b) == sorted(b) and all(1 <= x <= n - 1 for x in b)


@given(text=st.text(max_size=40))
def test_variant_from_garbage_is_an_input_error(text) -> None:
    with contextlib.suppress(InputError):  # anything else (a traceback) fails the test
        Variant.from_json(text)


def test_a_baseline_job_is_blackwoods_search() -> None:
    # The study's job loop (with the quota set from the variant) must search exactly as
    # blackwood.search with Blackwood's settings: same seed and node budget, same counts.
    from rompicapo.edges.blackwood import search
    from rompicapo.edges.puzzle import eternity2_clues

    job = next(j for j in plan_jobs(PUZZLE, DESIGN, BUDGET) if j["seed"] == 1
               and Variant.from_dict(j["variant"]) == base_variant(PUZZLE))  # fmt: skip
    out = run_job(job)
    ref = search(PUZZLE, eternity2_clues("centre"), time_limit=None, node_limit=20_000, seed=1)
    assert (out["depth"], out["score"], out["placements"]) == (
        ref.deepest, ref.search_score, ref.counts["placements"]
    )  # fmt: skip
    assert out["heat"] == ref.heat.ravel().tolist() and out["verified"]


def test_wilson_interval() -> None:
    from rompicapo.edges.study_report import wilson

    # 24 of 24: the Wilson lower bound is n / (n + z^2) = 24 / 27.84 = 0.862 (Wilson 1927)
    p, lo, hi = wilson(24, 24)
    assert p == 1.0 and hi == 1.0 and abs(lo - 24 / (24 + 1.96**2)) < 1e-12
    p, lo, hi = wilson(3, 6)
    assert p == 0.5 and abs((lo + hi) / 2 - 0.5) < 1e-12 and 0.15 < lo < 0.2  # 0.188


def test_a_bad_scheduler_address_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot connect to the Dask scheduler"):
        run_study(tmp_path / "s.sqlite", PUZZLE, DESIGN, BUDGET, scheduler="nonsense:://x")


@pytest.mark.parametrize("command", ["study-report", "hunt-report"])
def test_a_report_never_overwrites_its_input_inside_its_folder(command, tmp_path, capsys) -> None:
    # the input lies in the report's folder under the name of one of the report's files
    folder = tmp_path / "report"
    folder.mkdir()
    db = folder / ("summary.md" if command == "study-report" else "summary.json")
    db.write_bytes(b"SQLite format 3\x00" + bytes(100))
    before = db.read_bytes()
    assert main(["edges", command, str(db), "--out", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "destroy the input" in err and len(err.strip().splitlines()) == 1
    assert db.read_bytes() == before and sorted(folder.iterdir()) == [db]
