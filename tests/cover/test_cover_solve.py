"""The dancing-links engines: the shared README's counts, OEIS counts, and brute force."""

from __future__ import annotations

import itertools

import datafiles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rompicapo.common import InputError
from rompicapo.cover import (
    Problem,
    count,
    iter_solutions,
    langford,
    langford_problem,
    queens,
    queens_problem,
    read_dlx,
    solve,
    split,
    sudoku,
)
from rompicapo.cover.engine import Search
from rompicapo.cover.sudoku_model import problem_and_givens
from rompicapo.cover.verify import cover_violations

DATA = datafiles.DATA / "exact-cover"

# Solution counts from tests/data/exact-cover/README.md (queens: OEIS A000170;
# pentominoes: Haselgrove 1960, 6x10 = 2339 up to symmetry; Langford: OEIS A014552).
README_COUNTS = {
    "queens-8": 92,
    "queens-9": 352,
    "queens-10": 724,
    "queens-11": 2680,
    "queens-12": 14200,
    "queens-13": 73712,
    "pento-3x20": 8,
    "pento-6x10-xq": 2339,
    "langford-7": 52,
    "langford-8": 300,
    "langford-11": 35584,
    "langford-7-half": 26,
    "langford-8-half": 150,
    "langford-11-half": 17792,
    "langford-12-half": 108144,
    "color-example": 1,
    "bounds-example": 1,
}
SLOW_COUNTS = {"queens-14": 365596, "queens-15": 2279184, "pento-6x10": 9356, "pento-4x15": 1472}


@pytest.mark.parametrize("name", sorted(README_COUNTS))
def test_shared_file_gives_the_readme_count(name):
    problem = read_dlx(DATA / f"{name}.dlx")
    assert count(problem).count == README_COUNTS[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW_COUNTS))
def test_big_shared_file_gives_the_readme_count(name):
    assert count(read_dlx(DATA / f"{name}.dlx")).count == SLOW_COUNTS[name]


def test_queens_12_update_count_matches_knuths_dlx1():
    # the issue quotes DLX1 on queens-12: 14,200 solutions, 6.29 M updates; same item choice
    # one process: a parallel count adds the updates of committing each part's prefix
    r = count(read_dlx(DATA / "queens-12.dlx"), engine="links", jobs=1)
    assert r.count == 14200
    assert 6_250_000 < r.counts["updates"] < 6_330_000


# DLX1's own "nodes" figure on these files (Knuth's dlx1.w built with gcc -O3, run on the file
# as it stands here): bit sets choose the same item at every node and so walk the same tree
DLX1_NODES = {
    "queens-12": 327_813,
    "queens-13": 1_651_935,
    "langford-11": 439_747,
    "langford-12-half": 1_564_533,
    "pento-6x10-xq": 909_153,
    "pento-3x20": 32_978,
}


@pytest.mark.parametrize("name", ["queens-12", "langford-11", "pento-3x20"])
def test_bit_sets_walk_knuths_tree(name):
    r = count(read_dlx(DATA / f"{name}.dlx"), engine="bits", jobs=1)
    assert r.algorithm == "X/bits"
    assert r.count == README_COUNTS[name] and r.counts["nodes"] == DLX1_NODES[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["queens-13", "langford-12-half", "pento-6x10-xq"])
def test_bit_sets_walk_knuths_tree_on_the_bigger_files(name):
    test_bit_sets_walk_knuths_tree(name)


def test_bit_sets_find_knuths_solutions_in_his_order():
    # the first solutions of dancing links (Knuth's order: options in input order) come first
    # with bit sets too, and every one of them is an exact cover
    problem = read_dlx(DATA / "pento-6x10-xq.dlx")
    links = solve(problem, limit=3, engine="links")
    bits = solve(problem, limit=3, engine="bits")
    assert bits.solutions == links.solutions and bits.verify()


def test_every_solution_of_small_files_verifies():
    for name in ("queens-8", "langford-8-half", "color-example", "bounds-example", "pento-3x20"):
        problem = read_dlx(DATA / f"{name}.dlx")
        r = solve(problem, limit=None)
        assert r.count == README_COUNTS[name]
        assert len(r.solutions) == r.count
        assert len({tuple(sorted(s)) for s in r.solutions}) == r.count  # all distinct
        assert r.verify()


def test_colour_example_solution_is_knuths():
    # DLX2's documentation: the unique solution is "A C X:1 Y:1" and "B X:1"
    problem = read_dlx(DATA / "color-example.dlx")
    (sol,) = solve(problem, limit=None).solutions
    assert sorted(problem.describe(k) for k in sol) == ["A C X:1 Y:1", "B X:1"]


@pytest.mark.parametrize(
    ("n", "expected"), list(enumerate([1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200], start=1))
)
def test_n_queens_counts_oeis_a000170(n, expected):
    assert queens(n).count == expected


def test_queens_builder_matches_the_shared_files():
    for n in (8, 10):
        built = queens_problem(n)
        shared = read_dlx(DATA / f"queens-{n}.dlx")
        assert sorted(map(sorted, ([i for i, _ in o] for o in built.options))) == sorted(
            map(sorted, ([i for i, _ in o] for o in shared.options))
        )
    r = queens(8, limit=None, keep_solutions=92)
    assert r.count == 92 and len(r.placements) == 92 and r.verify()


def test_langford_builder_counts():
    assert langford(7).count == 52
    assert langford(8, half=True).count == 150
    assert len(langford_problem(11, half=True).options) == 155  # README: 155 options
    r = langford(7, keep_solutions=52)
    assert r.verify() and len(r.sequences) == 52


def test_limit_first_and_lazy_iteration_agree():
    problem = read_dlx(DATA / "queens-8.dlx")
    first = solve(problem).solution
    lazy = list(iter_solutions(problem))
    every = solve(problem, limit=None).solutions
    assert lazy == every and first == every[0] and len(lazy) == 92
    r = solve(problem, limit=5)
    assert r.count == 5 and r.solutions == every[:5] and r.stopped == "limit" and not r.complete


def test_iteration_is_lazy():
    gen = iter_solutions(queens_problem(20))  # far too many to enumerate
    assert len(next(gen)) == 20


def test_random_solutions_are_seeded_valid_and_vary():
    problem = read_dlx(DATA / "queens-10.dlx")
    a = solve(problem, seed=1).solution
    b = solve(problem, seed=1).solution
    picks = {tuple(sorted(solve(problem, seed=s).solution)) for s in range(12)}
    assert a == b
    assert len(picks) > 3
    assert all(not cover_violations(problem, list(p)) for p in picks)


def test_node_and_time_limits_stop_early_with_a_lower_bound():
    problem = read_dlx(DATA / "queens-12.dlx")
    r = solve(problem, limit=None, keep_solutions=0, node_limit=1000)
    assert r.stopped == "nodes" and not r.complete and r.counts["nodes"] <= 1000
    r = solve(problem, limit=None, keep_solutions=0, time_limit=1e-9)
    assert r.stopped == "time" and r.count < 14200


def test_progress_events_rise_to_the_whole_tree():
    seen = []
    r = count(read_dlx(DATA / "queens-11.dlx"), jobs=1, progress=seen.append)
    assert r.count == 2680
    kinds = [e.kind for e in seen]
    assert kinds[0] == "start" and kinds[-1] == "done"
    done = [e.done for e in seen]
    assert done == sorted(done) and done[-1] == 100.0 and seen[-1].total == 100
    assert seen[-1].counts["solutions"] == 2680
    parallel = []
    assert count(read_dlx(DATA / "queens-10.dlx"), jobs=2, progress=parallel.append).count == 724
    assert parallel[-1].kind == "done" and parallel[-1].done == parallel[-1].total > 0


def test_givens_fix_options_and_contradictions_give_no_solution():
    problem = read_dlx(DATA / "queens-8.dlx")
    # option 0 = queen on r0 c0; 4 of the 92 solutions have it
    assert count(problem, givens=[0]).count == 4
    # options 0 (r0 c0) and 1 (r0 c1) share row 0: no solution, no crash
    assert count(problem, givens=[0, 1]).count == 0
    # options 0 (r0 c0) and 9 (r1 c1) share diagonal b7
    assert count(problem, givens=[0, 9]).count == 0
    with pytest.raises(InputError, match="outside"):
        count(problem, givens=[64])


def test_split_covers_the_tree_exactly():
    problem = read_dlx(DATA / "langford-8.dlx")
    for engine in ("links", "cells", "bits"):
        parts = split(problem, 20, engine=engine)
        assert len(parts) >= 20
        assert sum(count(problem, givens=p, engine=engine).count for p in parts) == 300


def test_parallel_count_with_two_threads():
    # 724: queens-10 in the shared README; the colour example (1) goes through bit sets, which
    # take colours as they come (an option excludes those giving its items other colours)
    r = count(read_dlx(DATA / "queens-10.dlx"), jobs=2)
    assert r.count == 724 and r.jobs == 2 and r.counts["parts"] >= 16
    assert r.counts["workers"] in (1, 2)  # one may finish every part before the other starts
    with pytest.warns(DeprecationWarning, match="processes= is no longer used"):
        r = count(read_dlx(DATA / "queens-10.dlx"), jobs=2, processes=True)  # threads all the same
    assert r.count == 724 and r.jobs == 2
    r = count(read_dlx(DATA / "color-example.dlx"), jobs=2)
    assert r.count == 1 and r.algorithm == "C/bits"


def test_multiplicities_refuse_parallel_and_givens():
    problem = read_dlx(DATA / "bounds-example.dlx")
    with pytest.raises(InputError):
        count(problem, jobs=2)
    with pytest.raises(InputError):
        count(problem, givens=[0])


def test_algorithm_m_on_exactly_once_problems_matches_algorithm_x():
    for name in ("queens-8", "langford-8", "pento-3x20"):
        problem = read_dlx(DATA / f"{name}.dlx")
        engine = Search(problem.arrays(), engine="m")
        engine.run(stop_after=10**12, max_store=0, chunk_nodes=10**15)
        assert int(engine.counters[0]) == README_COUNTS[name]


# --- brute force on small random problems ------------------------------------------------


@st.composite
def small_problems(draw, colours: bool, bounds: bool):
    n_primary = draw(st.integers(1, 4))
    n_secondary = draw(st.integers(0, 3))
    primary = [f"p{i}" for i in range(n_primary)]
    secondary = [f"s{i}" for i in range(n_secondary)]
    b = {}
    if bounds:
        for name in primary:
            lo = draw(st.integers(0, 2))
            b[name] = (lo, draw(st.integers(max(lo, 1), 3)))
    p = Problem(primary=primary, secondary=secondary, bounds=b)
    for _ in range(draw(st.integers(1, 9))):
        items = draw(
            st.lists(st.sampled_from(primary), min_size=1, max_size=n_primary, unique=True)
        )
        items += (
            draw(st.lists(st.sampled_from(secondary), max_size=n_secondary, unique=True))
            if secondary
            else []
        )
        col = {
            i: draw(st.sampled_from("ab"))
            for i in items
            if i in secondary and colours and draw(st.booleans())
        }
        p.add_option(items, colours=col)
    return p


def brute_force(problem):
    n = len(problem.options)
    return sorted(
        tuple(c)
        for r in range(n + 1)
        for c in itertools.combinations(range(n), r)
        if not cover_violations(problem, list(c))
    )


@pytest.mark.parametrize("engine", ["links", "bits"])
@settings(max_examples=300, deadline=None)
@given(problem=small_problems(colours=True, bounds=False))
def test_algorithm_c_finds_exactly_the_brute_force_solutions(engine, problem):
    found = sorted(tuple(sorted(s)) for s in solve(problem, limit=None, engine=engine).solutions)
    assert found == brute_force(problem)


@settings(max_examples=300, deadline=None)
@given(small_problems(colours=False, bounds=False))
def test_dancing_cells_finds_exactly_the_brute_force_solutions(problem):
    found = sorted(tuple(sorted(s)) for s in solve(problem, limit=None, engine="cells").solutions)
    assert found == brute_force(problem)


@pytest.mark.parametrize("engine", ["cells", "bits"])
@settings(max_examples=200, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_engines_with_a_seed_and_a_given_match_brute_force(engine, data, seed):
    # a seed shuffles the option and tie-break orders; a given must be in every solution
    # (dancing cells take no colours, bit sets do)
    problem = data.draw(small_problems(colours=engine == "bits", bounds=False))
    every = brute_force(problem)
    found = solve(problem, limit=None, engine=engine, seed=seed).solutions
    assert sorted(tuple(sorted(s)) for s in found) == every
    given_option = seed % len(problem.options)
    with_given = solve(problem, limit=None, engine=engine, givens=[given_option]).solutions
    assert sorted(tuple(sorted(s)) for s in with_given) == [c for c in every if given_option in c]


@pytest.mark.parametrize("name", ["queens-10", "langford-11-half", "pento-3x20"])
def test_dancing_cells_counts_agree_with_links(name):
    problem = read_dlx(DATA / f"{name}.dlx")
    assert count(problem, engine="cells").count == README_COUNTS[name]
    assert count(problem, engine="cells", givens=[1]).count == count(problem, givens=[1]).count


def test_auto_engine_follows_the_measured_cut():
    # engine._BITS_MAX_COUNT_RATIO: bit sets where counting every item's options at a node is
    # small next to a step's work (pentominoes, Langford pairs, queens, colours included);
    # then engine._CELLS_MAX_COPY_RATIO: cells where the per-level copy is small next to a
    # step's work (9x9 Sudoku), links where it is not (16x16 Sudoku); Algorithm M for
    # multiplicities
    sixteen, _ = problem_and_givens(sudoku.Sudoku.parse("." * 256, box="4x4"))
    assert Search(sixteen.arrays()).algorithm == "X/links"
    nine, _ = problem_and_givens(sudoku.Sudoku.parse("." * 81))
    assert Search(nine.arrays()).algorithm == "X/cells"
    expected = {
        "pento-3x20": "X/bits",
        "langford-8": "X/bits",
        "queens-8": "X/bits",
        "color-example": "C/bits",
        "bounds-example": "M/links",
    }
    for name, algorithm in expected.items():
        assert Search(read_dlx(DATA / f"{name}.dlx").arrays()).algorithm == algorithm


def test_engine_names_are_checked():
    with pytest.raises(InputError, match="engine"):
        count(queens_problem(4), engine="turbo")
    with pytest.raises(InputError, match="colours"):
        count(read_dlx(DATA / "color-example.dlx"), engine="cells")


@settings(max_examples=300, deadline=None)
@given(small_problems(colours=True, bounds=True))
def test_algorithm_m_finds_exactly_the_brute_force_solutions(problem):
    r = solve(problem, limit=None)
    found = sorted(tuple(sorted(s)) for s in r.solutions)
    assert found == brute_force(problem)
    assert r.count == len(found)


def test_counting_on_a_dask_cluster_api_and_cli(capsys):
    # an in-process cluster listening on TCP stands in for `--scheduler ADDRESS`
    import json

    from distributed import Client, LocalCluster

    from rompicapo.cli import main

    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=2,
            processes=False,
            protocol="tcp",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        assert count(read_dlx(DATA / "queens-9.dlx"), scheduler=client).count == 352
        code = main(
            [
                "cover",
                str(DATA / "queens-8.dlx"),
                "--scheduler",
                cluster.scheduler_address,
                "--json",
            ]
        )
        assert code == 0 and json.loads(capsys.readouterr().out)["solutions"] == 92
