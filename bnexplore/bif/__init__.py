"""Discrete Bayesian networks: the model, the BIF reader and writer, forward sampling, likelihood and fitting.

Its rooms:

- :mod:`~bnexplore.bif.network`: the :class:`Network` model (states, parents,
  CPTs) and its checks;
- :mod:`~bnexplore.bif.parse`: :func:`read_bif`, the BIF dialect read;
- :mod:`~bnexplore.bif.source`: :func:`network_text`, the text of any network
  file, bounded by :func:`max_text_bytes` and un-gzipped safely;
- :mod:`~bnexplore.bif.write`: :func:`write_bif` and :func:`bif_name`;
- :mod:`~bnexplore.bif.sample`: :func:`sample`, :func:`sample_codes` and
  :func:`log_likelihood`;
- :mod:`~bnexplore.bif.fit`: :func:`fit_network`, the CPTs of a DAG from data.

Examples
--------
>>> from bnexplore import bundled
>>> from bnexplore.bif import read_bif, sample
>>> asia = read_bif(bundled.network_path("asia"))
>>> sample(asia, 3, seed=0).shape
(3, 8)
"""

from bnexplore.bif.fit import fit_network
from bnexplore.bif.network import Network
from bnexplore.bif.parse import SUM_TOLERANCE, read_bif
from bnexplore.bif.source import max_text_bytes, network_text, save_text
from bnexplore.bif.sample import log_likelihood, sample, sample_codes
from bnexplore.bif.write import bif_name, unique_names, write_bif

__all__ = ["Network", "SUM_TOLERANCE", "bif_name", "fit_network", "log_likelihood", "max_text_bytes", "network_text",
           "read_bif", "sample", "sample_codes", "save_text", "unique_names",
           "write_bif"]
