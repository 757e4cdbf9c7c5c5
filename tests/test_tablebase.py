"""Syzygy root filtering against the tables' own verdicts (python-chess's test positions)."""

from __future__ import annotations

import time
from pathlib import Path

import chess
import chess.syzygy
import pytest

from engine.controller import Controller, EngineSettings
from engine.tablebase import Tablebases
from engine.timeman import GoLimits

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "syzygy"


@pytest.fixture(scope="module")
def tables() -> Tablebases:
    return Tablebases(str(DATA / "regular"))


def test_bad_paths_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such directory"):
        Tablebases(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="no Syzygy tables"):
        Tablebases(str(tmp_path))


def test_kept_moves_keep_the_verdict(tables: Tablebases) -> None:
    probe = chess.syzygy.open_tablebase(str(DATA / "regular"))
    checked = 0
    for line in (DATA / "endgame_wdl_dtz.epd").read_text().splitlines():
        board, ops = chess.Board.from_epd(line)
        want = int(ops["wdl"])
        moves = tables.root_moves(board)
        if not any(board.legal_moves):
            assert moves is None
            continue
        assert moves, line
        for mv in moves:
            board.push(mv)
            after = 2 if board.is_checkmate() else -probe.probe_wdl(board)
            board.pop()
            # The verdict is kept (cursed wins and blessed losses count as draws here).
            assert (after > 0) == (want > 0) and (after < 0) == (want < 0), (line, mv)
        checked += 1
    assert checked > 150


def test_no_filter_with_too_many_pieces(tables: Tablebases) -> None:
    assert tables.root_moves(chess.Board()) is None


def test_engine_plays_the_tablebase_move(maia_path: Path) -> None:
    moves: list[str] = []
    ctrl = Controller(lambda info: None, lambda m, p: moves.append(m), lambda s: None,
                      EngineSettings(weights=str(maia_path), syzygy_path=str(DATA / "regular")))
    ctrl.configure(ctrl.settings, ctrl.params)
    # KRvKR: only Re4-e7 (taking the rook's file and winning it) keeps the win.
    ctrl.set_position("8/4r3/8/K7/4R3/8/8/5k2 w - - 0 1", [])
    ctrl.go(GoLimits(nodes=50))
    while ctrl.is_searching():
        time.sleep(0.01)
    assert moves == ["e4e7"]
