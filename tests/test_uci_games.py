"""End to end through python-chess's UCI client: whole games on a real clock, analysis, stop.

The clocks are kept here, as a GUI keeps them: each side's wall time per move is subtracted and
its increment added, and the engine gets both clocks with every ``go``. Zerosum must never run
out of time and must only play legal moves. Games are capped in plies to bound the run time; a
capped game is "unfinished", but its clock was still checked at every move.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import chess
import chess.engine
import pytest

REPO = Path(__file__).resolve().parents[1]
STOP_LIMIT = 0.5

STOCKFISH = shutil.which("stockfish") or (
    "/usr/games/stockfish" if Path("/usr/games/stockfish").is_file() else None)
SUNFISH = shutil.which("sunfish-uci")


@dataclass
class GameRecord:
    moves: list[str] = field(default_factory=list)
    result: str = "*"
    termination: str = "unfinished"
    zerosum_min_clock: float = float("inf")
    zerosum_max_think: float = 0.0
    zerosum_think_total: float = 0.0
    zerosum_moves: int = 0
    opponent_min_clock: float = float("inf")
    opponent_flagged_at: int | None = None

    def summary(self) -> str:
        avg = self.zerosum_think_total / max(1, self.zerosum_moves)
        return (f"{len(self.moves)} plies, {self.termination} {self.result}; Zerosum: "
                f"min clock {self.zerosum_min_clock:.2f} s, longest move "
                f"{self.zerosum_max_think:.2f} s, mean {avg:.2f} s; opponent min clock "
                f"{self.opponent_min_clock:.2f} s"
                + (f", opponent flagged at ply {self.opponent_flagged_at}"
                   if self.opponent_flagged_at is not None else ""))


def play_game(zerosum: chess.engine.SimpleEngine, opponent: chess.engine.SimpleEngine,
              zerosum_white: bool, base: float, inc: float, max_plies: int,
              ponder: bool = False) -> GameRecord:
    """One game on a real clock. The opponent's flag is recorded but play goes on (its clock is
    floored at 0), so Zerosum's time management is exercised for the whole game."""
    board = chess.Board()
    clocks = {chess.WHITE: base, chess.BLACK: base}
    rec = GameRecord()
    game_id = object()
    zs_color = chess.WHITE if zerosum_white else chess.BLACK
    while not board.is_game_over(claim_draw=True) and board.ply() < max_plies:
        side = board.turn
        ours = side == zs_color
        eng = zerosum if ours else opponent
        limit = chess.engine.Limit(white_clock=clocks[chess.WHITE],
                                   black_clock=clocks[chess.BLACK],
                                   white_inc=inc, black_inc=inc)
        t0 = time.perf_counter()
        result = eng.play(board, limit, game=game_id, ponder=ponder and ours)
        spent = time.perf_counter() - t0
        clocks[side] -= spent
        who = "Zerosum" if ours else "the opponent"
        assert result.move is not None, f"{who} gave no move at ply {board.ply()} in {board.fen()}"
        assert result.move in board.legal_moves, (
            f"{who} played illegal {result.move.uci()} in {board.fen()}")
        if ours:
            rec.zerosum_min_clock = min(rec.zerosum_min_clock, clocks[side])
            rec.zerosum_max_think = max(rec.zerosum_max_think, spent)
            rec.zerosum_think_total += spent
            rec.zerosum_moves += 1
            assert clocks[side] > 0, (
                f"Zerosum lost on time at ply {board.ply()}: took {spent:.3f} s, clock "
                f"{clocks[side]:.3f} s; {rec.summary()}")
        else:
            rec.opponent_min_clock = min(rec.opponent_min_clock, clocks[side])
            if clocks[side] <= 0:
                if rec.opponent_flagged_at is None:
                    rec.opponent_flagged_at = board.ply()
                clocks[side] = 0.0
        clocks[side] += inc
        board.push(result.move)
        rec.moves.append(result.move.uci())
    outcome = board.outcome(claim_draw=True)
    if outcome is not None:
        rec.result = outcome.result()
        rec.termination = outcome.termination.name.lower()
    return rec


def _quit(engine: chess.engine.SimpleEngine) -> None:
    try:
        engine.quit()
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
        engine.close()


def _assert_alive(engine: chess.engine.SimpleEngine) -> None:
    engine.ping()  # isready / readyok round trip: raises when the process is gone


@pytest.fixture
def zerosum_factory(engine_cmd: list[str]) -> Iterator:
    started: list[chess.engine.SimpleEngine] = []

    def start(weights: Path) -> chess.engine.SimpleEngine:
        eng = chess.engine.SimpleEngine.popen_uci(engine_cmd, cwd=REPO, timeout=30)
        started.append(eng)
        eng.configure({"WeightsFile": str(weights)})
        eng.ping()  # loads the net now, not on the first move's clock
        return eng

    yield start
    for eng in started:
        _quit(eng)


@pytest.fixture
def zerosum(zerosum_factory, maia_path: Path) -> chess.engine.SimpleEngine:
    return zerosum_factory(maia_path)


@pytest.fixture
def stockfish() -> Iterator[chess.engine.SimpleEngine]:
    if STOCKFISH is None:
        pytest.skip("stockfish not installed (apt-get install stockfish)")
    eng = chess.engine.SimpleEngine.popen_uci(STOCKFISH, timeout=30)
    config: dict[str, int] = {"Skill Level": 0, "Threads": 1, "Hash": 16}
    if "Slow Mover" in eng.options:  # Stockfish <= 15: spend a tenth of its usual time per move
        config["Slow Mover"] = 10
    eng.configure(config)
    yield eng
    _quit(eng)


@pytest.fixture
def sunfish() -> Iterator[chess.engine.SimpleEngine]:
    if SUNFISH is None:
        pytest.skip("sunfish-uci not installed (pip install sunfish)")
    eng = chess.engine.SimpleEngine.popen_uci(SUNFISH, timeout=30)
    yield eng
    _quit(eng)


# ------------------------------------------------------------------- games


@pytest.mark.slow
def test_game_maia_vs_sunfish_1_plus_01(zerosum: chess.engine.SimpleEngine,
                                        sunfish: chess.engine.SimpleEngine) -> None:
    rec = play_game(zerosum, sunfish, zerosum_white=True, base=60.0, inc=0.1, max_plies=120)
    print(f"\n(a) Zerosum(maia-1500) vs sunfish, 1+0.1: {rec.summary()}")
    assert rec.zerosum_min_clock > 0
    _assert_alive(zerosum)


@pytest.mark.slow
def test_game_bundled_vs_stockfish_1_plus_0(zerosum_factory, bundled_net: Path,
                                            stockfish: chess.engine.SimpleEngine) -> None:
    zerosum = zerosum_factory(bundled_net)
    # sudden death: a minute for the whole game, no increment to fall back on
    rec = play_game(zerosum, stockfish, zerosum_white=False, base=60.0, inc=0.0,
                    max_plies=120)
    print(f"\n(b) Zerosum(bundled) vs Stockfish skill 0, 1+0: {rec.summary()}")
    assert rec.zerosum_min_clock > 0
    _assert_alive(zerosum)


@pytest.mark.slow
def test_game_bundled_vs_stockfish_1_plus_01_pondering(zerosum_factory, bundled_net: Path,
                                                       stockfish: chess.engine.SimpleEngine,
                                                       ) -> None:
    zerosum = zerosum_factory(bundled_net)
    rec = play_game(zerosum, stockfish, zerosum_white=True, base=60.0, inc=0.1,
                    max_plies=120, ponder=True)
    print(f"\n(c) Zerosum(bundled, pondering) vs Stockfish skill 0, 1+0.1: {rec.summary()}")
    assert rec.zerosum_min_clock > 0
    _assert_alive(zerosum)


@pytest.mark.slow
def test_game_maia_vs_sunfish_1_plus_0(zerosum: chess.engine.SimpleEngine,
                                       sunfish: chess.engine.SimpleEngine) -> None:
    # capped at 100 plies: sunfish spends its whole clock too, and the file must stay short
    rec = play_game(zerosum, sunfish, zerosum_white=False, base=60.0, inc=0.0, max_plies=100)
    print(f"\n(d) Zerosum(maia-1500) vs sunfish, 1+0: {rec.summary()}")
    assert rec.zerosum_min_clock > 0
    _assert_alive(zerosum)


# ---------------------------------------------------------------- analysis


def test_analyse_multipv_three(zerosum: chess.engine.SimpleEngine) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    infos = zerosum.analyse(board, chess.engine.Limit(nodes=300), multipv=3)
    assert len(infos) == 3
    firsts = [info["pv"][0] for info in infos]
    assert len(set(firsts)) == 3, firsts
    for k, info in enumerate(infos, start=1):
        assert info.get("multipv", 1) == k
        assert "score" in info and info["score"].relative is not None
        assert info["pv"][0] in board.legal_moves
        replay = board.copy()
        for move in info["pv"]:
            assert move in replay.legal_moves
            replay.push(move)
    # ranked best first: the first line's score is not below the others'
    scores = [info["score"].relative.score(mate_score=100_000) for info in infos]
    assert scores[0] >= min(scores[1:]) - 50, scores


def test_analyse_mate_score(zerosum: chess.engine.SimpleEngine) -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    info = zerosum.analyse(board, chess.engine.Limit(nodes=200))
    assert info["pv"][0] == chess.Move.from_uci("a1a8")
    assert info["score"].relative == chess.engine.Mate(1)


def test_analyse_wdl(zerosum: chess.engine.SimpleEngine) -> None:
    zerosum.configure({"UCI_ShowWDL": True})
    info = zerosum.analyse(chess.Board(), chess.engine.Limit(nodes=100))
    wdl = info.get("wdl")
    assert wdl is not None, info
    assert wdl.relative.total() == 1000


def test_play_respects_movetime(zerosum: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    zerosum.play(board, chess.engine.Limit(nodes=10))  # warm up
    t0 = time.perf_counter()
    result = zerosum.play(board, chess.engine.Limit(time=0.5))
    spent = time.perf_counter() - t0
    print(f"\nLimit(time=0.5): bestmove after {spent * 1000:.0f} ms")
    assert result.move is not None and result.move in board.legal_moves
    assert spent < 0.5 + 0.1, spent


def test_stop_latency_through_python_chess(zerosum: chess.engine.SimpleEngine) -> None:
    board = chess.Board()
    board.push_uci("d2d4")
    with zerosum.analysis(board) as analysis:
        deadline = time.monotonic() + 10
        for info in analysis:  # wait until the search reports a line
            if "pv" in info or time.monotonic() > deadline:
                break
        time.sleep(0.3)
        t0 = time.perf_counter()
        analysis.stop()
        best = analysis.wait()
        latency = time.perf_counter() - t0
    print(f"\nstop latency through python-chess: {latency * 1000:.1f} ms")
    assert latency < STOP_LIMIT, f"bestmove {latency * 1000:.0f} ms after stop"
    assert best.move is not None and best.move in board.legal_moves
    _assert_alive(zerosum)


def test_engine_identity_and_options(zerosum: chess.engine.SimpleEngine) -> None:
    assert zerosum.id["name"].startswith("Zerosum")
    opts = zerosum.options
    for name in ("WeightsFile", "Threads", "MultiPV", "UCI_ShowWDL", "Ponder", "MoveOverhead"):
        assert name in opts, name
    assert opts["MultiPV"].type == "spin" and opts["MultiPV"].min == 1
    assert opts["Ponder"].type == "check"
