"""Generate the dumps of one benchmark size into benchmarks/out/ unless already there."""

import sys

from .scale import ensure_dumps

if __name__ == "__main__":
    print(ensure_dumps(int(sys.argv[1])))
