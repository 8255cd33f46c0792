"""Writing a :class:`~bnexplore.bif.Network` as BIF text that pyAgrum, pgmpy and :func:`~bnexplore.bif.read_bif` read.

Names other BIF readers cannot take are written as identifiers
(:func:`bif_name`), the originals kept in ``property bnexplore_name`` /
``bnexplore_states`` statements, which :func:`~bnexplore.bif.read_bif` reads
back and other readers skip.
"""

import itertools
import re
import unicodedata
from urllib.parse import quote

from bnexplore.bif.network import check_network
from bnexplore.bif.source import save_text

_WRITABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_.\-]+")
_FORMAT_WORDS = {"network", "variable", "probability", "property", "type", "discrete", "default", "table"}
_BLOCK_WORDS = re.compile("variable|probability", re.IGNORECASE)
_BLOCK_WORDS_INSIDE = re.compile("(?<=vari)(?=able)|(?<=probabil)(?=ity)", re.IGNORECASE)


def bif_name(label, state=False):
    """The name ``label`` is written under in BIF: itself when every BIF reader takes it, else an identifier.

    pyAgrum (3.3) and pgmpy (1.1) both read ``[A-Za-z_][A-Za-z0-9_.-]*`` as a
    name, and a state may also be a whole number (``0``, ``-1``); the words of
    the format (``network``, ``variable``, ``table`` ...) are not names. Any
    other label has its accents dropped, every run of other characters
    replaced by ``_`` (``_`` at the ends dropped), ``_`` put in front of a
    first character that cannot start a name and ``_`` after a word of the
    format: ``(-inf, 5.667]`` becomes ``_-inf_5.667``, ``<missing>``
    ``missing``, ``master's degree`` ``master_s_degree``. :func:`write_bif`
    keeps the original beside it, so :func:`read_bif` gives it back.

    Parameters
    ----------
    label : str
    state : bool
        ``label`` is a state (whole numbers are kept).

    Returns
    -------
    str

    Examples
    --------
    >>> bif_name("(-inf, 5.667]", state=True), bif_name("2nd visit"), bif_name("table")
    ('_-inf_5.667', '_2nd_visit', 'table_')
    """
    if _WRITABLE.match(label) or (state and _INTEGER.match(label)):
        if label.lower() not in _FORMAT_WORDS:
            return label
    text = "".join(c for c in unicodedata.normalize("NFKD", label) if not unicodedata.combining(c))
    text = _NOT_IN_NAMES.sub("_", text).strip("_")
    if not _WRITABLE.match(text):
        text = "_" + text
    return text + "_" if text.lower() in _FORMAT_WORDS else text


def unique_names(labels, state=False, name=bif_name, ignore_case=True):
    """The ``name`` (default :func:`bif_name`) of every label, made unique ignoring case (pgmpy
    matches BIF variable names without it; ``ignore_case=False`` for a format
    whose readers match case) by suffixes ``_2``, ``_3``, ...; labels
    written as they are get their names first, so they never change.

    Parameters
    ----------
    labels : list of str
    state : bool
        The labels are states (passed on to ``name``).
    name : callable
        ``name(label, state)``: the name a format writes for one label.
    ignore_case : bool
        Names equal but for case clash (True) or are distinct (False).

    Returns
    -------
    list of str

    Examples
    --------
    >>> unique_names(["a b", "a_b", "A-b"])
    ['a_b_2', 'a_b', 'A-b']
    >>> unique_names(["a b", "a_b", "A_b"], ignore_case=False)
    ['a_b_2', 'a_b', 'A_b']
    """
    fold = str.lower if ignore_case else str
    written = [name(label, state) for label in labels]
    seen = set()
    for i in sorted(range(len(labels)), key=lambda i: written[i] != labels[i]):
        candidate, k = written[i], 1
        while fold(candidate) in seen:
            k += 1
            candidate = f"{written[i]}_{k}"
        seen.add(fold(candidate))
        written[i] = candidate
    return written


def _encoded(text):
    """``text`` as a property value every reader keeps whole: percent-encoded
    UTF-8 (no quote, comma, brace, semicolon, space or slash), the words
    ``variable`` and ``probability`` with their first letter encoded too
    (pgmpy looks for its blocks by these words anywhere in a file)."""
    return _BLOCK_WORDS.sub(lambda m: f"%{ord(m.group()[0]):02X}{m.group()[1:]}", quote(text, safe=""))


def write_bif(network, path=None):
    """Write a network as BIF text that pyAgrum, pgmpy and :func:`read_bif` read.

    Every name is written as :func:`bif_name` makes it (unique within its
    kind, ignoring case); where that differs from the original, the block
    keeps the original in a property that :func:`read_bif` reads and other
    readers skip: ``property bnexplore_name = "...";`` (network and variable
    blocks) and ``property bnexplore_states = "s1,s2,...";`` (every state of
    the variable), each percent-encoded (see ``_encoded``). So bnexplore
    reads back the very network written, names included, and other tools
    read the same tables under names they accept.

    Probabilities are written with ``repr`` (the shortest text that parses to
    the same float), rows in the order of the CPT (last parent fastest).

    Parameters
    ----------
    network : Network
    path : str or pathlib.Path, optional
        File to write; gzipped when the name ends with ``.gz``.

    Returns
    -------
    str
        The BIF text.

    Examples
    --------
    >>> from bnexplore.bif import Network, read_bif
    >>> net = Network("n", ["x y"], [["<missing>", "a"]], [[]], [[0.5, 0.5]])
    >>> print(write_bif(net))  # doctest: +NORMALIZE_WHITESPACE
    network n {
    }
    variable x_y {
      type discrete [ 2 ] { missing, a };
      property bnexplore_name = "x%20y";
      property bnexplore_states = "%3Cmissing%3E,a";
    }
    probability ( x_y ) {
      table 0.5, 0.5;
    }
    >>> read_bif(write_bif(net)).states
    [['<missing>', 'a']]
    """
    check_network(network, "write_bif")
    names = unique_names(network.names)
    states = [unique_names(labels, state=True) for labels in network.states]
    title = _BLOCK_WORDS_INSIDE.sub("_", bif_name(network.name))
    parts = [f"network {title} {{\n{_original(network.name, [title])}}}\n"]
    for v, name in enumerate(names):
        original = _original(network.names[v], [name]) + _original(network.states[v], states[v], "states")
        parts.append(f"variable {name} {{\n  type discrete [ {len(states[v])} ] {{ {', '.join(states[v])} }};\n"
                     f"{original}}}\n")
    for v in range(network.n_vars):
        parts.append(_probability_text(network, v, names, states))
    text = "".join(parts)
    return save_text(text, path)


def _original(original, written, what="name"):
    """The property line keeping ``original`` (a name, or a list of states)
    when the ``written`` names differ from it, else ``""``."""
    original = [original] if isinstance(original, str) else original
    if original == written:
        return ""
    return f'  property bnexplore_{what} = "{",".join(map(_encoded, original))}";\n'

def _probability_text(network, v, names, states):
    """The probability block of ``v``, naming variables and states as written (``names``, ``states``)."""
    parents = network.parents[v]
    table = network.cpts[v].reshape(-1, len(network.states[v]))
    if not parents:
        return f"probability ( {names[v]} ) {{\n  table {', '.join(map(repr, table[0].tolist()))};\n}}\n"
    header = f"probability ( {names[v]} | {', '.join(names[p] for p in parents)} ) {{\n"
    configs = itertools.product(*(states[p] for p in parents))
    rows = [
        f"  ({', '.join(config)}) {', '.join(map(repr, row))};\n"
        for config, row in zip(configs, table.tolist())
    ]
    return header + "".join(rows) + "}\n"

