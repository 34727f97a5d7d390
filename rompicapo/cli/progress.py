"""Drawing progress on the terminal: the library sends ProgressEvents, the CLI draws them."""

from __future__ import annotations

import math
import sys
from typing import Any

from rompicapo.common import ProgressEvent

__all__ = ["LOG_SECONDS", "ProgressPrinter", "rich_progress_bar", "status_text"]

# A plain progress line this often (``log_every``) when stderr is a log file or a pipe: often
# enough to follow a long run in its log, rarely enough to keep the log short.
LOG_SECONDS = 10.0


def rich_progress_bar(*, disable: bool = False, transient: bool = False):
    """A rich progress bar on stderr with a rate, elapsed time and ETA."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.percentage:>5.1f}%"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[status]}"),
        console=Console(file=sys.stderr),
        disable=disable,
        transient=transient,
    )


def _rate(value: float | None, unit: str) -> str:
    if not value:
        return ""
    # unit " placements" reads "12.3 M placements/s"; "nodes" reads "12.3 Mnodes/s"
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.1f} {prefix}{unit}/s"
    return f"{value:.0f} {unit.strip()}/s"


def status_text(event: ProgressEvent) -> str:
    """The status beside the bar: the message, the best score (out of the most there is,
    when the counts say), the deepest depth and the rate (placements per second when the
    counts have placements, else the event's own unit)."""
    c = event.counts
    parts = [event.message] if event.message else []
    if "best_score" in c and "max_score" in c:
        parts.append(f"best {c['best_score']}/{c['max_score']}")
    elif "score" in c and "max_score" in c:
        parts.append(f"score {c['score']}/{c['max_score']}")
    elif event.best is not None:
        parts.append(f"best {event.best}")
    if "deepest" in c:
        parts.append(f"deepest {c['deepest']}")
    if c.get("placements") and event.elapsed > 0:
        parts.append(_rate(c["placements"] / event.elapsed, " placements"))
    else:
        parts.append(_rate(event.rate, event.unit))
    return "  ".join(p for p in parts if p)


class ProgressPrinter:
    """A ``progress`` callback that draws events with rich on stderr.

    Use as a context manager around the one API call::

        with ProgressPrinter("counting", enabled=not args.quiet) as progress:
            result = count(..., progress=progress)

    With ``enabled=False`` it is still a valid callback and draws nothing. With
    ``log_every`` (seconds) and stderr not a terminal (a log file, a pipe), it writes one
    plain line per ``log_every`` seconds instead of a bar, so long runs leave a readable log.
    """

    def __init__(
        self,
        description: str,
        *,
        enabled: bool = True,
        transient: bool = True,
        log_every: float | None = None,
    ):
        self.description = description
        self.enabled = enabled
        self._bar: Any = None
        self._task: Any = None
        self._transient = transient
        self._log_every = log_every if log_every is not None and not sys.stderr.isatty() else None
        self._logged = -math.inf

    def __enter__(self) -> ProgressPrinter:
        # The bar starts with the first event, not here: input is validated before a run sends
        # its first event, so a refused run leaves stderr with its one line only.
        return self

    def _start(self) -> None:
        self._bar = rich_progress_bar(transient=self._transient)
        self._bar.__enter__()
        self._task = self._bar.add_task(self.description, total=None, status="")

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)
            self._bar = None
        self.enabled = False  # events after the run (none expected) draw nothing

    def __call__(self, event: ProgressEvent) -> None:
        if not self.enabled:
            return
        if self._log_every is not None:
            self._log(event)
            return
        if self._bar is None:
            self._start()
        status = status_text(event)
        self._bar.update(self._task, completed=event.done, total=event.total, status=status)

    def _log(self, event: ProgressEvent) -> None:
        if event.kind not in ("progress", "best") or event.elapsed - self._logged < self._log_every:
            return
        self._logged = event.elapsed
        done = f"{event.done:,.0f} {event.unit}"
        line = f"{event.elapsed:6.1f} s  {self.description}: {done}  {status_text(event)}"
        sys.stderr.write(line.rstrip() + "\n")
        sys.stderr.flush()
