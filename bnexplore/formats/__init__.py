"""Networks in the files other tools use: one registry of formats, and reading and writing any of them.

Its rooms: :mod:`~bnexplore.formats.registry` (:data:`FORMATS`,
:func:`read_network`, :func:`read_graph`, :func:`write_network`), and one
module per format (BIF itself lives in :mod:`bnexplore.bif`).

Examples
--------
>>> from bnexplore import bundled
>>> from bnexplore.formats import read_network, write_network
>>> asia = read_network(bundled.network_path("asia"))
>>> read_network(write_network(asia, format="bif")).names == asia.names
True
"""

from bnexplore.formats.registry import FORMATS, NetworkFormat, format_for, read_graph, read_network, write_network

__all__ = ["FORMATS", "NetworkFormat", "format_for", "read_graph", "read_network", "write_network"]
