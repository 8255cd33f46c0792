"""Checks of the numbers a user passes as options: one rule and one message per kind of number.

Every door hands the library numbers the user typed (API keywords, command-line
flags, app widgets). These checks refuse a value of the wrong type, a NaN or an
infinity, or one out of range with an :class:`bnexplore.errors.OptionError`
naming the option as the door in use names it (:func:`bnexplore.errors.subject`:
``time_limit`` in Python, ``--time-limit`` on the command line), before any
work or allocation depends on it.

Examples
--------
>>> from bnexplore.options import positive_number, whole_number
>>> positive_number(5, "time_limit")
5.0
>>> whole_number(3.0, "restarts")
3
>>> positive_number("5", "time_limit")
Traceback (most recent call last):
...
bnexplore.errors.OptionError: time_limit must be a positive number, got '5'
"""

import math
import numbers

from .errors import OptionError, subject


def _real(value):
    """True for a finite real number (not a bool, not text)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


def positive_number(value, name, high=None, unit="", error=OptionError, low=None):
    """``float(value)`` when it is a finite number > 0 (and >= ``low``, <= ``high``).

    Parameters
    ----------
    value : object
    name : str
        The option's keyword in the Python API (``"time_limit"``).
    high : float, optional
        Largest value allowed.
    unit : str
        Words after "number" in the message (``" of seconds"``).
    error : type
        The BNExploreError raised (a module's own, such as ScoreError).
    low : float, optional
        Smallest value allowed (above 0).

    Returns
    -------
    float

    Raises
    ------
    OptionError (or ``error``)
        Naming the option, the rule and the value.
    """
    if not _real(value) or value <= 0 or (low is not None and value < low) or (high is not None and value > high):
        bounds = ([f"at least {low:g}"] if low is not None else []) + \
            ([f"at most {int(high) if high == int(high) else high:,}"] if high is not None else [])
        within = f" {' and '.join(bounds)}" if bounds else ""
        raise error(f"{subject(name)} must be a positive number{unit}{within}, got {value!r}")
    return float(value)


def whole_number(value, name, low=0, high=None, error=OptionError):
    """``int(value)`` when it is a whole number in ``[low, high]`` (``3.0`` counts as whole).

    Parameters
    ----------
    value : object
    name : str
        The option's keyword in the Python API (``"seed"``).
    low : int
    high : int, optional
    error : type
        The BNExploreError raised.

    Returns
    -------
    int

    Raises
    ------
    OptionError (or ``error``)
        Naming the option, the range and the value.
    """
    if not _real(value) or int(value) != value or value < low or (high is not None and value > high):
        most = "" if high is None else f" and <= {high:,}"
        raise error(f"{subject(name)} must be a whole number >= {low}{most}, got {value!r}")
    return int(value)


def seed_number(seed):
    """The ``seed`` option checked: None (fresh entropy) or a whole number >= 0 (numpy's seeds, of any size)."""
    return None if seed is None else whole_number(seed, "seed", 0)
