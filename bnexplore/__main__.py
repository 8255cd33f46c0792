"""``python -m bnexplore``: see :mod:`bnexplore.cli`."""

import sys

from .cli import main

sys.exit(main())
