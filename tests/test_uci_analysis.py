"""Analysis output: VerboseMoveStats, info currmove, UCI_AnalyseMode, go mate N, tbhits.

Pure formatting is tested directly; the options are tested in scripted dialogues with the real
engine process (the fixtures of test_uci_dialogue).
"""

from __future__ import annotations

import re

import chess

from engine.controller import MoveReport, PvLine, Score, SearchInfo, score_of
from engine.mcts import LOSS, WIN
from engine.search import MoveStats
from engine.tablebase import TB_PLIES, TB_WIN_CP
from engine.uci import format_info, format_move_stats
from tests.test_uci_dialogue import (  # noqa: F401  (fixtures)
    EngineProcess,
    bestmove_of,
    engine,
    field,
    info_lines,
    last_report,
    raw_engine,
)

MATE_IN_TWO = "7k/8/5K2/8/8/8/8/6R1 w - - 0 1"  # f6f7, then Rh1# or Rg8#
BARE_KINGS = "8/8/8/8/8/k7/8/K7 w - - 0 1"  # every move is a draw by insufficient material


def test_move_stats_line() -> None:
    r = MoveReport("e2e4", 495, 0.5024, 0.02376, 0.040, 4.3, Score(cp=3), False)
    assert format_move_stats(r) == (
        "info string e2e4  N:     495 (P: 50.24%) (Q: +0.02376) (W: 0.492) (D: 0.040) "
        "(L: 0.468) (M:   4.3) (cp 3)")
    proven = MoveReport("a1a8", 7, 0.1, 1.0, 0.0, 0.0, Score(mate=1), True)
    assert format_move_stats(proven).endswith("(W: 1.000) (D: 0.000) (L: 0.000) (M:   0.0) "
                                              "(mate 1) (T)")
    unseen = MoveReport("h2h3", 0, 0.0029, 0.0, 0.0, 0.0, Score(cp=0), False)
    assert format_move_stats(unseen).endswith("(P:  0.29%) (Q: -.-----)")


def test_info_with_currmove_stats_and_tbhits() -> None:
    stats = (MoveReport("a2a3", 1, 0.1, 0.0, 0.5, 1.0, Score(cp=0), False),
             MoveReport("node", 2, 1.0, 0.0, 0.5, 1.0, Score(cp=0), False))
    info = SearchInfo(depth=2, seldepth=3, time_ms=10, nodes=2, nps=200, hashfull=0,
                      lines=(PvLine(1, Score(cp=0), (250, 500, 250), ("a2a3",)),), tbhits=7,
                      currmove=("a2a3", 1), move_stats=stats)
    out = format_info(info, show_wdl=False)
    assert out[0] == "info currmove a2a3 currmovenumber 1"
    assert out[1].startswith("info string a2a3 ") and out[2].startswith("info string node ")
    assert out[3] == ("info depth 2 seldepth 3 time 10 nodes 2 nps 200 hashfull 0 tbhits 7 "
                      "multipv 1 score cp 0 pv a2a3")


def test_tablebase_results_score_as_decisive_not_mate() -> None:
    def move(bound: int, plies: int) -> MoveStats:
        return MoveStats(0, 0.5, 10, 0.0, 0.0, 0.0, bound, plies, 1)

    assert score_of(move(WIN, TB_PLIES + 1))[0] == Score(cp=TB_WIN_CP - 1)
    assert score_of(move(LOSS, TB_PLIES + 2))[0] == Score(cp=-TB_WIN_CP + 2)
    assert score_of(move(WIN, 3))[0] == Score(mate=2)


# ------------------------------------------------------------------ dialogues


def test_verbose_move_stats_list_every_move_before_bestmove(engine: EngineProcess) -> None:
    engine.send("setoption name VerboseMoveStats value true")
    engine.send("position startpos moves e2e4")
    lines, best = engine.search("go nodes 200")
    stats = [s for s in lines if re.match(r"info string \S+ +N: ", s)]
    moves = [s.split()[2] for s in stats]
    board = chess.Board()
    board.push_uci("e2e4")
    assert moves[-1] == "node"
    assert sorted(moves[:-1]) == sorted(m.uci() for m in board.legal_moves)
    visits = {s.split()[2]: int(re.search(r"N: +(\d+)", s).group(1)) for s in stats}  # type: ignore[union-attr]
    assert sum(v for k, v in visits.items() if k != "node") == visits["node"] - 1
    assert moves[-2] == bestmove_of(best)  # best last, as lc0 prints them
    priors = [float(re.search(r"P: +([\d.]+)%", s).group(1)) for s in stats[:-1]]  # type: ignore[union-attr]
    assert abs(sum(priors) - 100.0) < 0.5
    engine.send("setoption name VerboseMoveStats value false")
    lines, _ = engine.search("go nodes 50")
    assert not [s for s in lines if s.startswith("info string")]


def test_currmove_names_a_legal_move(engine: EngineProcess) -> None:
    engine.send("position startpos")
    lines, _ = engine.search("go movetime 1600")
    cur = [s for s in lines if s.startswith("info currmove ")]
    assert cur, lines
    for s in cur:
        tokens = s.split()
        assert chess.Move.from_uci(tokens[2]) in chess.Board().legal_moves
        assert tokens[3] == "currmovenumber" and 1 <= int(tokens[4]) <= 20


def test_analyse_mode_plays_the_best_move_despite_temperature(engine: EngineProcess) -> None:
    engine.send("setoption name Temperature value 50")
    engine.send("setoption name VerboseMoveStats value true")
    engine.send("setoption name UCI_AnalyseMode value true")
    engine.send("position startpos moves d2d4")
    for _ in range(3):
        engine.send("setoption name Clear Tree")
        lines, best = engine.search("go nodes 150")
        stats = [s for s in lines if re.match(r"info string \S+ +N: ", s)]
        assert stats[-2].split()[2] == bestmove_of(best)
        assert first_pv(last_report(lines)[1]) == bestmove_of(best)


def first_pv(line: str) -> str:
    return line.split(" pv ", 1)[1].split()[0]


def test_go_mate_two_stops_at_the_proof(engine: EngineProcess) -> None:
    engine.send(f"position fen {MATE_IN_TWO}")
    lines, best = engine.search("go mate 2", timeout=60)
    final = last_report(lines)[1]
    assert field(final, "score") == "mate" and "score mate 2" in final, final
    board = chess.Board(MATE_IN_TWO)
    board.push_uci(bestmove_of(best))
    for reply in list(board.legal_moves):  # every defence is mated next move
        board.push(reply)
        assert _mates(board), board.fen()
        board.pop()


def _mates(board: chess.Board) -> bool:
    for m in board.legal_moves:
        board.push(m)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return True
    return False


def test_go_mate_ends_when_no_mate_exists(engine: EngineProcess) -> None:
    """Every line proven drawn: the search stops by itself instead of searching forever."""
    engine.send(f"position fen {BARE_KINGS}")
    lines, best = engine.search("go mate 3", timeout=10)
    assert chess.Move.from_uci(bestmove_of(best)) in chess.Board(BARE_KINGS).legal_moves
    assert "score cp 0" in last_report(lines)[1]


def test_new_options_are_declared(raw_engine: EngineProcess) -> None:
    raw_engine.send("uci")
    lines, _ = raw_engine.read_until(lambda s: s == "uciok")
    for decl in ("option name UCI_AnalyseMode type check default false",
                 "option name VerboseMoveStats type check default false"):
        assert decl in lines
    assert info_lines(lines) == []
