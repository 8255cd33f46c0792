"""Learning from incomplete data: expected counts, parameter EM, completions and imputation.

Its rooms:

- :mod:`~bnexplore.em.expected`: the E-step, :func:`expected_counts` and
  :func:`observed_log_likelihood` (each distinct incomplete row summed over
  its independent groups of blank cells, or propagated through the junction
  tree when a group is large);
- :mod:`~bnexplore.em.groups`: those groups, the numba kernels that sum them
  and draw completions from them;
- :mod:`~bnexplore.em.parameters`: :func:`em_fit`, parameter EM for a fixed
  DAG, and :func:`fit_network`, the fit of every method ("bdeu", "ml", "em");
- :mod:`~bnexplore.em.completions`: :func:`completed_data`, structural EM's
  E-step as a weighted table of completed rows;
- :mod:`~bnexplore.em.imputation`: :func:`impute`, the most probable (or a
  sampled) completion of every row.

Each name loads from its module on first use (PEP 562, as :mod:`bnexplore` does).
"""

from ..exports import lazy_exports

EXPORTS = {
    "expected": ["EStep", "expected_counts", "observed_log_likelihood"],
    "parameters": ["em_fit", "fit_network"],
    "completions": ["completed_data"],
    "imputation": ["impute"],
}
"""The module of :mod:`bnexplore.em` each public name is loaded from."""

HOME, __all__, __getattr__, __dir__ = lazy_exports(__name__, EXPORTS)
