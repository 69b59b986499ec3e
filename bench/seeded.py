"""`planrag` with Python's and NumPy's global random generators seeded: for benches that check a
result does not depend on them (`python -m bench.seeded SEED serve …`; PYTHONHASHSEED is set
by the caller, it must be fixed before the interpreter starts)."""

from __future__ import annotations

import random
import sys

import numpy as np

from planrag.cli.main import main

if __name__ == "__main__":
    seed = int(sys.argv[1])
    random.seed(seed)
    np.random.seed(seed)
    sys.argv = ["planrag", *sys.argv[2:]]
    main()
