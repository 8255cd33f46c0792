"""Regenerate the bundled sample data sets from the bundled networks.

Run from anywhere (the output does not depend on the working directory)::

    python sample_data/make_samples.py

Each CSV is a forward sample (:func:`bnexplore.bif.sample`) of a network in
``sample_data/networks``, with a fixed seed, so the files are reproduced byte
for byte by the same numpy random generator (PCG64).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository, when bnexplore is not installed

from bnexplore.bif import read_bif, sample  # noqa: E402

SAMPLES = [
    # (network = output name, rows, seed)
    ("asia", 5000, 1),
    ("alarm", 5000, 1),
    ("insurance", 5000, 1),
    ("child", 2000, 1),
    ("sachs", 2000, 1),
]


def sample_csv(network, rows, seed):
    """The CSV text of ``rows`` samples of ``networks/<network>.bif.gz``."""
    net = read_bif(HERE / "networks" / f"{network}.bif.gz")
    return sample(net, rows, seed=seed).to_csv(index=False, lineterminator="\n")


def main():
    for network, rows, seed in SAMPLES:
        path = HERE / f"{network}.csv"
        path.write_text(sample_csv(network, rows, seed), encoding="utf-8")
        print(f"wrote {path.name}: {rows} rows from networks/{network}.bif.gz, seed {seed}")


if __name__ == "__main__":
    main()
