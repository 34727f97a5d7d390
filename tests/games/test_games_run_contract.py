"""The run contract in every search of the games family: time_limit, node_limit and
progress stop or watch each search and the result says so; old keywords still work with a
DeprecationWarning; every result has counts, to_dict(), report() and verify(), and each
verifier says False to a corrupted answer; one name per idea in the API and the CLI."""

from __future__ import annotations

import argparse
import inspect
import json

import datafiles
import pytest

import rompicapo.games as G
from rompicapo.cli import build_parser
from rompicapo.common import InputError, NotVerifiable, StopRequested, dumps_json

TTT = G.TicTacToe()
PIG = G.Pig(10)
# a finite game with chance nodes: a coin decides between two positions of MAX
DICE = G.ExplicitTree(("chance", [(0.5, [1, ("min", [-1, 3])]), (0.5, [[2, 0], -3])]))
C4_END = "2252576253462244111563365343671351441"  # Pons' Test_L3_R1, 5 empty cells, score -1
# The searches' clock is read every 1024 nodes (rompicapo/games/_limits.py): a limit of a
# nanosecond has always passed at the first look, so a search that needs more nodes stops
# after exactly that many. No wall time is asserted.
FIRST_LOOK = 1024


def _state(game, moves):
    s = game.initial()
    for m in moves:
        s = game.play(s, m)
    return s


# Each search, called with the contract's keywords; every one of them needs more than 1024
# nodes for the position given, so a nanosecond or 700 nodes stops it.
SEARCHES = {
    "minimax": lambda **kw: G.minimax(TTT, **kw),
    "alphabeta": lambda **kw: G.alphabeta(TTT, **kw),
    "alphabeta_fail_hard": lambda **kw: G.alphabeta(TTT, fail_soft=False, **kw),
    "negamax": lambda **kw: G.negamax(TTT, **kw),
    "solve": lambda **kw: G.solve(TTT, **kw),
    "expectiminimax": lambda **kw: G.expectiminimax(PIG, depth=10, **kw),
    "star1": lambda **kw: G.star1(PIG, depth=10, **kw),
    "star2": lambda **kw: G.star2(PIG, depth=10, **kw),
    "engine_search": lambda **kw: G.Engine(TTT).search(**kw),
    "engine_mtdf": lambda **kw: G.Engine(TTT).mtdf(**kw),
    "analyse_tictactoe": lambda **kw: G.analyse_tictactoe(search="negamax", **kw),
}


@pytest.mark.parametrize("name", SEARCHES)
def test_node_limit_stops_each_search_at_exactly_that_many_nodes(name):
    out = SEARCHES[name](node_limit=700)
    assert (out.complete, out.stopped, out.value) == (False, "nodes", None)
    assert out.counts["nodes"] == 700
    assert "stopped by the node limit" in out.report()
    with pytest.raises(NotVerifiable):
        out.verify()
    json.loads(dumps_json(out.to_dict()))


@pytest.mark.parametrize("name", SEARCHES)
def test_time_limit_stops_each_search_at_its_first_look_at_the_clock(name):
    out = SEARCHES[name](time_limit=1e-9)
    assert (out.complete, out.stopped) == (False, "time")
    assert out.counts["nodes"] == FIRST_LOOK
    assert "stopped by the time limit" in out.report()


@pytest.mark.parametrize("name", SEARCHES)
def test_unreached_limits_change_nothing(name):
    # watched (a clock, a node limit and a progress callback) but never stopped: the same
    # answer and the same counts as the unwatched search
    events = []
    watched = SEARCHES[name](time_limit=600, node_limit=10**9, progress=events.append)
    plain = SEARCHES[name]()
    assert watched.complete and watched.stopped is None
    assert (watched.value, watched.counts) == (plain.value, plain.counts)
    assert events[0].kind == "start" and events[-1].kind == "done"
    assert events[-1].counts["nodes"] == plain.counts["nodes"]


def test_iterative_deepening_keeps_the_last_complete_pass():
    out = G.Engine(G.MNKGame(4, 4, 4)).iterative_deepening(node_limit=3000)
    assert (out.complete, out.stopped) == (False, "nodes")
    assert out.counts["nodes"] == 3000
    assert out.depth >= 1 and out.value is not None and out.move in range(16)
    out = G.Engine(G.MNKGame(4, 4, 4)).iterative_deepening(time_limit=1e-9)
    assert (out.complete, out.stopped, out.depth) == (False, "time", 1)
    assert "stopped by the time limit" in out.report()


def test_retrograde_limits_count_positions():
    cut = G.retrograde(TTT, node_limit=100)
    assert (cut.complete, cut.stopped, len(cut), cut.counts["positions"]) == (
        False,
        "nodes",
        100,
        100,
    )
    with pytest.raises(InputError, match="incomplete"):
        cut.value(TTT.initial())
    with pytest.raises(NotVerifiable):
        cut.verify()
    assert "stopped by the node limit: no values" in cut.report()
    cut = G.retrograde(TTT, time_limit=1e-9)
    assert (cut.stopped, len(cut)) == ("time", FIRST_LOOK)
    assert G.retrograde(TTT, node_limit=5478).complete  # exactly the 5,478 positions


def test_alphabeta_tree_is_cut_where_the_limit_stopped_it():
    tree = G.alphabeta_tree(TTT, node_limit=300)
    assert (tree.complete, tree.stopped, tree.value) == (False, "nodes", None)
    assert tree.counts["nodes"] == 300  # the tree holds exactly the nodes visited
    d = tree.to_dict()
    assert d["stopped"] == "nodes" and d["children"] and d["counts"]["nodes"] == 300
    tree = G.alphabeta_tree(TTT, time_limit=1e-9)
    assert (tree.stopped, tree.counts["nodes"]) == ("time", FIRST_LOOK)


def test_connect4_limits():
    solver = G.Connect4Solver(table_log2=18)
    cut = solver.solve("634766171", node_limit=12_345)
    assert (cut.complete, cut.stopped, cut.score, cut.nodes) == (False, "nodes", None, 12_345)
    # a clock is served between slices of 2**20 nodes: a nanosecond stops the first
    cut = solver.solve("", time_limit=1e-9)
    assert (cut.stopped, cut.nodes) == ("time", G.CONNECT4_SLICE_NODES)
    # sliced or not, the same score: each slice resumes from what the last left in the table
    events = []
    moves = "634766171"  # Pons' Test_L1_R2, score 4: about 1.9 M nodes, two slices
    sliced = solver.solve(moves, progress=events.append)
    assert sliced.complete and sliced.score == 4 == solver.solve(moves).score
    assert sliced.nodes > G.CONNECT4_SLICE_NODES  # more than one slice
    assert [e.kind for e in events][0 :: len(events) - 1] == ["start", "done"]
    assert events[-1].counts["nodes"] == sliced.nodes
    analysis = solver.analyse("4455", node_limit=50_000)
    assert (analysis.complete, analysis.stopped, analysis.counts["nodes"]) == (
        False,
        "nodes",
        50_000,
    )
    assert analysis.unsolved and analysis.move is None
    with pytest.raises(NotVerifiable):
        analysis.verify()


def test_a_progress_callback_can_stop_a_search():
    def stop(event):
        if event.kind == "progress":
            raise StopRequested

    out = G.minimax(TTT, progress=stop)  # 549,946 nodes: progress comes every 0.2 s
    assert (out.complete, out.stopped) == (False, "interrupted")
    assert 0 < out.counts["nodes"] < 549_946


def test_limits_are_checked_before_any_work():
    for bad in ({"time_limit": -1}, {"node_limit": 0}, {"time_limit": "x"}, {"progress": 3}):
        with pytest.raises(InputError):
            G.alphabeta(TTT, **bad)
        with pytest.raises(InputError):
            G.solve_moves("44", **bad)


# ---- the old keywords, each with its DeprecationWarning -------------------------------------


def test_old_keywords_still_work_with_a_warning():
    with pytest.warns(DeprecationWarning, match="max_positions= is now node_limit="):
        assert len(G.retrograde(TTT, max_positions=10**6)) == 5478
    with pytest.warns(DeprecationWarning, match="start= is now state="):
        assert G.retrograde(TTT, start=TTT.initial()).complete
    with pytest.warns(DeprecationWarning, match="max_depth= is now depth="):
        assert G.Engine(TTT).iterative_deepening(max_depth=3).depth == 3
    with pytest.warns(DeprecationWarning, match="pass depth= by keyword"):
        assert G.Engine(TTT).iterative_deepening(None, 2).depth == 2
    with pytest.warns(DeprecationWarning, match="pass depth=, time_limit= by keyword"):
        assert G.Engine(TTT).iterative_deepening(None, 2, 30.0).depth == 2
    with pytest.warns(DeprecationWarning, match="max_nodes= is now node_limit="):
        assert G.alphabeta_tree(TTT, _state(TTT, (4, 0)), max_nodes=5000).complete
    with (  # as before: max_nodes= refuses a tree too big to draw (the web's "too big")
        pytest.warns(DeprecationWarning),
        pytest.raises(InputError, match="too big to draw"),
    ):
        G.alphabeta_tree(TTT, max_nodes=100)
    with pytest.warns(DeprecationWarning, match="counts\\(\\) is now the dict"):
        assert G.alphabeta_tree(TTT, _state(TTT, (4, 0))).counts()["nodes"] > 0
    with pytest.warns(DeprecationWarning, match="analyze= is now analyse="):
        assert G.solve_moves(C4_END, analyze=True).scores
    with pytest.warns(DeprecationWarning, match="analyze\\(\\) is now analyse\\(\\)"):
        assert G.Connect4Solver(table_log2=16).analyze(C4_END).verify()
    with pytest.warns(DeprecationWarning, match="SEARCHES is now TICTACTOE_SEARCHES"):
        from rompicapo.games.tictactoe import SEARCHES
    assert SEARCHES == G.TICTACTOE_SEARCHES
    with pytest.raises(InputError, match="not both"):
        G.retrograde(TTT, max_positions=10, node_limit=10)


# ---- results: to_dict(), report(), verify(), and a corrupted answer for each verifier --------


def _roundtrip(result):
    d = json.loads(dumps_json(result.to_dict()))
    assert "counts" in d and isinstance(result.report(), str) and result.report()
    return d


@pytest.mark.parametrize("name", [n for n in SEARCHES if n != "analyse_tictactoe"])
def test_every_search_result_verifies_and_a_wrong_value_does_not(name):
    if name in ("expectiminimax", "star1", "star2"):  # depth-limited: a heuristic value
        out = SEARCHES[name]()
        with pytest.raises(NotVerifiable):
            out.verify()
        _roundtrip(out)
        exact = {"expectiminimax": G.expectiminimax, "star1": G.star1, "star2": G.star2}[name]
        out = exact(DICE)  # Pig has cycles: an exact value needs a finite game
    else:
        out = SEARCHES[name]()
    _roundtrip(out)
    assert out.verify()
    out.value = out.value + 0.5
    assert not out.verify()


def test_position_table_verifier_catches_one_wrong_entry():
    table = G.retrograde(G.MNKGame(3, 3, 3), _state(TTT, (4,)))
    assert table.verify()
    _roundtrip(table)
    table.values[17] = -table.values[17] if table.values[17] else 1
    assert not table.verify()


def test_alphabeta_tree_verifier():
    tree = G.alphabeta_tree(TTT, _state(TTT, (4, 0, 8)))
    assert tree.verify()
    assert _roundtrip(tree)["children"]
    tree.value = 1.0  # the position is a draw: 1 inside the window (-2, 2) claims it exact
    assert not tree.verify()


def test_connect4_verifiers_catch_one_wrong_score(tmp_path):
    solver = G.Connect4Solver(table_log2=16)
    analysis = solver.analyse(C4_END)
    assert analysis.verify()
    _roundtrip(analysis)
    wrong = next(i for i, s in enumerate(analysis.scores) if s is not None)
    analysis.scores[wrong] += 1
    assert not analysis.verify()
    analysis.scores[wrong] -= 1
    full = next(i for i, s in enumerate(analysis.scores) if s is None)
    analysis.scores[full] = 0  # a full column given a score
    assert not analysis.verify()
    # a test set: the bench's scores against the file, read again by the verifier's reader
    lines = (datafiles.DATA / "connect4" / "Test_L3_R1").read_text().splitlines()[:20]
    f = tmp_path / "set.txt"
    f.write_text("\n".join(lines) + "\n")
    result = G.bench(f, solver=solver)
    assert result.verify()
    _roundtrip(result)
    moves, score = result.found[7]
    result.found[7] = (moves, score + 1)
    assert not result.verify()


def test_grundy_verifier_catches_one_wrong_value_and_a_wrong_period():
    kayles = G.grundy_values("octal", "0.77", 80)
    assert kayles.verify() and (kayles.preperiod, kayles.period) == (71, 12)  # Guy and Smith
    assert _roundtrip(kayles)["values"][:5] == [0, 1, 2, 3, 1]
    kayles.values[40] ^= 1
    assert not kayles.verify()
    kayles.values[40] ^= 1
    kayles.period = 24  # a multiple of the period holds too; a wrong one does not
    assert kayles.verify()
    kayles.period = 13
    assert not kayles.verify()
    sub = G.grundy_values("subtract", "1,2,3", 20)
    assert sub.verify()
    sub.preperiod = None
    assert not sub.verify()


def test_pig_verifier_catches_one_wrong_decision():
    solution = G.solve_pig(20)
    assert solution.verify()
    _roundtrip(solution)
    solution.roll[3, 4, 5] = not solution.roll[3, 4, 5]
    assert not solution.verify()


# ---- the computer's move: the engine's policy, named in the games family ---------------------


def test_computer_move_in_nim():
    choice = G.computer_move(G.Nim((3, 5, 8)))
    assert choice.move == (2, 2) and choice.verify()  # Bouton: nim-sum 14
    lost = G.computer_move(G.Nim((1, 2, 3)))  # a P-position: the policy's named move
    assert lost.move == (2, 1) and G.NIM_LOST_MOVE in lost.how and lost.verify()
    assert G.describe_move(G.Nim(), lost.move) == "take 1 from heap 3"
    _roundtrip(lost)
    lost.move = (2, 4)  # more than the heap holds
    assert not lost.verify()
    wrong = G.computer_move(G.Nim((3, 5, 8)))
    wrong.move = (0, 1)
    assert not wrong.verify()


def test_computer_move_in_tictactoe_wins_fastest():
    # X on 0 and 1, O on 3 and 4, X to move: 2 wins at once (5 would block and win later)
    s = _state(TTT, (0, 3, 1, 4))
    choice = G.computer_move(TTT, s)
    assert (choice.move, choice.value) == (2, 1) and choice.verify()
    choice.move = 8  # a move that lets O win
    assert not choice.verify()
    with pytest.raises(InputError, match="over"):
        G.computer_move(TTT, TTT.apply(s, 2))


def test_computer_move_in_connect4():
    game = G.Connect4(G.Connect4Solver(table_log2=18))
    late = G.parse_position(C4_END)
    choice = G.computer_move(game, late)
    assert choice.how == "proven best" and choice.value == -1 and choice.verify()
    choice.move = next(c for c in late.playable_columns() if c != choice.move)
    assert not choice.verify() or choice.value == -1  # another column may score as well
    # the empty board is far beyond a small budget: the safe heuristic move, said so
    early = G.computer_move(game, node_limit=10_000)
    assert early.move == 4 and early.how.startswith("heuristic") and early.stopped == "nodes"
    with pytest.raises(NotVerifiable):
        early.verify()
    _roundtrip(early)


def test_computer_move_in_any_other_game():
    tree = G.ExplicitTree([[3, 5], [2, 9], [0, -1]])  # MAX picks the branch worth min = 3
    choice = G.computer_move(tree)
    assert (choice.move, choice.value) == (0, 3) and choice.verify()
    assert G.parse_move(tree, "1") == 1
    with pytest.raises(InputError, match="not a legal move"):
        G.parse_move(tree, "7")


# ---- one name per idea ------------------------------------------------------------------------

CONTRACT = {"time_limit", "node_limit", "limit", "seed", "jobs", "scheduler", "progress"}
# Other names for the contract's ideas: none of these may be a parameter of the public API
# (the old ones live on only as deprecated keywords, outside the signatures)
SECOND_NAMES = {
    "max_nodes", "max_depth", "max_positions", "max_solutions", "max_results", "max_time",
    "max_seconds", "max_iterations", "max_jobs", "max_count", "seconds", "timeout", "time",
    "deadline", "budget", "node_cap", "processes", "workers", "threads", "n_jobs",
    "cores", "random", "rng", "random_seed", "keep", "list", "count_limit", "on_progress",
    "callback", "progress_callback", "analyze",
}  # fmt: skip
SECOND_FLAGS = {
    "--max-nodes", "--max-depth", "--max-solutions", "--max-jobs", "--seconds", "--timeout",
    "--time-limit", "--node-cap", "--budget", "--processes", "--workers", "--threads",
    "--random", "--list", "--keep", "--analyze", "--stats",
}  # fmt: skip


def _public_callables():
    for name in G.__all__:
        obj = getattr(G, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj):
            yield name, obj
            for attr, member in vars(obj).items():
                if inspect.isfunction(member) and not attr.startswith("_"):
                    yield f"{name}.{attr}", member


def test_one_name_per_idea_in_the_api():
    seen: dict[str, int] = {}
    bad = []
    for name, obj in _public_callables():
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):  # pragma: no cover - a builtin
            continue
        for p in params:
            if p in SECOND_NAMES:
                bad.append(f"{name}({p}=)")
            if p in CONTRACT:
                seen[p] = seen.get(p, 0) + 1
    assert not bad, "second names for contract ideas: " + ", ".join(bad)
    # every search takes the three knobs of the run contract
    for fn in (G.minimax, G.alphabeta, G.negamax, G.solve, G.expectiminimax, G.star1, G.star2,
               G.retrograde, G.alphabeta_tree, G.solve_moves, G.computer_move,
               G.analyse_tictactoe, G.Engine.search, G.Engine.iterative_deepening,
               G.Engine.mtdf, G.Connect4Solver.solve, G.Connect4Solver.analyse,
               G.Connect4Solver.best_move, G.Connect4Solver.try_solve):  # fmt: skip
        assert {"time_limit", "node_limit", "progress"} <= set(inspect.signature(fn).parameters)
    assert min(seen["time_limit"], seen["node_limit"], seen["progress"]) >= 19


def _game_parsers(parser: argparse.ArgumentParser, name: str):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child, sub in action.choices.items():
                yield from _game_parsers(sub, f"{name} {child}")


def test_one_name_per_idea_in_the_cli(capsys):
    root = build_parser()
    game = next(
        a.choices["game"] for a in root._actions if isinstance(a, argparse._SubParsersAction)
    )
    checked = 0
    for name, parser in _game_parsers(game, "game"):
        for action in parser._actions:
            flags = set(action.option_strings)
            checked += len(flags)
            for flag in flags & SECOND_FLAGS:
                if flags & {"--time", "--nodes", "--limit", "--seed", "--jobs"}:
                    continue  # an alias of the contract's flag
                # else: an earlier release's flag, kept only with a warning naming the new one
                argv = name.split()[1:]
                parser.parse_args([*_needed(argv), flag])
                assert "is deprecated" in capsys.readouterr().err, f"{name} {flag}"
    assert checked > 40


def _needed(argv: list[str]) -> list[str]:
    """Positional arguments a command needs before its flags."""
    return {"grundy": ["subtract", "1"], "nim": ["3"], "bench": ["f.txt"], "play": ["nim"]}.get(
        argv[-1] if argv else "", []
    )


def test_nothing_public_lives_only_in_a_submodule():
    import importlib
    import pkgutil

    missing = []
    for info in pkgutil.iter_modules(G.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"rompicapo.games.{info.name}")
        for name in getattr(module, "__all__", []):
            if name not in G.__all__ or getattr(G, name) is not getattr(module, name):
                missing.append(f"{info.name}.{name}")
    assert not missing, missing
