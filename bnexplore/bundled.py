"""The data sets and networks that ship with bnexplore (``sample_data/``, see its README).

In a clone they sit in ``sample_data/`` beside the package; an installed wheel
carries the same files as ``bnexplore/sample_data/``.
"""

from pathlib import Path

from .errors import DataError

_HERE = Path(__file__).resolve().parent


def directory():
    """The folder of the bundled files: ``bnexplore/sample_data`` when installed, else the clone's ``sample_data``."""
    installed = _HERE / "sample_data"
    return installed if installed.is_dir() else _HERE.parent / "sample_data"


def networks():
    """Names of the bundled BIF networks, smallest file first."""
    files = sorted((directory() / "networks").glob("*.bif.gz"), key=lambda p: p.stat().st_size)
    return [p.name[: -len(".bif.gz")] for p in files]


def samples():
    """Names of the bundled data sets (CSV files)."""
    return sorted(p.stem for p in directory().glob("*.csv"))


def network_path(name):
    """The file of the bundled network ``name`` (e.g. ``"alarm"``)."""
    path = directory() / "networks" / f"{name}.bif.gz"
    if not path.is_file():
        raise DataError(f"no bundled network {name!r}; bundled are {', '.join(networks())}")
    return path


def sample_path(name):
    """The CSV file of the bundled data set ``name`` (e.g. ``"asia"``)."""
    path = directory() / f"{name}.csv"
    if not path.is_file():
        raise DataError(f"no bundled data set {name!r}; bundled are {', '.join(samples())}")
    return path
