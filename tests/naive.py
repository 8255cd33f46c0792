"""Slow, obviously-correct twins of the numba kernels.

Each function here is written for clarity, with plain Python loops and
dictionaries, and the tests compare the fast kernels with it on random inputs.
"""

import math
from collections import Counter


# -- scores (bnexplore.scores.kernels) --------------------------------------

def family_counts(codes, child, parents):
    """``{parent configuration tuple: Counter(child state -> count)}``."""
    table = {}
    for row in codes:
        config = tuple(int(row[p]) for p in parents)
        table.setdefault(config, Counter())[int(row[child])] += 1
    return table


def local_score(codes, arities, child, parents, score, ess=1.0):
    """Local score by its textbook formula (natural log, higher is better)."""
    n_rows = len(codes)
    r = int(arities[child])
    q = 1
    for p in parents:
        q *= int(arities[p])
    table = family_counts(codes, child, parents)
    if score in ("bdeu", "k2"):
        a_jk = ess / (q * r) if score == "bdeu" else 1.0
        a_j = a_jk * r
        total = 0.0
        for counts in table.values():
            n_j = sum(counts.values())
            total += math.lgamma(a_j) - math.lgamma(a_j + n_j)
            for n_jk in counts.values():
                total += math.lgamma(a_jk + n_jk) - math.lgamma(a_jk)
        return total
    ll = 0.0
    for counts in table.values():
        n_j = sum(counts.values())
        for n_jk in counts.values():
            ll += n_jk * math.log(n_jk / n_j)
    if score == "ll":
        return ll
    if score == "bic":
        return ll - 0.5 * math.log(n_rows) * q * (r - 1)
    if score == "aic":
        return ll - q * (r - 1)
    raise ValueError(score)


def entropy(codes, variables):
    """Empirical joint entropy in nats."""
    n_rows = len(codes)
    counts = Counter(tuple(int(row[v]) for v in variables) for row in codes)
    return -sum(c / n_rows * math.log(c / n_rows) for c in counts.values())


def kl_statistic(codes, arities, labels, child, parents):
    """BNKL ``(R_i, df_i)``, Balov (2013) Eq. (3), sdnet's empty-cell rules."""
    n_rows = len(codes)
    every = family_counts(codes, child, parents)
    zero = family_counts([row for row, c in zip(codes, labels) if c == 0], child, parents)
    total = 0.0
    for config, counts in every.items():
        counts0 = zero.get(config)
        if not counts0:
            continue
        n_j = sum(counts.values())
        n0_j = sum(counts0.values())
        for k, n_jk in counts.items():
            if counts0[k] > 0:
                total += n_jk * math.log((n_jk / n_j) / (counts0[k] / n0_j))
    q = 1
    for p in parents:
        q *= int(arities[p])
    return total / n_rows, q * (int(arities[child]) - 1)


# -- local search (bnexplore.search.dagstate) --------------------------------

def reachability(adj):
    """``R[a][b]`` is True when a directed path of length >= 1 leads from a to b."""
    n = len(adj)
    reach = [[False] * n for _ in range(n)]
    for a in range(n):
        stack = [b for b in range(n) if adj[a][b]]
        while stack:
            b = stack.pop()
            if not reach[a][b]:
                reach[a][b] = True
                stack.extend(c for c in range(n) if adj[b][c])
    return reach
