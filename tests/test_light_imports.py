"""A search on codes loads no table library: pandas (and the pyarrow it brings) cost some 70 MiB of
memory and half a second, and a large-network run on a numeric array needs neither (issue 34)."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_learning_from_codes_loads_no_pandas():
    script = textwrap.dedent("""
        import sys
        import numpy as np
        from bnexplore import learn
        from bnexplore.data import Dataset
        codes = np.random.default_rng(0).integers(0, 2, (200, 8)).astype(np.int8)
        data = Dataset.from_codes(codes, arities=[2] * 8, names=[f"v{i}" for i in range(8)])
        for algorithm in ("hc", "asobs"):
            learn(data, algorithm, score="bic", seed=0, **({"max_evaluations": 20} if algorithm == "asobs" else {}))
        print(sorted(m for m in ("pandas", "pyarrow") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_kernels_load_no_scipy_linalg_and_leave_it_importable():
    """numba's array functions import scipy.linalg (15-22 MiB) only to choose BLAS for np.convolve; the kernels
    set numba's CPU target up without it (compiling.njit), and SciPy's linear algebra still loads afterwards, for
    the user and for a numba kernel that calls BLAS."""
    script = textwrap.dedent("""
        import sys
        import numpy as np
        from bnexplore import learn
        from bnexplore.data import Dataset
        from bnexplore.scores import Scorer
        codes = np.random.default_rng(0).integers(0, 2, (200, 8)).astype(np.int8)
        data = Dataset.from_codes(codes, arities=[2] * 8, names=[f"v{i}" for i in range(8)])
        Scorer(data, "bdeu").local(0, [1, 2])
        learn(data, "asobs", score="bic", seed=0, max_evaluations=20)
        print("scipy.linalg" in sys.modules)
        import numba
        import scipy.linalg
        dot = numba.njit(lambda a, b: np.dot(a, b))
        print(float(dot(np.arange(3.0), np.arange(3.0))), float(scipy.linalg.det(np.eye(2))))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", "5.0 1.0"], out.stdout + out.stderr
