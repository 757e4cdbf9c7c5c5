"""Syzygy tables: root filtering against the tables' own verdicts (python-chess's test
positions), and exact tablebase values inside the search tree."""

from __future__ import annotations

import time
from pathlib import Path

import chess
import chess.syzygy
import pytest

from engine.board import Position, move_to_uci
from engine.controller import Controller, EngineSettings, SearchInfo
from engine.mcts import DRAW, LOSS, UNKNOWN, WIN, Tree
from engine.mcts_ref import RefTree
from engine.search import Search, SearchParams
from engine.tablebase import TB_PLIES, TB_WIN_CP, Tablebases, result_of_wdl
from engine.timeman import GoLimits
from engine.uci import format_info
from tests.fakes import HashEvaluator

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


# ------------------------------------------------------------- inside the tree

# White takes the rook (b2xb4) into KRP v K, a tablebase win; the other moves keep 5 pieces.
CAPTURE_INTO_WIN = "8/8/4k3/8/1r6/8/1R2P3/4K3 w - - 0 1"
# The same with a queen to take: a different tree to compare the fast path and the reference on.
TAKE_QUEEN = "8/8/4k3/8/1q6/8/1R2P3/4K3 w - - 0 1"


def tree_search(fen: str, tables: Tablebases | None, nodes: int, reference: bool = False
                ) -> Search:
    from engine import board_ref

    tree = RefTree if reference else Tree
    s = Search(HashEvaluator(), SearchParams(minibatch_size=8), tree)
    s.set_tablebase(tables)
    s.set_position(board_ref.Position(fen) if reference else Position(fen), [])
    s.run_worker(lambda: False, node_limit=nodes)
    return s


def test_wdl_is_read_under_the_50_move_rule() -> None:
    assert [result_of_wdl(w) for w in (2, 1, 0, -1, -2)] == [LOSS, DRAW, DRAW, DRAW, WIN]


def test_only_zeroing_nodes_with_few_pieces_are_probed(tables: Tablebases) -> None:
    won = chess.Board("8/8/4k3/8/8/8/1R2P3/4K3 b - - 0 1")  # black to move, lost for black
    assert tables.in_tree_result(won) == WIN  # for white, who moved in
    won.halfmove_clock = 3  # the clock ran: WDL alone no longer says what the game is
    assert tables.in_tree_result(won) is None
    assert tables.in_tree_result(chess.Board(TAKE_QUEEN)) is None  # 5 pieces
    castling = chess.Board("4k3/8/8/8/8/8/8/4K2R b K - 0 1")
    assert tables.in_tree_result(castling) is None


def test_bitboard_probe_matches_the_board_probe(tables: Tablebases) -> None:
    probe = chess.syzygy.open_tablebase(str(DATA / "regular"))
    for line in (DATA / "endgame_wdl_dtz.epd").read_text().splitlines()[:60]:
        board, _ = chess.Board.from_epd(line)
        if board.castling_rights or not board.is_valid():
            continue
        want = result_of_wdl(probe.probe_wdl(board))
        got = tables.probe_bitboards(
            hash(board.fen()), board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK],
            board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            int(board.turn), -1 if board.ep_square is None else board.ep_square)
        assert got == want, line


@pytest.mark.parametrize("reference", [False, True])
def test_capture_into_a_won_ending_is_proven(tables: Tablebases, reference: bool) -> None:
    s = tree_search(CAPTURE_INTO_WIN, tables, 300, reference)
    by_move = {move_to_uci(m.move): m for m in s.ranked_moves()}
    take = by_move["b2b4"]
    assert take.bound == WIN and take.plies == TB_PLIES + 1
    assert s.ranked_moves()[0].move == take.move  # a proven win ranks first
    assert s.stats.tbhits > 0
    # Without tables the same search proves nothing there.
    plain = tree_search(CAPTURE_INTO_WIN, None, 300, reference)
    assert plain.stats.tbhits == 0
    assert all(m.bound == UNKNOWN for m in plain.ranked_moves())


def test_fast_and_reference_probe_alike(tables: Tablebases) -> None:
    fast = tree_search(TAKE_QUEEN, tables, 400)
    ref = tree_search(TAKE_QUEEN, tables, 400, reference=True)
    table = lambda s: {move_to_uci(m.move): (m.visits, m.bound, m.plies)  # noqa: E731
                       for m in s.ranked_moves()}
    assert table(fast) == table(ref)
    assert fast.stats.tbhits == ref.stats.tbhits > 0


def test_tbhits_in_info_lines(maia_path: Path) -> None:
    infos: list[SearchInfo] = []
    ctrl = Controller(infos.append, lambda m, p: None, lambda s: None,
                      EngineSettings(weights=str(maia_path), syzygy_path=str(DATA / "regular")))
    ctrl.configure(ctrl.settings, ctrl.params)
    ctrl.set_position(CAPTURE_INTO_WIN, [])
    ctrl.go(GoLimits(nodes=200))
    while ctrl.is_searching():
        time.sleep(0.01)
    final = infos[-1]
    assert final.tbhits is not None and final.tbhits > 0
    assert format_info(final, False)[-1].count(f" tbhits {final.tbhits} ") == 1
    assert final.lines[0].pv[0] == "b2b4" and final.lines[0].score.cp == TB_WIN_CP - 1


def test_a_winning_capture_is_taken(tables: Tablebases) -> None:
    """A capture zeroes the clock itself, so it counts one ply to zeroing, not the DTZ of the
    ending after it: the root must not keep the capture waiting (it made the engine repeat)."""
    assert tables.root_moves(chess.Board("8/8/8/2K4k/8/8/1n6/1Q6 w - - 0 1")) == [
        chess.Move.from_uci("b1b2")]
