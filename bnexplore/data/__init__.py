"""Reading, validation, discretization and integer encoding of data tables (see :mod:`bnexplore.data.dataset`)."""

from .dataset import *  # noqa: F401,F403  (the module moved into a package; its rooms follow)
