"""The score hunt on Eternity II (centre clue) for a given time and seeds: score over time.

    python benchmarks/edges_hunt.py --seconds 600 --seeds 0 --jobs 2
    python benchmarks/edges_hunt.py --seconds 600 --seeds 0 1 --no-improve    # ablation
    python benchmarks/edges_hunt.py --seconds 600 --seeds 0 --no-restarts     # ablation

Each seed runs ``rompicapo.edges.hunt`` on a new hunt file (in a temporary folder unless
``--keep DIR``) and records the best score over time (every new best, and the best at 1, 2, 5,
10, 30 and 60 minutes when the run reaches them), the tasks each part ran and what each
earned, with the load average, the CPU model and the commit. The rows go to
``benchmarks/results/edges_hunt.json`` (``--json FILE`` for another file); runs with other
settings are added beside the earlier ones, keyed by their settings.

Measured here on 2026-12-02 and 03 (AMD EPYC, 2 cores, 2 jobs; the rows in
benchmarks/results/edges_hunt.json, from which the results page's table is built). The
restarts search with the score hunt's breaks (Blackwood's ten and eight near the end, going
on past complete boards; benchmarks/edges_breaks.py) unless the run says Blackwood's:

| run | load | 1 min | 2 min | 5 min | 10 min | 20 min | 30 min | 60 min |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| portfolio, seed 0 | 0.0-2.1 | 465 | 465 | 465 | 465 | 465 | 465 | 466 |
| portfolio, seed 1 | 2.0-2.1 | 465 | 465 | 465 | 465 | 466 | 466 | 466 |
| portfolio, seed 2 | 1.8-2.0 | 465 | 465 | 466 | 466 | 466 | 466 | 467 |
| portfolio, adaptive share, seed 0 | 0.0-2.0 | 465 | 465 | 465 | 465 | | | |
| portfolio, adaptive share, seed 1 | 1.7-2.0 | 465 | 465 | 465 | 466 | | | |
| portfolio, adaptive share, seed 2 | 1.7-2.0 | 465 | 465 | 466 | 466 | | | |
| restarts only, restarts of 10 s, seed 0 | 0.2-1.8 | 465 | 465 | 465 | 466 | | | |
| restarts only, restarts of 10 s, seed 1 | 2.0 | 464 | 465 | 466 | 466 | | | |
| restarts only, restarts of 30 s, seed 0 | 1.8-2.0 | 465 | 465 | 465 | 465 | | | |
| restarts only, restarts of 30 s, seed 1 | 2.0 | 464 | 465 | 465 | 466 | | | |
| Blackwood's breaks, seed 0 | 1.9-5.2 | 463 | 463 | 463 | 464 | | | |
| Blackwood's breaks, seed 1 | 1.9-5.2 | 462 | 464 | 465 | 465 | | | |
| Blackwood's breaks, seed 2 | 1.9-5.2 | 461 | 464 | 464 | 464 | | | |
| Blackwood's breaks, seed 0 resumed | 1.2-1.9 | | | | | | 465 | 465 |
| Blackwood's breaks, restarts only, seed 0 | 2.0-2.1 | 460 | 462 | 464 | 464 | | | |
| improver only, seed 0 | 2.0 | 421 | 421 | 421 | 428 | | | |

The portfolio's three hunts ran 20 minutes (commit 7bad062) and were then resumed for 40 more
(``--keep``, commit 261be79; the rows "portfolio, resumed to 1 h"). With the score breaks a
restart of 30 s almost always returns a complete board of 463 to 467 (in the three 20-minute
runs: 144 restarts, 2 of 466, 62 of 465, 78 of 464, 2 of 463; in the three 40-minute
resumptions: 282 restarts, 1 of 467, 10 of 466, 121 of 465, 148 of 464, 2 of 463, that is 141
boards of 463 or more per hour of hunt, on about one core); the median best is 465 after a
minute, 466 after 20 minutes and 466 after an hour, and seed 2 reached 467 (Verhaard's prize
score) after 38 minutes (the board: ``benchmarks/results/eternity2_hunt_467.txt``). On those
boards the improver's 138 runs of 30 s in the first 20 minutes raised one board (465 to 466, a
board the restarts had found already) and its 282 runs in the resumptions none: local repairs
of a few cells do not improve a complete board of this search, so the hunt now lets the
improver's share of the tasks follow what it earns (the rows "portfolio, adaptive share",
commit 6ed7138): in ten minutes its share fell to 0.13-0.15, its 34 runs raised one board, and
the restarts ran 36-37 tasks a seed (about 24 at a fixed half) and returned boards of 465 or
more at 102 an hour of hunt (64-66 an hour at a fixed half, in the runs above on the same
machine that day); the median after ten minutes was 466 (465 at a fixed half).

The restarts' length (``--restart-seconds``, alternated 10 s and 30 s, restarts only, seeds 0
and 1, commit e558e4d): 10 s restarts ran three times as many (239 against 80) and returned
more boards of 463-464, but boards of 465 or more came at the same rate (44 in 20 minutes of
hunt each, 132 an hour); the bests were 466 and 466 with 10 s restarts, 465 and 466 with 30 s.
The default stays 30 s.

With Blackwood's breaks, his search completes almost no board: its boards end in a greedy fill
of the last cells (458-462 mostly), and the improver's +1 to +3 on them was the hunt's gain.

The restarts' placements at the last depths of the fill order (``depths_this_run``) fall by
about 10 per depth near the end with Blackwood's breaks: reckoned to a complete board with at
most ten breaks (470 or more), some 10^5 CPU hours (the results page shows the reckoning).
Published marks, on far more CPU: Blackwood's 470 and Verhaard's 467 (both with the centre
clue).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import commit, cpu_model, load_average

from rompicapo.edges import HuntSettings, hunt, hunt_status
from rompicapo.edges.blackwood import Settings

MARKS = (60, 120, 300, 600, 1800, 3600)
RESULTS = Path(__file__).resolve().parent / "results" / "edges_hunt.json"


def score_at(history: list, seconds: float) -> int | None:
    """The best score reached by ``seconds`` of hunt, from ``[seconds, score, part]`` rows."""
    reached = [s for t, s, _ in history if t <= seconds]
    return max(reached) if reached else None


def per_hour(parts: dict, seconds: float, floors=(460, 461, 462, 463, 464)) -> dict:
    """Boards of each floor score or better found per hour of hunt, per part (a restart's
    every board; an improver run's board when it beat the one it was given)."""
    out = {}
    for name, part in parts.items():
        scores = {int(s): n for s, n in part.get("scores", {}).items()}
        out[name] = {f"{f}+": round(sum(n for s, n in scores.items() if s >= f) * 3600 / seconds, 1)
                     for f in floors}  # fmt: skip
    return out


def depth_rates(parts: dict, n_cells: int = 256) -> dict:
    """The restarts' placements per CPU hour at each of the last depths of the fill order
    (``"pieces placed": rate``), and the CPU hours to one complete board reckoned from them: the
    rate falls by about the same factor per depth near the end, so the last measured rates
    (those with at least 20 placements) give the factor and carry it to the last depth."""
    part = parts.get("restart") or {}
    tail, cpu = part.get("depth_placements"), part.get("cpu_seconds", 0)
    if not tail or cpu <= 0:
        return {}
    first = n_cells - len(tail) + 1
    rates = {str(first + i): round(x * 3600 / cpu, 3) for i, x in enumerate(tail)}
    seen = [(first + i, x) for i, x in enumerate(tail) if x >= 20]
    out: dict = {"per_cpu_hour": rates}
    if len(seen) >= 4:
        (d0, x0), (d1, x1) = seen[-4], seen[-1]
        factor = (x0 / x1) ** (1 / (d1 - d0))  # per depth, over the last four measured
        hours_to_complete = cpu / 3600 / x1 * factor ** (n_cells - d1)
        out.update(deepest_measured=d1, factor_per_depth=round(factor, 3),
                   cpu_hours_to_complete=round(hours_to_complete, 1))  # fmt: skip
    return out


def run_one(seed: int, args: argparse.Namespace, folder: Path) -> dict:
    settings = HuntSettings(
        restarts=not args.no_restarts,
        improve=not args.no_improve,
        restart_seconds=args.restart_seconds,
        improve_seconds=args.improve_seconds,
        search=Settings(holdback=args.holdback) if args.holdback else None,
    )
    load_before = load_average()
    db = folder / f"hunt_seed{seed}.sqlite"
    started = time.monotonic()
    result = hunt("eternity2", db, time_limit=args.seconds, seed=seed, jobs=args.jobs,
                  settings=settings)  # fmt: skip
    wall = time.monotonic() - started
    # the whole file's history: a run resumed from an earlier one (--keep) counts its time too
    status = hunt_status(db)
    history = status["bests"]
    row = {
        "seed": seed,
        "seconds": round(result.seconds, 1),
        "run_seconds": args.seconds,
        "runs": status["runs"],
        "wall_seconds": round(wall, 1),
        "jobs": result.jobs,
        "score": result.score,
        "verified": result.verify(),
        "history": history,
        # a hunt ends a second or two before its time (its tasks keep a margin)
        "at": {str(m): score_at(history, m) for m in MARKS if m <= result.seconds + 5},
        "per_hour_this_run": per_hour(result.parts, wall),
        "depths_this_run": depth_rates(result.parts),
        "counts": result.counts,
        "parts": result.parts,
        "settings": result.settings,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_average()],
        "url": result.url,
    }
    print(f"seed {seed}: {result.score}/480 after {result.seconds:.0f} s of hunt "
          f"({', '.join(f'{k} s: {v}' for k, v in row['at'].items())}); "
          f"{result.parts}; per hour {row['per_hour_this_run']}; load {row['load_after'][0]}",
          flush=True)  # fmt: skip
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600.0)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-improve", action="store_true")
    ap.add_argument("--no-restarts", action="store_true")
    ap.add_argument("--restart-seconds", type=float, default=None)
    ap.add_argument("--improve-seconds", type=float, default=None)
    ap.add_argument(
        "--holdback",
        type=int,
        default=0,
        help="Verhaard's end-game pieces held back by the restarts (0: off)",
    )
    ap.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="folder for the hunt files (a file already there is resumed)",
    )
    ap.add_argument("--json", type=Path, default=RESULTS)
    args = ap.parse_args()
    measured = commit()  # the code that runs: files changed during the run do not count
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        rows = [run_one(seed, args, folder) for seed in args.seeds]
    label = ("restarts only" if args.no_improve else "improver only" if args.no_restarts
             else "portfolio")  # fmt: skip
    if args.holdback:
        label += f", holdback {args.holdback}"
    if args.restart_seconds is not None and not args.no_restarts:
        label += f", restarts of {args.restart_seconds:g} s"
    breaks = rows[0]["settings"]["search"]["breaks"]
    if breaks != "score" and not args.no_restarts:  # the restarts' breaks, if not the hunt's
        label += ", Blackwood's breaks" if breaks in ("auto", "blackwood") else f", {breaks}"
    seconds = max(r["seconds"] for r in rows)
    try:
        data = json.loads(args.json.read_text())
    except (OSError, ValueError):
        data = {"runs": []}
    data["runs"] = [r for r in data.get("runs", []) if r.get("label") != label or
                    abs(r.get("seconds", 0) - seconds) > 60]  # fmt: skip
    data["runs"].append({
        "label": label,
        "seconds": round(seconds),
        "cpu": cpu_model(),
        "commit": measured,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "rows": rows,
    })  # fmt: skip
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(data, indent=1) + "\n")
    print(f"written to {args.json}")


if __name__ == "__main__":
    main()
