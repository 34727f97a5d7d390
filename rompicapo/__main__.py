"""``python -m rompicapo``: the same as the ``rompicapo`` command."""

import sys

from rompicapo.cli import main

if __name__ == "__main__":
    sys.exit(main())
