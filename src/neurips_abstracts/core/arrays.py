"""A numpy column that grows: the build's per-record columns are appended to a dump at a time."""

import numpy as np


class GrowingColumn:
    """A numpy column appended to in blocks (amortized doubling)."""

    def __init__(self, dtype):
        self.data = np.zeros(1024, dtype=dtype)
        self.n = 0

    def extend(self, values: np.ndarray) -> None:
        end = self.n + len(values)
        if end > len(self.data):
            self.data = np.resize(self.data, max(end, 2 * len(self.data)))
        self.data[self.n : end] = values
        self.n = end

    def array(self) -> np.ndarray:
        return self.data[: self.n]
