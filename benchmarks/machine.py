"""What every side-by-side benchmark prints beside its figures: the CPU model, the load and
the commit measured (machines of this kind change CPU model from one day to the next, so
a figure means something only with them)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_model() -> str:
    """The processor's model name, from /proc/cpuinfo."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages."""
    return os.getloadavg()


def commit() -> str:
    """The short commit of the checkout, ``+dirty`` when tracked files are modified."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, check=True)  # fmt: skip
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "-uno"],
                               capture_output=True, text=True, check=True)  # fmt: skip
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_json(path: Path, data: object) -> None:
    """Write a benchmark's rows as indented JSON (one trailing newline) and say where."""
    path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {path}")
