"""What the reinforcement loop (trainer/loop.py) needs in MuZero mode: the window of newest
records as trajectories, and an export the engine is checked to load."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from trainer.muzero.data import TrajectoryData, record_files


class TrajectoryWindow:
    """The newest whole record files holding at least ``window`` positions (whole files: a
    trajectory must not be cut in the middle), as one TrajectoryData."""

    def __init__(self, dirs: Sequence[str | os.PathLike[str]], window: int) -> None:
        self.dirs, self.window = list(dirs), int(window)
        self.data: TrajectoryData | None = None
        self.files: list[Path] = []
        self._lengths: dict[Path, int] = {}

    def refresh(self) -> int:
        chosen: list[Path] = []
        total = 0
        for p in reversed(record_files(self.dirs)):
            if total >= self.window:
                break
            if p not in self._lengths:
                with np.load(p, allow_pickle=False) as z:
                    self._lengths[p] = int(z["moves"].shape[0])
            chosen.append(p)
            total += self._lengths[p]
        if not chosen:
            raise ValueError(f"no records in {', '.join(map(str, self.dirs))}")
        self.files = list(reversed(chosen))
        self.data = TrajectoryData(self.files)
        return len(self.data)

    def stats(self) -> dict[str, Any]:
        n = len(self.data) if self.data is not None else 0
        linked = int(self.data.follows.sum()) if self.data is not None else 0
        return {"positions": n, "files": len(self.files), "linked": linked}


def export_and_check_muzero(trainer: Any, path: Path, generation: int,
                            extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Exports the MuZero model's two graphs, then loads them as the engine does and runs a
    batch through both: a net the engine cannot search must not enter the loop."""
    from engine import contract
    from engine.evaluator import OnnxMuZero
    from trainer.learn.export import random_planes
    from trainer.muzero.export import export_muzero

    meta = {"steps": trainer.step, "positions": trainer.positions, "generation": generation,
            "training": "zerosum muzero self-play reinforcement", **(extra or {})}
    info = export_muzero(trainer.model, path, meta)
    model = OnnxMuZero.load(str(path), threads=1)
    out, state = model.initial(random_planes(4))
    step = model.recurrent(state, np.arange(4, dtype=np.int64))
    ok = (out.policy.shape == (4, contract.POLICY_SIZE) and step.state.shape == state.shape
          and np.allclose(step.reward.sum(1), 1.0, atol=1e-4)
          and bool(np.isfinite(step.net.policy).all()))
    if not ok:
        raise RuntimeError(f"the engine's MuZero evaluator rejects {path}")
    return {**info, "path": str(path), "steps": trainer.step, "positions": trainer.positions,
            "engine_loads": ok}
