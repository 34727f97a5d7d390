"""The run contract: one name, one meaning and one check for each knob of a search.

Every family's public entry points take the same keyword arguments, validated here before any
work starts:

- ``time_limit``: seconds of wall clock for the whole call (start-up of workers, compilation and
  writing included), a positive finite number, or None for no limit
- ``node_limit``: the most nodes (placements, positions, updates: the family's unit) to search, a
  positive integer, or None
- ``limit``: the most solutions to find or list, a positive integer, or None for all
- ``seed``: any integer (negative ones included) or None;
  [`seed_sequence()`][rompicapo.common.seed_sequence] turns it into numpy's generator state,
  [`seed_u64()`][rompicapo.common.seed_u64] into a kernel's 64-bit seed
- ``jobs``: workers: None = all cores of this machine (the default everywhere), 1 = in this process;
  more than useful is capped ([`resolve_jobs()`][rompicapo.common.resolve_jobs])
- ``scheduler``: a Dask scheduler address (``tcp://host:port``); the jobs run there
- ``progress``: a callable receiving [`ProgressEvent`][rompicapo.common.ProgressEvent] objects; the
  library never draws
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from rompicapo.common.errors import InputError

__all__ = [
    "MAX_DIGITS",
    "Progress",
    "ProgressCallback",
    "ProgressEvent",
    "check_int",
    "check_limit",
    "check_node_limit",
    "check_seed",
    "check_time_limit",
    "default_jobs",
    "resolve_jobs",
    "retired_keywords",
    "seed_sequence",
    "seed_u64",
]


# --------------------------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------------------------


# The most digits of a number read from text (a command line, a file): counts and seeds fit in
# 40, and Python's own conversion stops at 4,300 digits with a message that is not the user's.
MAX_DIGITS = 100


def check_int(
    value: object,
    name: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int:
    """``value`` as an int in ``[minimum, maximum]``, or [`InputError`][rompicapo.common.InputError]
    naming ``name``.

    Accepts Python and numpy integers and integral strings (of at most `MAX_DIGITS`
    digits); refuses bools, floats with a fraction, and anything else. Huge values are compared
    exactly (no overflow).

    ```pycon
    >>> check_int("12", "jobs", minimum=1)
    12
    >>> check_int(0, "jobs", minimum=1)
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: jobs must be at least 1, got 0

    ```
    """
    if isinstance(value, bool):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        number = int(value)
    elif isinstance(value, str):
        text = value.strip().replace("_", "")
        if len(text.lstrip("+-")) > MAX_DIGITS:
            raise InputError(
                f"{name} must be an integer of at most {MAX_DIGITS} digits, got {value[:40]!r}"
                f"...({len(value):,} characters)"
            )
        try:
            number = int(text, 10)
        except ValueError:
            raise InputError(f"{name} must be an integer, got {value[:40]!r}") from None
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        raise InputError(f"{name} must be an integer, got {str(value)[:40]!r}")
    if minimum is not None and number < minimum:
        raise InputError(f"{name} must be at least {minimum}, got {_short(number)}")
    if maximum is not None and number > maximum:
        raise InputError(f"{name} must be at most {maximum}, got {_short(number)}")
    return number


def _short(number: int) -> str:
    text = str(number)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


# A limit beyond 10**18 is "no limit" in every kernel's int64 counters; refusing it keeps a
# user's 99999999999999999999999 from wrapping around to a negative or tiny cap.
_COUNT_MAX = 10**18
# Ten years: a longer time limit is a typo, and it would overflow some clocks' arithmetic.
_TIME_MAX = 10 * 365 * 24 * 3600.0


def check_time_limit(time_limit: object, name: str = "time_limit") -> float | None:
    """Seconds of wall clock (positive, finite, at most ten years), or None for no limit.

    ```pycon
    >>> check_time_limit("2.5"), check_time_limit(None)
    (2.5, None)
    >>> check_time_limit(0)
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: time_limit must be a positive number of seconds, got 0

    ```"""
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, (numbers.Real, str)):
        raise InputError(f"{name} must be a number of seconds, got {str(time_limit)[:40]!r}")
    try:
        seconds = float(time_limit)
    except ValueError:
        raise InputError(f"{name} must be a number of seconds, got {time_limit[:40]!r}") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise InputError(f"{name} must be a positive number of seconds, got {time_limit}")
    if seconds > _TIME_MAX:
        raise InputError(f"{name} must be at most ten years ({_TIME_MAX:.0f} s), got {seconds:g}")
    return seconds


def check_node_limit(node_limit: object, name: str = "node_limit") -> int | None:
    """A positive node cap (at most 10**18), or None for no cap.

    ```pycon
    >>> check_node_limit("1_000_000"), check_node_limit(None)
    (1000000, None)
    >>> check_node_limit(2.5)
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: node_limit must be an integer, got '2.5'

    ```"""
    if node_limit is None:
        return None
    return check_int(node_limit, name, minimum=1, maximum=_COUNT_MAX)


def check_limit(limit: object, name: str = "limit") -> int | None:
    """A positive number of solutions (at most 10**18), or None for all of them.

    ```pycon
    >>> check_limit(10), check_limit(None)
    (10, None)
    >>> check_limit(0)
    Traceback (most recent call last):
    ...
    rompicapo.common.errors.InputError: limit must be at least 1, got 0

    ```"""
    if limit is None:
        return None
    return check_int(limit, name, minimum=1, maximum=_COUNT_MAX)


def check_seed(seed: object, name: str = "seed") -> int | None:
    """Any integer (negative and huge ones included), or None.

    ```pycon
    >>> check_seed(-7), check_seed("12345678901234567890123"), check_seed(None)
    (-7, 12345678901234567890123, None)

    ```"""
    if seed is None:
        return None
    return check_int(seed, name)


def seed_u64(seed: int | None) -> int:
    """A kernel's 64-bit seed from any integer seed (None -> 0): a bijection on [0, 2**64)
    and a fixed, documented mapping elsewhere (``seed mod 2**64``), so -1 is a valid seed.

    ```pycon
    >>> seed_u64(5), seed_u64(-1), seed_u64(None)
    (5, 18446744073709551615, 0)

    ```"""
    return 0 if seed is None else int(seed) % (1 << 64)


def seed_sequence(seed: int | None):
    """``numpy.random.default_rng(seed_sequence(seed))`` for any integer seed, None = fresh.

    numpy refuses negative seeds; the sign is folded into the entropy so -1 and 1 differ.

    ```pycon
    >>> import numpy as np
    >>> def draws(seed):
    ...     return np.random.default_rng(seed_sequence(seed)).integers(100, size=3).tolist()
    >>> draws(-1) == draws(-1), draws(-1) == draws(1)
    (True, False)

    ```"""
    import numpy as np

    if seed is None:
        return np.random.SeedSequence()
    seed = int(seed)
    return np.random.SeedSequence([abs(seed), 1 if seed < 0 else 0])


# --------------------------------------------------------------------------------------------
# Jobs
# --------------------------------------------------------------------------------------------


def default_jobs() -> int:
    """All the cores this process may use (what ``jobs=None`` means).

    ```pycon
    >>> import os
    >>> 1 <= default_jobs() <= os.cpu_count()
    True

    ```"""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def resolve_jobs(
    jobs: object, *, useful: int | None = None, name: str = "jobs"
) -> tuple[int, str | None]:
    """The number of workers to start, and a note when it was capped.

    ``jobs=None`` means all the cores this process may use. More workers than ``useful`` (the
    number of independent pieces of work, or the cores of the machine for CPU-bound work) are
    not started: each would cost start-up time and memory and add nothing, so the count is
    capped and the note says so.

    ```pycon
    >>> resolve_jobs(1)
    (1, None)
    >>> resolve_jobs(8, useful=1)  # one piece of work: one worker
    (1, 'jobs=8 capped to 1 (the ... of this run)')

    ```"""
    cores = default_jobs()
    n = cores if jobs is None else check_int(jobs, name, minimum=1, maximum=4096)
    cap = cores if useful is None else max(1, min(int(useful), cores))
    if n > cap:
        reason = "the pieces of work" if useful is not None and useful < cores else "the cores"
        return cap, f"{name}={n} capped to {cap} ({reason} of this run)"
    return n, None


# --------------------------------------------------------------------------------------------
# Progress
# --------------------------------------------------------------------------------------------


@dataclass
class ProgressEvent:
    """What a running search says about itself; one type for every family.

    - ``kind``: ``"start"``, ``"progress"``, ``"best"`` (a better answer was found; ``best``
      holds its score or the answer's summary) or ``"done"``;
    - ``done`` and ``total``: work finished and planned, in ``unit`` (``total`` None when
      unknown);
    - ``elapsed``: seconds since the run started; ``rate``: ``unit`` per second, or None;
    - ``best``: the best score or answer so far (family-specific, JSON-friendly), or None;
    - ``counts``: counters so far (nodes, placements, ...); ``message``: a short free text;
    - ``answer``: the best answer itself, when the family sends it beside its score in
      ``best`` (edges: the best board's placements, ``[row, col, piece, turn]``), or None.

    ```pycon
    >>> event = ProgressEvent("progress", done=3, total=10, unit="cells")
    >>> event.to_dict()
    {'kind': 'progress', 'done': 3, 'total': 10, 'unit': 'cells', 'elapsed': 0.0, 'rate': None,
     'best': None, 'counts': {}, 'message': '', 'answer': None}

    ```"""

    kind: str
    """``"start"``, ``"progress"``, ``"best"`` (a better answer was found) or ``"done"``."""
    done: float = 0
    """Work finished so far, in ``unit``."""
    total: float | None = None
    """Work planned, in ``unit``; None when unknown."""
    unit: str = "jobs"
    """What ``done`` and ``total`` count (``"jobs"``, ``"cells"``, ``"nodes"``, ...)."""
    elapsed: float = 0.0
    """Seconds since the run started."""
    rate: float | None = None
    """``unit`` per second, or None before it can be measured."""
    best: Any = None
    """The best score or answer so far (family-specific, JSON-friendly), or None."""
    counts: dict[str, int] = field(default_factory=dict)
    """Counters so far (nodes, placements, ...), by name."""
    message: str = ""
    """A short free text for the user."""
    answer: Any = None
    """The best answer itself when the family sends it beside its score (edges: the best board's
    placements, ``[row, col, piece, turn]``), or None."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


ProgressCallback = Callable[[ProgressEvent], None]


class Progress:
    """A family's side of progress: ``Progress(callback, unit=..., total=...)``, then
    ``update(done)``, ``best(value)``, ``finish()``. Events are throttled to ``interval``
    seconds (except start, best and done); with ``callback=None`` every call is a no-op, so
    kernels' loops need no ``if progress`` of their own.

    A callback that raises ``KeyboardInterrupt`` ([`StopRequested`][rompicapo.common.StopRequested]
    included) stops the run, and is not called again: the family's closing ``finish()`` must not
    stop it a second time, or the partial result it keeps for a stop would be lost.

    ```pycon
    >>> events = []
    >>> progress = Progress(events.append, unit="cells", total=4, interval=0)
    >>> progress.update(2)
    >>> progress.best(7)
    >>> progress.finish()
    >>> [(e.kind, e.done, e.best) for e in events]
    [('start', 0, None), ('progress', 2, None), ('best', 2, 7), ('done', 2, 7)]
    >>> Progress(None).update(1)  # no callback: every call does nothing

    ```"""

    def __init__(
        self,
        callback: ProgressCallback | None,
        *,
        unit: str = "jobs",
        total: float | None = None,
        interval: float = 0.2,
    ) -> None:
        if callback is not None and not callable(callback):
            raise InputError(f"progress must be a callable or None, got {type(callback).__name__}")
        self.callback = callback
        self.unit = unit
        self.total = total
        self.interval = interval
        self.start = time.monotonic()
        self._last = -math.inf
        self.done: float = 0
        self.best_value: Any = None
        self.answer: Any = None
        self.stop_raised = False
        self._emit("start")

    def _emit(self, kind: str, counts: dict[str, int] | None = None, message: str = "") -> None:
        if self.callback is None or self.stop_raised:
            return
        now = time.monotonic()
        elapsed = now - self.start
        rate = self.done / elapsed if elapsed > 0 and self.done else None
        event = ProgressEvent(
            kind=kind,
            done=self.done,
            total=self.total,
            unit=self.unit,
            elapsed=elapsed,
            rate=rate,
            best=self.best_value,
            counts=dict(counts or {}),
            message=message,
            answer=self.answer,
        )
        try:
            self.callback(event)
        except KeyboardInterrupt:
            self.stop_raised = True
            raise
        self._last = now

    def update(
        self, done: float, *, counts: dict[str, int] | None = None, message: str = ""
    ) -> None:
        self.done = done
        if self.callback is not None and time.monotonic() - self._last >= self.interval:
            self._emit("progress", counts, message)

    def best(self, value: Any, *, counts: dict[str, int] | None = None, answer: Any = None) -> None:
        """A better answer: ``value`` its score (``best`` of the events from now on) and,
        when given, ``answer`` the answer itself (their ``answer``)."""
        self.best_value = value
        if answer is not None:
            self.answer = answer
        self._emit("best", counts)

    def finish(self, *, counts: dict[str, int] | None = None, message: str = "") -> None:
        # the run is over: a stop asked for at its very end has nothing left to stop
        with contextlib.suppress(KeyboardInterrupt):
            self._emit("done", counts, message)


# --------------------------------------------------------------------------------------------
# Old keyword names
# --------------------------------------------------------------------------------------------


def renamed_keywords(**old_to_new: str | tuple[str, Callable[[Any], Any]]):
    """Decorator: a public function keeps accepting its old keyword names.

    ``@renamed_keywords(seconds="time_limit", max_nodes="node_limit")`` maps a call with
    ``seconds=5`` to ``time_limit=5`` and warns once (DeprecationWarning); giving both the old
    and the new name is an InputError. Earlier releases' scripts keep working while every
    family speaks the run contract's vocabulary. An old keyword whose value meant something
    else is given with the conversion: ``on_progress=("progress", to_event_callback)``.

    ```pycon
    >>> import warnings
    >>> @renamed_keywords(seconds="time_limit")
    ... def wait(*, time_limit=None):
    ...     return time_limit
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     print(wait(seconds=5), caught[0].message)
    5 wait(): seconds= is now time_limit=

    ```"""
    import functools
    import warnings

    def wrap(func):
        # a class's __init__ (Budget.__init__ = renamed_keywords(...)(Budget.__init__)) is
        # named as the class is called: "Budget(): nodes= is now node_limit="
        name = func.__qualname__.removesuffix(".__init__")

        @functools.wraps(func)
        def inner(*args, **kwargs):
            for old, spec in old_to_new.items():
                new, convert = (spec, None) if isinstance(spec, str) else spec
                if old in kwargs:
                    if new in kwargs:
                        raise InputError(f"give {new} or its old name {old}, not both")
                    warnings.warn(
                        f"{name}(): {old}= is now {new}=",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    value = kwargs.pop(old)
                    kwargs[new] = value if convert is None or value is None else convert(value)
            return func(*args, **kwargs)

        return inner

    return wrap


def retired_keywords(**why: str):
    """Decorator: keywords a public function no longer takes are still accepted, and ignored.

    ``@retired_keywords(processes="the count picks threads itself")`` drops ``processes=...``
    from a call and warns once (DeprecationWarning: "count(): processes= is no longer used; the
    count picks threads itself"), so earlier scripts keep running while the signature shows
    only the run contract's names.

    ```pycon
    >>> import warnings
    >>> @retired_keywords(processes="the count picks threads itself")
    ... def count(n):
    ...     return n
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     print(count(3, processes=2), caught[0].message)
    3 count(): processes= is no longer used; the count picks threads itself

    ```"""
    import functools
    import warnings

    def wrap(func):
        @functools.wraps(func)
        def inner(*args, **kwargs):
            for old, reason in why.items():
                if old in kwargs:
                    kwargs.pop(old)
                    warnings.warn(
                        f"{func.__name__}(): {old}= is no longer used; {reason}",
                        DeprecationWarning,
                        stacklevel=2,
                    )
            return func(*args, **kwargs)

        return inner

    return wrap
