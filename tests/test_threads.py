"""How numba's threads wait is chosen at import (issue 29, item 16).

Each case runs a fresh interpreter: libgomp reads its settings once, when the
first parallel kernel loads it, so only a new process shows what an import
chose.
"""

import json
import os
import subprocess
import sys

import pytest

from bnexplore import threads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = r"""
import ctypes, json, os, sys
import numpy as np
import bnexplore
from bnexplore.scores import kernels, pack_parent_sets
import numba

rng = np.random.default_rng(0)
cols = np.ascontiguousarray(rng.integers(0, 2, (6, 200)), dtype=np.uint8)
parents, sizes = pack_parent_sets([[(v + 1) % 6] for v in range(6)])
kernels.local_scores(cols, np.full(6, 2, np.int64), np.arange(6, dtype=np.int64), parents, sizes,
                     kernels.BDEU, 1.0, 4096)  # a parallel kernel: numba starts its threads
layer = numba.threading_layer()
if layer == "omp":
    sys.stderr.flush()
    ctypes.CDLL("libgomp.so.1").omp_display_env(0)  # what libgomp itself read, on stderr
print(json.dumps({"layer": layer, "policy": os.environ.get("OMP_WAIT_POLICY")}))
"""


def run(**env):
    """Import bnexplore in a new interpreter with ``env`` added to an environment free of
    the user settings; returns (report, libgomp's OMP_WAIT_POLICY or None)."""
    clean = {k: v for k, v in os.environ.items() if k not in threads.USER_SETTINGS}
    clean["PYTHONPATH"] = ROOT + os.pathsep + clean.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", SCRIPT], env={**clean, **env}, capture_output=True, text=True,
                          timeout=600, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    seen = [line.split("=", 1)[1].strip().strip("'") for line in done.stderr.splitlines()
            if line.strip().startswith("OMP_WAIT_POLICY")]
    return report, (seen[0] if seen else None)


def test_import_asks_for_sleeping_threads_before_the_first_kernel():
    report, libgomp = run()
    assert report["policy"] == "PASSIVE"
    if report["layer"] != "omp":
        pytest.skip(f"numba chose the {report['layer']} layer here: no libgomp to ask")
    assert libgomp == "PASSIVE"  # libgomp read it: the import came before numba started its threads


def test_a_wait_policy_the_user_set_is_kept():
    report, libgomp = run(OMP_WAIT_POLICY="ACTIVE")
    assert report["policy"] == "ACTIVE"
    if report["layer"] == "omp":
        assert libgomp == "ACTIVE"


def test_a_threading_layer_the_user_chose_is_left_alone():
    report, _ = run(NUMBA_THREADING_LAYER="workqueue")
    assert report == {"layer": "workqueue", "policy": None}


def test_configure_changes_nothing_once_numba_threads_run():
    from bnexplore.scores import Scorer  # noqa: F401  (this process has run kernels or may; start them now)
    from numba import njit, prange
    import numpy as np

    @njit(parallel=True)
    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    total(np.ones(4))
    env = {}
    assert threads.configure(env) is False and env == {}
