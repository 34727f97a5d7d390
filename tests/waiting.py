"""Waiting on a condition, never on a fixed sleep: a test goes on as soon as what it waits for
holds, and fails with a reason when it does not hold in time (a loaded machine only makes it
wait longer, never fail for being slow)."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], timeout: float = 30.0) -> bool:
    """Poll ``condition`` (every 20 ms at first, backing off to 200 ms) until it is true or
    ``timeout`` seconds have passed; returns whether it held."""
    deadline = time.monotonic() + timeout
    pause = 0.02
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(0.2, pause * 1.5)
