"""The one registry of network file formats: their names, file endings, readers, writers and how to tell them apart.

Each format is a module of :mod:`bnexplore.formats` (BIF stays in
:mod:`bnexplore.bif`) with three public functions, named in its
:class:`NetworkFormat` entry:

- a reader, ``read_x(source)``: a path (plain or ``.gz``), the text or an open
  file, to a :class:`~bnexplore.bif.Network` (a :class:`~bnexplore.graphs.DAG`
  for a graph-only format), refusing a bad file with a
  :class:`~bnexplore.errors.BIFError` that names the line;
- a writer, ``write_x(network, path=None)``: the text (written to ``path`` when
  given), with names the format cannot hold made safe in a way the reader
  gives back;
- ``looks_like(text)``: whether the start of a file is in this format, so a
  file without a known ending is read by its content.

:func:`read_network`, :func:`read_graph` and :func:`write_network` pick the
format from ``format=``, else the file's ending, else (reading) the content.
To add a format: write its module and add one entry to :data:`FORMATS`; the
CLI's ``convert``, the app's import and export and the round-trip tests take
it from here.

Examples
--------
>>> sorted(FORMATS)[:3]
['bif', 'dsc', 'modelstring']
>>> format_for("alarm.xdsl").title
'GeNIe XDSL'
"""

import importlib
from dataclasses import dataclass
from pathlib import Path

from bnexplore.errors import BIFError

# bnexplore.bif (its network, reader, sampler) is imported where it is used: it loads pandas, and the command
# line builds its flags from FORMATS without it (tests/test_registry.py counts the modules).

SNIFF_CHARS = 4096
"""How much of the start of a file the ``looks_like`` functions see: every format names itself within it."""


@dataclass(frozen=True)
class NetworkFormat:
    """One network file format.

    Attributes
    ----------
    name : str
        Its key in :data:`FORMATS` and the CLI's ``--to`` value.
    title : str
        What a person calls it ("Hugin NET").
    extensions : tuple of str
        File endings, lower case with the dot, the first the one written.
    module : str
        The module holding ``reader``, ``writer`` and ``looks_like``.
    reader, writer : str
        Names of its read and write functions.
    tables : bool
        False for a graph-only format (its reader gives a DAG; its writer takes a DAG or a Network).
    """

    name: str
    title: str
    extensions: tuple
    module: str
    reader: str
    writer: str
    tables: bool = True

    def _function(self, name):
        return getattr(importlib.import_module(self.module), name)

    def read(self, source):
        """The network (or, for a graph-only format, the DAG) in ``source``."""
        return self._function(self.reader)(source)

    def write(self, network, path=None):
        """``network`` as this format's text, written to ``path`` when given."""
        return self._function(self.writer)(network, path)

    def looks_like(self, text):
        """Whether ``text``, the start of a file, is in this format."""
        return self._function("looks_like")(text)


FORMATS = {
    spec.name: spec for spec in (
        NetworkFormat("bif", "BIF", (".bif",), "bnexplore.formats.bif", "read_bif", "write_bif"),
        NetworkFormat("xmlbif", "XMLBIF 0.3", (".bifxml", ".xmlbif", ".xml"), "bnexplore.formats.xmlbif",
                      "read_xmlbif", "write_xmlbif"),
        NetworkFormat("xdsl", "GeNIe XDSL", (".xdsl",), "bnexplore.formats.xdsl", "read_xdsl", "write_xdsl"),
        NetworkFormat("net", "Hugin NET", (".net",), "bnexplore.formats.hugin", "read_net", "write_net"),
        NetworkFormat("dsc", "bnlearn DSC", (".dsc",), "bnexplore.formats.dsc", "read_dsc", "write_dsc"),
        NetworkFormat("uai", "UAI", (".uai",), "bnexplore.formats.uai", "read_uai", "write_uai"),
        NetworkFormat("modelstring", "bnlearn model string", (".modelstring",), "bnexplore.formats.modelstring",
                      "read_modelstring", "write_modelstring", tables=False),
    )
}
"""Every network format, by name. Told apart by content in this order (the most specific first is not
needed: each ``looks_like`` checks what only its format starts with)."""


def format_for(path=None, format=None):
    """The :class:`NetworkFormat` named ``format``, else the one of ``path``'s ending (``.gz`` aside), else None.

    Raises
    ------
    BIFError
        If ``format`` is not a known name.

    Examples
    --------
    >>> format_for("model.net.gz").name, format_for(format="uai").title
    ('net', 'UAI')
    >>> format_for("table.csv") is None
    True
    """
    if format is not None:
        if format not in FORMATS:
            raise BIFError(f"format={format!r} is not a network format; use one of {', '.join(FORMATS)}")
        return FORMATS[format]
    if path is None:
        return None
    name = Path(path).name.lower().removesuffix(".gz")
    return next((spec for spec in FORMATS.values() if name.endswith(spec.extensions)), None)


def _every_ending():
    return ", ".join(ending for spec in FORMATS.values() for ending in spec.extensions)


def _sniffed(source):
    """The format of ``source`` told by its content, and the text read (so the file is read once)."""
    from bnexplore.bif import network_text

    text, _ = network_text(source, "network", (), text_marks=("{", "<", "\n", "["))
    start = text[:SNIFF_CHARS]
    for spec in FORMATS.values():
        if spec.looks_like(start):
            return spec, text
    raise BIFError(f"{_named(source)} is in no network format bnexplore reads ({', '.join(FORMATS)}); give it "
                   f"one of the endings {_every_ending()}, or name its format")


def _named(source):
    return f"file {Path(source).name!r}" if isinstance(source, Path) or (
        isinstance(source, str) and not any(mark in source for mark in "{<\n[")) else "the network text"


def _spec_and_source(source, format):
    path = source if isinstance(source, (str, Path)) and not (
        isinstance(source, str) and any(mark in source for mark in "{<\n[")) else None
    spec = format_for(path, format)
    if spec is not None:
        return spec, source
    return _sniffed(source)


def read_network(source, format=None):
    """Read a network with its tables from a file in any format of :data:`FORMATS`.

    Parameters
    ----------
    source : str, pathlib.Path or file-like
        A path (plain or ``.gz``), the text, or an open file.
    format : str, optional
        A name of :data:`FORMATS`; by default the file's ending says, else its content.

    Returns
    -------
    Network

    Raises
    ------
    BIFError
        If the format cannot be told, holds a graph only (read it with :func:`read_graph`), or the file is
        malformed (the message names the line).

    Examples
    --------
    >>> from bnexplore import bundled
    >>> read_network(bundled.network_path("asia"))
    Network('asia', 8 variables, 8 arcs)
    """
    spec, source = _spec_and_source(source, format)
    if not spec.tables:
        raise BIFError(f"a {spec.title} holds a graph without probability tables; read it with read_graph, "
                       "or fit tables to data with fit_network")
    return spec.read(source)


def read_graph(source, format=None):
    """The graph of a network file in any format of :data:`FORMATS` (graph-only formats included).

    Parameters
    ----------
    source : str, pathlib.Path or file-like
    format : str, optional

    Returns
    -------
    DAG

    Examples
    --------
    >>> from bnexplore import bundled
    >>> read_graph(bundled.network_path("asia")).n_edges
    8
    """
    from bnexplore.bif import Network

    spec, source = _spec_and_source(source, format)
    found = spec.read(source)
    return found.dag() if isinstance(found, Network) else found


def write_network(network, path=None, format=None):
    """Write a network in the format ``format`` names, else the one of ``path``'s ending.

    Parameters
    ----------
    network : Network or DAG
        A DAG only for a graph-only format.
    path : str or pathlib.Path, optional
        Where to write (gzipped when it ends with ``.gz``); without it, give ``format``.
    format : str, optional

    Returns
    -------
    str
        The text written.

    Raises
    ------
    BIFError
        If neither ``format`` nor the ending names a format, or a DAG is given for a format with tables.

    Examples
    --------
    >>> from bnexplore import bundled
    >>> asia = read_network(bundled.network_path("asia"))
    >>> write_network(asia, format="bif").startswith("network asia")
    True
    """
    from bnexplore.bif import Network

    spec = format_for(path, format)
    if spec is None:
        where = f"{Path(path).name!r} has no ending of a network format" if path is not None else "no path given"
        raise BIFError(f"{where}; use one of {_every_ending()}, or name the format")
    if spec.tables and not isinstance(network, Network):
        raise BIFError(f"a {spec.title} file holds probability tables, and a graph has none; fit tables to data "
                       "first (fit_network), or write it as a model string")
    return spec.write(network, path)
