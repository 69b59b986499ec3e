"""Benchmarks and evaluation runs (not tests): figures are measured and reported, never asserted.

Importing the package pins BLAS threads before numpy or torch load (DESIGN.md: OpenBLAS threads
fight torch's on small machines) and keeps the model offline; `python -m bench.x` imports this
first. Child processes the benches start inherit the same environment. torch's own threads
(OMP_NUM_THREADS) are left alone: the model should use both cores, as the server does.
"""

import os

for _name, _value in {
    "OPENBLAS_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}.items():
    os.environ.setdefault(_name, _value)
