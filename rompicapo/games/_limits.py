"""The run contract inside the game searches: one `Limits` per call.

Every search of the family takes ``time_limit`` (seconds of wall clock for the whole call),
``node_limit`` (the most positions to visit, counted as ``counts["nodes"]`` counts them) and
``progress`` (a callable receiving [`ProgressEvent`][rompicapo.common.ProgressEvent] objects),
checked by `rompicapo.common` before any work. The searches' hot loops pay one integer comparison
per node for all three: ``if nodes >= check_at: check_at = limits.check(nodes)``. The check comes
every `CHECK_EVERY` nodes when a clock or a progress callback is watching, and exactly at
``node_limit``, so a search cut by the node limit has visited exactly ``node_limit`` nodes.

A search that a limit stops returns its result with ``complete=False`` and ``stopped`` set to
``"nodes"``, ``"time"`` or ``"interrupted"`` (Ctrl-C, or a progress callback raising
[`StopRequested`][rompicapo.common.StopRequested]): what it had found is kept, and ``verify()``
raises [`NotVerifiable`][rompicapo.common.NotVerifiable] for it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from rompicapo.common import (
    Deadline,
    Progress,
    ProgressCallback,
    check_node_limit,
    check_time_limit,
)

__all__ = ["CHECK_EVERY", "NEVER", "Limits", "SearchStopped", "keyword_only", "stop_message"]

# How often (in nodes) a watched search looks at the clock and reports progress: often enough
# to stop within about a millisecond of the deadline at Python speeds (~1 us per node), rarely
# enough that the check costs nothing measurable.
CHECK_EVERY = 1024
# The threshold of a search nobody watches: beyond any count a Python search reaches.
NEVER = 1 << 62

F = TypeVar("F", bound=Callable[..., Any])


class SearchStopped(Exception):
    """Raised by `Limits.check()` inside a search; the search's entry point catches it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Limits:
    """``time_limit``, ``node_limit`` and ``progress`` of one call, checked up front.

    ``unit`` names what ``node_limit`` counts in progress events (``"nodes"``, or
    ``"positions"`` for retrograde analysis).
    """

    def __init__(
        self,
        time_limit: float | None = None,
        node_limit: int | None = None,
        progress: ProgressCallback | None = None,
        *,
        unit: str = "nodes",
    ) -> None:
        self.time_limit = check_time_limit(time_limit)
        self.node_limit = check_node_limit(node_limit)
        self.deadline = Deadline(self.time_limit)
        self.tracker = Progress(progress, unit=unit)
        self.watched = self.time_limit is not None or progress is not None
        # the node count (of the whole call) at which the next check is due
        self.due = self.next_check(0)

    def first(self) -> int:
        """The node count at which the next check is due (for a search starting now)."""
        return self.due

    def next_check(self, nodes: int) -> int:
        at = nodes + CHECK_EVERY if self.watched else NEVER
        if self.node_limit is not None and self.node_limit < at:
            at = self.node_limit
        return at

    def check(self, nodes: int) -> int:
        """Called when ``nodes`` reached the threshold: raise `SearchStopped` when a
        limit is reached, else report progress and return the next threshold."""
        if self.node_limit is not None and nodes >= self.node_limit:
            raise SearchStopped("nodes")
        if self.deadline.expired():
            raise SearchStopped("time")
        self.tracker.update(nodes, counts={"nodes": nodes})
        self.due = self.next_check(nodes)
        return self.due

    def time_left(self) -> float | None:
        """Seconds left for a nested call, or None without a time limit."""
        return self.deadline.time_left()

    def run(self, call: Callable[[], Any]) -> tuple[Any, str | None]:
        """``(call(), None)``, or ``(None, reason)`` when a limit, Ctrl-C or the progress
        callback stopped it."""
        try:
            return call(), None
        except SearchStopped as stop:
            return None, stop.reason
        except KeyboardInterrupt:
            return None, "interrupted"

    def finish(self, counts: dict[str, int], stopped: str | None) -> None:
        """The closing progress event (not after a callback that asked to stop)."""
        done = counts.get("nodes", self.tracker.done)
        self.tracker.done = done
        self.tracker.finish(counts=counts, message=f"stopped: {stopped}" if stopped else "")


def stop_message(stopped: str | None) -> str:
    """A few words on why a search stopped, for reports."""
    return {
        None: "",
        "nodes": "stopped by the node limit",
        "time": "stopped by the time limit",
        "interrupted": "interrupted",
    }.get(stopped, f"stopped ({stopped})")


def keyword_only(*names: str, kept: int) -> Callable[[F], F]:
    """Decorator: parameters that an earlier release took by position are keyword-only now.

    The first ``kept`` positional arguments (``self`` included) keep their places; positional
    arguments beyond them are given, in order, to the keywords ``names``, with a
    DeprecationWarning naming the keyword (kept for one release). Used with
    [`renamed_keywords()`][rompicapo.common.renamed_keywords] when the keyword itself was renamed
    too.
    """

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            if len(args) > kept:
                extra = args[kept:]
                if len(extra) > len(names):
                    most = kept + len(names)
                    raise TypeError(f"{func.__name__}() takes at most {most} positional arguments")
                given = names[: len(extra)]
                for name, value in zip(given, extra, strict=True):
                    if name in kwargs:
                        raise TypeError(f"{func.__name__}() got {name} twice")
                    kwargs[name] = value
                warnings.warn(
                    f"{func.__name__}(): pass {'=, '.join(given)}= by keyword (by position "
                    "is deprecated)",
                    DeprecationWarning,
                    stacklevel=2,
                )
                args = args[:kept]
            return func(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap
