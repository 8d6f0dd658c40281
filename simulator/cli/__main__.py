"""``python -m simulator.cli``: the ``ginsim`` command."""

import sys

from . import main

sys.exit(main())
