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
    """The file of the bundled network ``name`` (e.g. ``"alarm"``).

    Only a name in :func:`networks` is accepted: the name is looked up, never
    joined into a path, so ``"../x"`` or an absolute path cannot reach another file.

    Raises
    ------
    DataError
        For any other name.

    Examples
    --------
    >>> network_path("asia").name
    'asia.bif.gz'
    """
    return _lookup(name, networks(), "network", lambda known: directory() / "networks" / f"{known}.bif.gz")


def sample_path(name):
    """The CSV file of the bundled data set ``name`` (e.g. ``"asia"``); only names in :func:`samples`.

    Raises
    ------
    DataError
        For any other name.

    Examples
    --------
    >>> sample_path("asia").name
    'asia.csv'
    """
    return _lookup(name, samples(), "data set", lambda known: directory() / f"{known}.csv")


def _lookup(name, known, kind, path):
    """``path(k)`` for the listed name ``k`` equal to ``name``; the path is built from the list, not the text."""
    if isinstance(name, str) and name in known:
        return path(known[known.index(name)])
    shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
    raise DataError(f"no bundled {kind} {shown}; bundled are {', '.join(known)}")
