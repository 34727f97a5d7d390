import sys

from rompicapo.cli import main

sys.exit(main())
