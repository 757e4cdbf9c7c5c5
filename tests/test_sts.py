"""benchmarks/sts.py: the STS file read right, and a short run through the real UCI engine."""

from __future__ import annotations

import sys
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import sts  # noqa: E402


def test_suite_points_are_legal_moves(shared_data: Path) -> None:
    suite = sts.load_suite(shared_data / "tactics" / "sts1-15_v3.epd")
    assert len(suite) == 1500
    assert len({theme for _, theme, _ in suite}) == 15
    for board, _, points in suite:
        assert max(points.values()) == 10
        for uci in points:
            assert chess.Move.from_uci(uci) in board.legal_moves, (board.fen(), uci)


def test_run_scores_the_engine_move(tmp_path: Path) -> None:
    epd = tmp_path / "one.epd"
    # Back-rank mate in one, Qd8# (10 points); Kf1 is listed for 1, any other move scores 0.
    epd.write_text('6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - bm Qd8#; id "mate.001"; '
                   'c8 "10 1"; c9 "d1d8 g1f1";\n')
    res = sts.run(None, {"MoveOverhead": "10"}, epd, ms=300, limit=None)
    assert res["positions"] == 1 and res["max_points"] == 10
    assert res["points"] == 10 and res["best_moves"] == 1
