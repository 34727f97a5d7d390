"""One name per idea in the edge-matching family: the run contract's names in every public
signature and flag; the earlier names keep working (keywords with a DeprecationWarning naming
the new one, flags as aliases named in the help)."""

from __future__ import annotations

import argparse
import dataclasses
import inspect

import pytest

import rompicapo.edges as E
import rompicapo.edges.blackwood as B
import rompicapo.edges.study as S
from rompicapo.cli import build_parser
from rompicapo.cli.options import DeprecatedFlag
from rompicapo.common import SearchResult
from rompicapo.edges.puzzle import eternity2

# Other names for the contract's ideas (time_limit, node_limit, limit, seed, jobs, scheduler,
# progress), as in the games family's contract test. Not among them here: ``rng`` (a numpy
# Generator the tables and perturbations draw from, not a seed) and a study's ``budget`` (a
# Budget: each job's node_limit and time_limit).
SECOND_NAMES = {
    "max_nodes", "max_results", "max_jobs", "max_iterations", "seconds", "nodes", "timeout",
    "time", "deadline", "node_cap", "processes", "workers", "n_jobs", "cores", "random",
    "keep", "on_progress", "callback", "progress_callback",
}  # fmt: skip
SECOND_FLAGS = {
    "--max-nodes", "--max-jobs", "--max-iterations", "--seconds", "--timeout", "--time-limit",
    "--node-cap", "--budget", "--processes", "--workers", "--keep",
}  # fmt: skip


def _public():
    for module in (E, B, S):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, (SearchResult, Exception)):
                continue  # results: their fields are what happened, not how to run
            if inspect.isfunction(obj) or inspect.isclass(obj):
                yield f"{module.__name__}.{name}", obj


def test_public_signatures_use_the_contract_names() -> None:
    bad = [
        f"{name}({p}=)"
        for name, obj in _public()
        for p in inspect.signature(obj).parameters
        if p in SECOND_NAMES
    ]
    assert not bad, bad
    assert "limit" in inspect.signature(S.run_study).parameters
    assert "restart_nodes" in inspect.signature(B.Settings).parameters
    assert {f.name for f in dataclasses.fields(S.Budget)} == {"node_limit", "time_limit"}


def test_earlier_keywords_warn_and_name_the_new_one() -> None:
    with pytest.warns(DeprecationWarning, match=r"Settings\(\): node_cap= is now restart_nodes="):
        settings = B.Settings(node_cap=1000)
    assert settings.restart_nodes == 1000
    with pytest.warns(DeprecationWarning, match="restart_nodes"):
        assert settings.node_cap == 1000
    with pytest.warns(DeprecationWarning, match=r"Budget\(\): nodes= is now node_limit="):
        budget = S.Budget(nodes=20_000)
    assert budget == S.Budget(node_limit=20_000)
    for func in (S.run_study, S.study):
        # warned before the call finds its arguments missing
        with (
            pytest.warns(DeprecationWarning, match="max_results= is now limit="),
            pytest.raises(TypeError),
        ):
            func(max_results=1)


def test_job_ids_survive_the_budget_renaming() -> None:
    # the first job id of this design as planned with Budget(nodes=20_000) before the
    # renaming: study files made then must resume (their ids are what marks a job done)
    design = S.Design(colour_sets="sample:3", curves=2, break_variants=1, seeds=1,
                      baseline_seeds=2)  # fmt: skip
    jobs = S.plan_jobs(eternity2(), design, S.Budget(node_limit=20_000))
    assert jobs[0]["id"] == "079474d8d8f26bff8c564bef" and len(jobs) == 9
    assert jobs[0]["budget"] == {"nodes": 20_000, "seconds": None}


def _edges_parsers():
    root = build_parser()
    edges = next(
        a.choices["edges"] for a in root._actions if isinstance(a, argparse._SubParsersAction)
    )
    for action in edges._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def test_earlier_flags_are_aliases_named_in_the_help() -> None:
    seen = 0
    for name, parser in _edges_parsers():
        helps = {a.dest: a.help or "" for a in parser._actions if not isinstance(a, DeprecatedFlag)}
        for action in parser._actions:
            for flag in set(action.option_strings) & SECOND_FLAGS:
                seen += 1
                assert isinstance(action, DeprecatedFlag), f"edges {name} {flag}: not an alias"
                assert flag in helps[action.dest], f"edges {name} {flag}: not named in --help"
    assert seen >= 4


@pytest.mark.parametrize(
    ("argv", "dest", "value"),
    [
        (["solve", "eternity2", "--node-cap", "7"], "restart_nodes", 7),
        (["solve", "eternity2", "--restart-nodes", "7"], "restart_nodes", 7),
        (["improve", "b.txt", "eternity2", "--node-cap", "9"], "repair_nodes", 9),
        (["study", "eternity2", "--db", "s.db", "--max-jobs", "3"], "limit", 3),
        (["study", "eternity2", "--db", "s.db", "--limit", "3"], "limit", 3),
    ],
)
def test_old_and_new_flags_mean_the_same(argv, dest, value) -> None:
    args = build_parser().parse_args(["edges", *argv])
    assert getattr(args, dest) == value
