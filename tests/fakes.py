"""A deterministic fake network: outputs are a fixed function of the input planes."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine import contract
from engine.evaluator import NetOutput


class HashEvaluator:
    """Policy logits and value from fixed random projections of the planes' sums.

    Different positions get different, repeatable outputs, like a real net, at no cost.
    """

    name = "hash"

    def __init__(self, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self._wp = rng.normal(0, 0.3, (contract.NUM_PLANES * 8, contract.POLICY_SIZE))
        self._wv = rng.normal(0, 0.05, (contract.NUM_PLANES * 8, 2))
        self.calls = 0
        self.positions = 0

    def evaluate(self, planes: npt.NDArray[np.float32]) -> NetOutput:
        self.calls += 1
        self.positions += len(planes)
        feats = planes.sum(axis=3).reshape(len(planes), -1).astype(np.float64)
        feats[:, -8 * 8:] = 0.0  # ignore the rule-50 and constant planes' scale
        logits = (feats @ self._wp).astype(np.float32)
        v = np.tanh(feats @ self._wv)
        win = (1 + v[:, 0]) / 2 * (1 - abs(v[:, 1]) / 2)
        draw = abs(v[:, 1]) / 2
        wdl = np.stack([win, draw, 1 - win - draw], axis=1).astype(np.float32)
        return NetOutput(logits, wdl, None)
