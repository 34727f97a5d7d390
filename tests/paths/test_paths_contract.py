"""The run contract in the paths family: each test fails without its change."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rompicapo.paths as paths_api
from rompicapo.cli import build_parser, main
from rompicapo.common import InputError, NotVerifiable, ProgressEvent, dumps_json
from rompicapo.paths import (
    _count_kernel,
    bands,
    cells_at,
    check_path_file,
    construct,
    count_paths,
    find_path,
    load_path,
    parse_moves,
    search_path,
    steps_of,
    write_path,
)
from rompicapo.paths import count as count_module
from rompicapo.paths.rpath import read_header


@pytest.fixture
def no_search(monkeypatch):
    """Make any search fail loudly: a refusal must come before the first node."""

    def boom(*args, **kwargs):
        raise AssertionError("the search ran")

    monkeypatch.setattr(bands, "solve_pieces", boom)
    monkeypatch.setattr(_count_kernel, "search", boom)  # every count, search or enumeration


# ------------------------------------------------------------------ outputs checked first


@pytest.mark.parametrize(
    "kwargs",
    [
        {"out": "/nonexistent/x.npy"},
        {"out": "x.csv"},
        {"pdf": "/nonexistent/x.pdf"},
        {"png": "x.jpg"},
        {"svg": "/nonexistent/x.svg"},
        {"out": "x.rpath", "scheduler": "tcp://127.0.0.1:1", "start": (1, 1)},
    ],
)
def test_bad_output_paths_are_refused_before_the_search(no_search, tmp_path, monkeypatch, kwargs):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError):
        find_path(12, 12, method="greedy", **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_bad_checkpoint_path_is_refused_before_the_count(no_search, tmp_path):
    for name in ("/nonexistent/c.json", tmp_path / "c.txt", tmp_path):
        with pytest.raises(InputError):
            count_paths(4, 5, jobs=1, checkpoint=name)


def test_out_writes_exactly_the_name_given(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["path", "10", "--out", "x.csv"]) == 2
    assert list(tmp_path.iterdir()) == []
    assert main(["path", "10", "--out", "x.npy"]) == 0
    assert "wrote x.npy" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]
    assert len(load_path(tmp_path / "x.npy")) == 100


# ------------------------------------------------------------------ write_path


def test_write_path_checks_then_writes_atomically(tmp_path):
    res = construct(8, 9, seed=3)
    assert write_path(res, tmp_path / "p.npy") == tmp_path / "p.npy"
    assert load_path(tmp_path / "p.npy").tolist() == res.path.tolist()
    write_path(res, tmp_path / "p.rpath", packed=True)
    assert check_path_file(tmp_path / "p.rpath", "8x9").valid
    bad = res.path.copy()
    bad[[5, 6]] = bad[[6, 5]]
    with pytest.raises(InputError, match="not a valid path"):
        write_path(bad, tmp_path / "bad.npy", rows=8, cols=9)
    with pytest.raises(InputError, match=r"\.npy or \.rpath or \.txt"):
        write_path(res, tmp_path / "p.csv")
    with pytest.raises(InputError, match="no complete path"):
        write_path(construct(3, 3), tmp_path / "none.npy")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["p.npy", "p.rpath"]  # nothing half-written, no temporary left


# ------------------------------------------------------------------ checkpoints


def test_a_hand_edited_checkpoint_is_refused(tmp_path):
    ckpt = tmp_path / "c.json"
    assert count_paths(4, 5, jobs=1, checkpoint=ckpt).count == 144
    doc = json.loads(ckpt.read_text())
    key = next(iter(doc["payload"]["done"]))
    doc["payload"]["done"][key][0] += 1000  # the edit: a larger count, same format
    ckpt.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="edited"):
        count_paths(4, 5, jobs=1, checkpoint=ckpt)


def test_time_limit_stops_a_count_and_keeps_what_is_done(tmp_path):
    ckpt = tmp_path / "c.json"
    res = count_paths(5, 6, jobs=1, checkpoint=ckpt, time_limit=0.001)
    assert not res.complete and res.counts["jobs_done"] < res.jobs and res.table is None
    assert "not a complete count" in res.report()
    with pytest.raises(NotVerifiable):
        res.verify()
    assert len(json.loads(ckpt.read_text())["payload"]["done"]) == res.counts["jobs_done"]
    resumed = count_paths(5, 6, jobs=1, checkpoint=ckpt)  # the rest, from the checkpoint
    assert resumed.complete and resumed.count == count_paths(5, 6).count


# ------------------------------------------------------------------ verify()


def test_verify_raises_not_verifiable_without_an_answer():
    for res in (construct(3, 3), search_path(4, 4, (0, 0)), count_paths(5, 5, start=(0, 0))):
        with pytest.raises(NotVerifiable):  # no path; no path; too big for the plain recount
            res.verify()
    assert count_paths(4, 4).verify()  # zero paths, confirmed by the independent recount
    with pytest.raises(NotVerifiable):
        cells_at(10**6, 10**6, [1]).verify()
    assert construct(6, 6, start=(1, 1), seed=-1).verify()  # negative seeds are seeds
    assert cells_at(10, 10, [1, 100]).verify() and steps_of(10, 10, ["9,0"]).verify()


def test_path_at_compares_exact_integers():
    with pytest.raises(InputError, match="at most"):
        cells_at(10**6, 10**6, ["99999999999999999999999"])
    with pytest.raises(InputError, match="outside"):
        steps_of(10, 10, [(10**30, 0)])
    with pytest.raises(InputError) as info:
        cells_at(4, 4, [3])
    assert "--method" not in str(info.value)


# ------------------------------------------------------------------ --json == to_dict()


def _capture(monkeypatch, module, name):
    seen = []
    real = getattr(module, name)

    def wrapper(*args, **kwargs):
        seen.append(real(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(module, name, wrapper)
    return seen


@pytest.mark.parametrize(
    ("argv", "module", "name"),
    [
        (["path", "7x9", "--start", "1,1"], paths_api, "find_path"),
        (["path", "10"], paths_api, "find_path"),
        (["path", "10", "--out", "{tmp}/p.rpath"], paths_api, "find_path"),
        (["count", "4x5"], count_module, "count_paths"),
        (["count", "5", "--start", "0,0"], count_module, "count_paths"),
        (["verify-path", "{tmp}/p.rpath"], paths_api, "check_path_file"),
        (["path-at", "10", "1", "100"], paths_api, "cells_at"),
        (["step-of", "10", "0,0", "9,0"], paths_api, "steps_of"),
    ],
)
def test_json_is_to_dict_of_the_api_result(tmp_path, capsys, monkeypatch, argv, module, name):
    if argv[0] == "verify-path":
        write_path(construct(10, 10, method="blocks"), tmp_path / "p.rpath")
    seen = _capture(monkeypatch, module, name)
    main([a.format(tmp=tmp_path) for a in argv] + ["--json"])
    out = capsys.readouterr().out
    assert len(seen) == 1
    assert json.loads(out) == json.loads(dumps_json(seen[0].to_dict()))


def test_json_keeps_the_fields_of_earlier_releases(capsys):
    main(["path", "7x9", "--start", "1,1", "--json"])
    got = json.loads(capsys.readouterr().out)
    for key in (
        "rows", "cols", "start", "moves", "closed", "method", "seed", "found", "status",
        "verified", "proof", "rotations", "restarts", "solve_seconds", "compile_seconds",
        "peak_bytes",
    ):  # fmt: skip
        assert key in got
    main(["count", "4x5", "--json"])
    got = json.loads(capsys.readouterr().out)
    for key in ("rows", "cols", "start", "moves", "closed", "count", "nodes", "jobs", "table",
                "total", "min", "max", "solve_seconds", "compile_seconds"):  # fmt: skip
        assert key in got


# ------------------------------------------------------------------ old flags, progress, jobs


@pytest.mark.parametrize(
    "argv",
    [
        ["path", "10", "--time-limit", "5", "--seed", "3", "--jobs", "2", "--json", "--quiet"],
        ["path", "10", "--time", "5", "--tie-break", "order", "--method", "greedy"],
        ["path", "10", "--out", "x.rpath", "--packed", "--resume", "--scheduler", "tcp://h:1"],
        ["path", "10", "--pdf", "a.pdf", "--png", "a.png", "--svg", "a.svg", "--closed"],
        ["count", "5", "--all-starts", "--checkpoint", "c.json", "--jobs", "2", "--quiet"],
        ["count", "5", "--start", "0,0", "--limit", "3", "--json"],
        ["count", "5", "--start", "0,0", "--seed", "-7", "--moves", "knight", "--closed"],
        ["verify-path", "x.rpath", "--jobs", "2", "--scheduler", "tcp://h:1", "--json"],
        ["verify-path", "x.npy", "10", "--start", "0,0", "--closed", "--moves", "knight"],
        ["path-at", "10", "1", "2", "--json"],
        ["step-of", "10", "0,0", "--json"],
    ],
)
def test_earlier_flags_still_parse(argv):
    args = build_parser().parse_args(argv)
    assert callable(args.handler)


def test_progress_is_a_callback_and_the_library_draws_nothing(tmp_path, capsys):
    events: list[ProgressEvent] = []
    count_paths(4, 5, jobs=1, checkpoint=tmp_path / "c.json", progress=events.append)
    kinds = [e.kind for e in events]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert any(e.unit == "jobs" and e.total for e in events)
    events.clear()
    construct(30, 30, progress=events.append)
    assert events[0].kind == "start" and events[-1].kind == "done"
    assert capsys.readouterr().err == ""


def test_too_many_jobs_are_capped_with_a_note():
    res = construct(10, 10, start=(1, 1), jobs=4096)
    assert res.found and any("capped" in n for n in res.notes)


# ------------------------------------------------------------------ parsers never crash

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.text(max_size=30))
def test_parse_moves_never_raises_anything_but_input_error(text):
    try:
        ms = parse_moves(text)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert len(ms) >= 1


@FUZZ
@given(st.lists(st.text(max_size=12), min_size=1, max_size=3))
def test_lookups_never_raise_anything_but_input_error(texts):
    for call in (lambda: cells_at(10, 10, texts), lambda: steps_of(10, 10, texts)):
        try:
            call()
        except InputError as exc:
            assert "\n" not in str(exc)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300), st.sampled_from([".npy", ".rpath"]))
def test_path_files_never_raise_anything_but_input_error(tmp_path, data, suffix):
    name = tmp_path / f"fuzz{suffix}"
    name.write_bytes(data)
    try:
        if suffix == ".rpath":
            read_header(name)
        else:
            load_path(name)
    except InputError as exc:
        assert "\n" not in str(exc)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300))
def test_rpath_headers_with_valid_magic_never_crash(tmp_path, data):
    name = tmp_path / "fuzz.rpath"
    head = tmp_path / "ok.rpath"
    if not head.exists():
        write_path(np.arange(4), head, rows=1, cols=4, moves="0,1", verify=False)
    name.write_bytes(head.read_bytes()[:8] + data)
    try:
        check_path_file(name)
    except InputError as exc:
        assert "\n" not in str(exc)
