"""How much memory this process may still allocate: the least the machine, its container and its limits allow;
and giving back what it freed.

``MemAvailable`` of ``/proc/meminfo`` says what the machine has free, but a
server often runs under tighter limits that a guard reading only that would
miss (and the run would then die in numpy, or be killed):

- a **cgroup** memory limit (containers, systemd services): for cgroup v2
  ``memory.max - memory.current``, for v1 ``memory.limit_in_bytes -
  memory.usage_in_bytes``, in the process's own cgroup (``/proc/self/cgroup``)
  and every cgroup above it (a parent's limit holds for its children);
- an **address-space limit** (``ulimit -v``, ``RLIMIT_AS``): the soft limit
  minus the process's current virtual size (``VmSize`` of
  ``/proc/self/status``).

:func:`available_memory` is the smallest of these that can be read (None when
none can: then no guard can say no).

Every guard that refuses work before allocating it goes through
:func:`check_memory` (the message says what is needed, what is left and what
to change), so the readings above are the one place a limit is learnt.

Memory a phase of a long search freed in many small blocks (the explorer's
parent sets, a node at a time) stays with the process, and the next phase's
large arrays are mapped beside it: :func:`return_freed_memory` hands it back
to the system between phases.

Examples
--------
>>> from bnexplore.resources import available_memory, format_bytes
>>> available_memory() > 0
True
>>> format_bytes(3 * 2**20)
'3.0 MiB'
"""

import ctypes
import functools
import os
from pathlib import Path

try:
    import resource
except ImportError:  # Windows: no address-space limit to read
    resource = None

from .errors import ResourceError

PROC = Path("/proc")
"""Where the kernel's process files are (tests point it at a fake tree)."""

CGROUP_ROOT = Path("/sys/fs/cgroup")
"""Where the cgroup file systems are mounted."""

CGROUP_FILES = {"v2": ("memory.max", "memory.current"), "v1": ("memory.limit_in_bytes", "memory.usage_in_bytes")}
"""The limit and usage files of a cgroup, by version."""


def _number(path):
    """The integer in a one-line file, or None (absent, unreadable, ``max``)."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def machine_available():
    """Bytes the machine has available: ``MemAvailable`` of /proc/meminfo, else free physical pages, else None."""
    try:
        with open(PROC / "meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_folders():
    """The cgroup folders of this process and their ancestors, as ``(version, folder)``."""
    try:
        lines = (PROC / "self" / "cgroup").read_text().splitlines()
    except OSError:
        return []
    folders = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, own = parts
        if controllers == "":
            version, base = "v2", CGROUP_ROOT
            if not (base / "cgroup.controllers").exists():
                base = CGROUP_ROOT / "unified"  # the hybrid layout mounts v2 here
        elif "memory" in controllers.split(","):
            version, base = "v1", CGROUP_ROOT / "memory"
        else:
            continue
        folder = base.joinpath(*[p for p in own.split("/") if p not in ("", ".", "..")])
        while True:
            folders.append((version, folder))
            if folder == base:
                break
            folder = folder.parent
    return folders


def cgroup_available():
    """Bytes left under the tightest cgroup memory limit over this process, or None when none is set or readable."""
    left = []
    for version, folder in _cgroup_folders():
        limit_file, usage_file = CGROUP_FILES[version]
        limit, usage = _number(folder / limit_file), _number(folder / usage_file)
        if limit is not None and usage is not None:
            left.append(max(0, limit - usage))
    return min(left, default=None)


def address_space_available():
    """Bytes left under the soft ``RLIMIT_AS`` (minus ``VmSize`` now), or None without such a limit."""
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    try:
        with open(PROC / "self" / "status") as f:
            size = next((int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:")), 0)
    except (OSError, ValueError, IndexError):
        size = 0
    return max(0, soft - size)


def available_memory():
    """Bytes of memory this process may allocate now: the smallest of :func:`machine_available`,
    :func:`cgroup_available` and :func:`address_space_available` that can be read, else None."""
    readings = [machine_available(), cgroup_available(), address_space_available()]
    return min((r for r in readings if r is not None), default=None)


def format_bytes(n_bytes):
    """``n_bytes`` as a short human-readable string (binary units).

    Examples
    --------
    >>> format_bytes(512), format_bytes(1536)
    ('512 bytes', '1.5 KiB')
    """
    value = float(n_bytes)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def check_memory(needed, what, hint=None):
    """Raise ResourceError when ``needed`` bytes exceed the available memory (``hint``: what to change).

    The available memory is :func:`available_memory`: the least of the
    machine's, the cgroup's and the address-space limit's (no reading, no
    refusal).

    Parameters
    ----------
    needed : int
        Bytes the work would allocate.
    what : str
        The work, as the message names it ("the exact search over 30 variables").
    hint : str, optional
        What the user can change; by default a smaller problem or a heuristic search.

    Raises
    ------
    ResourceError
        ``"<what> needs <needed> of memory but only <available> is available; <hint>"``.

    Examples
    --------
    >>> check_memory(1, "one byte")  # fits: nothing happens
    """
    available = available_memory()
    if available is not None and needed > available:
        hint = hint or "use fewer variables or a heuristic search (hill climbing, ordering-based)"
        raise ResourceError(f"{what} needs {format_bytes(needed)} of memory but only {format_bytes(available)} "
                            f"is available; {hint}")


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim`` (found among the symbols the process has loaded), or None where the C library
    has none (macOS, musl) or the process cannot be asked (Windows)."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):
        return None


def return_freed_memory():
    """Give the memory the process has freed back to the system (glibc's ``malloc_trim(0)``; elsewhere nothing).

    Small numpy arrays live in the C heap, and glibc keeps the heap's freed pages for the process; an array
    allocated later above its mapping threshold gets new pages instead. Called between the ordering search's
    phases: on DEBD's voting (1,359 variables) the explorer's 1.58 million parent sets, packed node by node,
    left about 60 MB freed but held once the search had packed them into one array.

    Returns
    -------
    bool
        Whether the C library could be asked.

    Examples
    --------
    >>> return_freed_memory() in (True, False)
    True
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
