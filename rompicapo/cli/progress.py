"""Drawing progress on the terminal: the library sends ProgressEvents, the CLI draws them."""

from __future__ import annotations

import sys
from typing import Any

from rompicapo.common import ProgressEvent

__all__ = ["ProgressPrinter", "rich_progress_bar"]


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
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.1f} {prefix}{unit}/s"
    return f"{value:.0f} {unit}/s"


class ProgressPrinter:
    """A ``progress`` callback that draws events with rich on stderr.

    Use as a context manager around the one API call::

        with ProgressPrinter("counting", enabled=not args.quiet) as progress:
            result = count(..., progress=progress)

    With ``enabled=False`` it is still a valid callback and draws nothing.
    """

    def __init__(self, description: str, *, enabled: bool = True, transient: bool = True):
        self.description = description
        self.enabled = enabled
        self._bar: Any = None
        self._task: Any = None
        self._transient = transient

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
        if self._bar is None:
            self._start()
        status = _rate(event.rate, event.unit)
        if event.best is not None:
            status = f"best {event.best}  {status}"
        if event.message:
            status = f"{event.message}  {status}"
        self._bar.update(self._task, completed=event.done, total=event.total, status=status)
