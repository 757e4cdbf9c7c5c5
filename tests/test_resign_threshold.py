"""benchmarks/resign_threshold.py: a resignation is false by the game's result when the resigning
side did not lose, and by Stockfish's judgement only when the position was not lost."""

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from trainer.arena.match import stockfish_path  # noqa: E402


class Game:
    """The fields of a record that the replay reads: one move, its side's value, the result."""

    def __init__(self, fen: str, move: int, q: float, wdl: list[float]) -> None:
        self.start_fen = fen
        self.meta: dict[str, Any] = {}
        self.moves = np.array([move], np.int32)
        self.root_q = np.array([q], np.float32)
        self.wdl = np.array([wdl], np.float32)

    def __len__(self) -> int:
        return 1


def test_stockfish_judges_a_drawn_result_in_a_lost_position_sound() -> None:
    path = stockfish_path()
    if path is None:
        pytest.skip("no Stockfish")
    from resign_threshold import StockfishJudge, table

    e8f8, e6f6 = 60 | (61 << 6), 44 | (45 << 6)
    # Black resigns a queen down (lost) and the game was drawn all the same: false by the
    # result, sound by Stockfish. Black resigns bare king against bare king (a dead draw): false
    # by both. A third game resigns nowhere: its value is above the threshold.
    lost = Game("4k3/8/8/8/8/8/3QK3/8 b - - 0 1", e8f8, -1.0, [0.0, 1.0, 0.0])
    dead = Game("8/8/4k3/8/8/4K3/8/8 b - - 0 1", e6f6, -1.0, [0.0, 1.0, 0.0])
    fine = Game("8/8/4k3/8/8/4K3/8/8 b - - 0 1", e6f6, 0.0, [0.0, 1.0, 0.0])
    judge = StockfishJudge(path, 10)
    try:
        (row,) = table([lost, dead, fine], [-0.9], [1], 0, None, judge)  # type: ignore[list-item]
        assert judge.not_lost(lost, 0) < 0.01  # type: ignore[arg-type]
        assert judge.not_lost(dead, 0) > 0.99  # type: ignore[arg-type]
    finally:
        judge.close()
    assert row["would_resign"] == 2 and row["false"] == 2
    assert row["false_sf"] == pytest.approx(1.0, abs=0.02)
    assert row["false_sf_rate"] == pytest.approx(0.5, abs=0.01)
