"""The match runner (trainer.arena.match), its statistics (trainer.arena.elo) and the ladder's output.

The statistics are checked on fixed inputs against values worked out by hand. Matches are played
by tiny fake UCI engines (a Python script below: first legal move, or crash, illegal move, slow
move, silence) to check that every failure is counted against the right engine, and one short
real match, Zerosum with maia-1500 against Zerosum with maia-1100 at 50 nodes a move, checks the
whole path: openings, colours, PGN, results.
"""

from __future__ import annotations

import json
import math
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Callable

import chess
import chess.pgn
import pytest

from trainer.arena import elo
from trainer.arena.elo import SprtDecision
from trainer.arena.match import (EngineSpec, FailureKind, GameRecord, MatchResult, Opening,
                           TimeControl, play_match, read_openings, zerosum_spec)
from trainer.arena.match_cli import match_main
from trainer.arena.match_pgn import played_games
from trainer.data.openings import START

BOOK_REL = Path("openings") / "8moves_v3.pgn"

# --------------------------------------------------------------------------------------------
# Elo, interval, LOS, SPRT


def test_score_and_elo_basics() -> None:
    assert elo.score(1, 2, 1) == 0.5
    assert elo.score(3, 0, 1) == 0.75
    assert elo.score(0, 0, 0) == 0.5
    assert elo.elo_from_score(0.5) == 0.0
    assert elo.elo_from_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo.elo_from_score(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo.elo_from_score(1.0) == math.inf and elo.elo_from_score(0.0) == -math.inf
    for d in (-300.0, -35.5, 0.0, 12.0, 400.0):
        assert elo.elo_from_score(elo.score_from_elo(d)) == pytest.approx(d)
    with pytest.raises(ValueError):
        elo.score(-1, 0, 0)


def test_even_score_is_zero_elo() -> None:
    e = elo.elo_estimate(30, 40, 30)
    assert e.elo == 0.0 and not e.clamped and e.note == ""
    assert e.lower == pytest.approx(-e.upper)
    assert e.error > 0


def test_interval_hand_computed() -> None:
    # 60 wins, 20 draws, 20 losses: s = 0.7; per-game variance
    # 0.6*0.3^2 + 0.2*0.2^2 + 0.2*0.7^2 = 0.16; sd of the mean 0.4/10 = 0.04;
    # s +/- 1.95996*0.04 = [0.621601, 0.778399] -> Elo [86.225, 218.252]; Elo(0.7) = 147.19.
    e = elo.elo_estimate(60, 20, 20)
    assert e.score == pytest.approx(0.7)
    assert elo.per_game_variance(60, 20, 20) == pytest.approx(0.16)
    assert e.elo == pytest.approx(147.19, abs=0.01)
    assert e.lower == pytest.approx(86.225, abs=0.01)
    assert e.upper == pytest.approx(218.252, abs=0.01)
    assert e.error == pytest.approx((218.252 - 86.225) / 2, abs=0.01)  # 66.01
    assert not e.clamped


def test_all_draws_has_no_spread() -> None:
    e = elo.elo_estimate(0, 10, 0)
    assert (e.elo, e.error) == (0.0, 0.0)


def test_perfect_and_zero_scores_are_clamped() -> None:
    # 10-0-0: clamped to 1 - 1/20 = 0.95 -> 400 log10(19) = 511.5; rule of three: score >= 0.7.
    win = elo.elo_estimate(10, 0, 0)
    assert win.clamped and "100%" in win.note and "lower bound" in win.note
    assert win.elo == pytest.approx(400 * math.log10(19))
    assert win.lower == pytest.approx(400 * math.log10(0.7 / 0.3))
    assert win.upper == win.elo and math.isfinite(win.error)
    loss = elo.elo_estimate(0, 0, 10)
    assert loss.clamped and "0%" in loss.note
    assert loss.elo == pytest.approx(-win.elo)
    assert loss.upper == pytest.approx(-win.lower)
    # tiny samples stay finite: 2-0 -> 0.75 (190.8)
    two = elo.elo_estimate(2, 0, 0)
    assert two.elo == pytest.approx(190.85, abs=0.01) and math.isfinite(two.lower)
    # an interval that would leave (0, 1) is clamped and says so: 9-0-1
    near = elo.elo_estimate(9, 0, 1)
    assert near.clamped and near.note and math.isfinite(near.upper)
    assert elo.elo_estimate(0, 0, 0).note == "no games"


def test_los() -> None:
    assert elo.los(10, 5, 10) == 0.5
    assert elo.los(0, 7, 0) == 0.5
    # 0.5 (1 + erf(10 / sqrt(20)))
    assert elo.los(10, 0, 0) == pytest.approx(0.5 * (1 + math.erf(10 / math.sqrt(20))))
    assert elo.los(30, 40, 20) == pytest.approx(0.92135, abs=1e-4)
    assert elo.los(20, 40, 30) == pytest.approx(1 - 0.92135, abs=1e-4)


def test_sprt_bounds_and_llr() -> None:
    lo, hi = elo.sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(-math.log(19)) and hi == pytest.approx(math.log(19))  # 2.944
    # 10-20-10, H0: 0, H1: 10. x = s0 = 0.5, var = 0.125, so
    # LLR = 40 (s1 - 0.5)(0.5 - s1) / 0.25 = -160 (s1 - 0.5)^2, s1 = 1/(1 + 10^(-10/400)).
    s1 = 1 / (1 + 10 ** (-10 / 400))
    assert elo.sprt_llr(10, 20, 10, 0, 10) == pytest.approx(-160 * (s1 - 0.5) ** 2)
    assert elo.sprt_llr(0, 0, 0, 0, 5) == 0.0
    with pytest.raises(ValueError):
        elo.sprt(1, 1, 1, 5, 0)
    with pytest.raises(ValueError):
        elo.sprt_bounds(0.0, 0.05)


def test_sprt_decisions() -> None:
    assert elo.sprt(0, 0, 0, 0, 5).decision == SprtDecision.CONTINUE
    assert elo.sprt(3, 4, 2, 0, 5).decision == SprtDecision.CONTINUE
    assert elo.sprt(200, 100, 100, 0, 5).decision == SprtDecision.CONTINUE  # LLR 2.03
    assert elo.sprt(250, 100, 100, 0, 5).decision == SprtDecision.ACCEPT_H1
    assert elo.sprt(100, 100, 250, 0, 5).decision == SprtDecision.ACCEPT_H0
    # a clean sweep: zero counts are regularized (1e-3), so the LLR is finite and decisive
    sweep = elo.sprt(5, 0, 0, 0, 5)
    assert math.isfinite(sweep.llr) and sweep.decision == SprtDecision.ACCEPT_H1
    # a looser alpha makes accepting H1 easier
    r = elo.sprt(200, 100, 100, 0, 5, alpha=0.2, beta=0.2)
    assert r.upper == pytest.approx(math.log(4)) and r.decision == SprtDecision.ACCEPT_H1
    assert "accept H1" in str(r)


# --------------------------------------------------------------------------------------------
# Time controls and openings


def test_time_control_parsing() -> None:
    tc = TimeControl.parse("10+0.1")
    assert (tc.base, tc.increment, tc.nodes, tc.is_clock) == (10.0, 0.1, None, True)
    assert TimeControl.parse("2+0") == TimeControl(base=2.0)
    assert TimeControl.parse("60") == TimeControl(base=60.0, increment=0.0)
    assert TimeControl.parse(" 0.5 + .05 ") == TimeControl(base=0.5, increment=0.05)
    n = TimeControl.parse("nodes=800")
    assert (n.nodes, n.base, n.is_clock) == (800, None, False)
    assert TimeControl.parse("NODES = 50").nodes == 50
    assert str(tc) == "10+0.1" and tc.pgn_tag() == "10+0.1"
    assert str(n) == "nodes=800" and n.pgn_tag() == "-"
    limit = tc.limit(9.5, 8.25)
    assert (limit.white_clock, limit.black_clock, limit.white_inc, limit.black_inc) == (
        9.5, 8.25, 0.1, 0.1)
    assert n.limit(1, 1).nodes == 800 and n.limit(1, 1).white_clock is None
    for bad in ("abc", "10+", "+1", "nodes=0", "nodes=-5", "0+1", "10-1", ""):
        with pytest.raises(ValueError):
            TimeControl.parse(bad)


def test_read_openings_from_the_book(shared_data: Path) -> None:
    book = shared_data / BOOK_REL
    ops = read_openings(book, 3)
    assert [o.index for o in ops] == [0, 1, 2]
    first = ops[0]
    assert len(first.moves) == 16 and first.fen == chess.STARTING_FEN
    assert first.name.startswith("1. Nf3 d5 2. g3 c6 3. Bg2 Nf6")
    assert first.eco == "A07"
    assert first.board().fullmove_number == 9
    assert [o.index for o in read_openings(book, 2, offset=5)] == [5, 6]
    s1 = read_openings(book, 4, seed=1)
    assert [o.index for o in s1] == [o.index for o in read_openings(book, 4, seed=1)]
    assert [o.index for o in s1] != [o.index for o in read_openings(book, 4, seed=2)]


def test_read_openings_cut_to_distinct_short_lines(shared_data: Path) -> None:
    book = shared_data / BOOK_REL
    short = read_openings(book, 40, plies=2)
    lines = [(o.fen, o.moves) for o in short]
    assert all(len(o.moves) == 2 for o in short)
    assert len(set(lines)) == 40  # the book's 8-move lines share first moves: no line twice
    assert [o.index for o in short] == sorted(o.index for o in short)
    full = read_openings(book, short[-1].index + 1)
    assert {o.moves[:2] for o in full} == {o.moves for o in short}  # every start, none skipped
    assert [o.moves for o in read_openings(book, 1, plies=0)] == [()]
    with pytest.raises(ValueError):
        read_openings(book, 1, plies=-1)


def test_read_openings_small_file(tmp_path: Path) -> None:
    pgn = tmp_path / "two.pgn"
    pgn.write_text(textwrap.dedent("""\
        [Event "a"]
        [Result "*"]

        1. e4 e5 { [%clk 0:01:00]
        [%clk 0:01:00] } 2. Nf3 *

        [Event "b"]
        [FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]
        [SetUp "1"]
        [Result "*"]

        1. e4 Kd7 *
        """))
    ops = read_openings(pgn, 5)
    assert [o.index for o in ops] == [0, 1, 0, 1, 0]  # repeated when the file is short
    assert [m.uci() for m in ops[0].moves] == ["e2e4", "e7e5", "g1f3"]
    assert ops[1].fen.startswith("4k3/8/8/8/8/8/4P3/4K3 w")
    assert ops[1].board().fen().startswith("8/3k4/8/8/4P3/8/8/4K3 w")
    assert [o.index for o in read_openings(pgn, 1, offset=1)] == [1]
    with pytest.raises(ValueError):
        read_openings(pgn, 1, offset=2)


# --------------------------------------------------------------------------------------------
# Fake engines: failures are counted and named

FAKE = r'''
import sys, time
import chess
mode = sys.argv[1]
board = chess.Board()
for line in sys.stdin:
    tok = line.split()
    if not tok:
        continue
    if tok[0] == "uci":
        print("id name fake-" + mode)
        print("uciok", flush=True)
    elif tok[0] == "isready":
        print("readyok", flush=True)
    elif tok[0] == "position":
        if tok[1] == "startpos":
            board, rest = chess.Board(), tok[2:]
        else:
            board, rest = chess.Board(" ".join(tok[2:8])), tok[8:]
        for m in rest[1:]:
            board.push_uci(m)
    elif tok[0] == "go":
        if mode == "crash":
            sys.stderr.write("fake: crashing on purpose\n")
            sys.stderr.flush()
            sys.exit(3)
        if mode == "illegal":
            print("bestmove e1e8", flush=True)
            continue
        if mode == "hang":
            continue
        if mode == "slow":
            time.sleep(0.3)
        if mode == "book" and board.ply() < 12:  # as engines say it: a string, no depth
            print("info string book move " + next(iter(board.legal_moves)).uci())
        elif mode == "book":
            print("info depth 1 nodes 1 string searched")
        print("bestmove " + next(iter(board.legal_moves)).uci(), flush=True)
    elif tok[0] == "quit":
        break
'''


FakeMaker = Callable[..., EngineSpec]


@pytest.fixture(scope="module")
def fake_engine(tmp_path_factory: pytest.TempPathFactory) -> FakeMaker:
    script = tmp_path_factory.mktemp("fake") / "fake_uci.py"
    script.write_text(FAKE)

    def make(mode: str, name: str | None = None) -> EngineSpec:
        return EngineSpec(name or mode, [sys.executable, str(script), mode])
    return make


# an opening where White is to move; the fakes play from it
OPENING = Opening(0, chess.STARTING_FEN, tuple(chess.Move.from_uci(m) for m in (
    "e2e4", "e7e5", "g1f3", "b8c6")))


def _check_failures(result: MatchResult, kind: FailureKind, culprit: str, games: int) -> None:
    assert len(result.games) == games
    assert (result.wins, result.draws, result.losses) == (games, 0, 0)  # A never at fault
    assert len(result.failures) == games
    assert all(f.kind == kind and f.engine == culprit for f in result.failures)
    assert result.failure_counts(culprit)[kind] == games
    assert sum(result.failure_counts(result.engine_a).values()) == 0
    # the culprit lost with either colour
    assert {g.white for g in result.games} == {result.engine_a, culprit}


def test_crash_is_counted_and_named(fake_engine: FakeMaker, tmp_path: Path) -> None:
    pgn = tmp_path / "crash.pgn"
    r = play_match(fake_engine("first"), fake_engine("crash", "crasher"), openings=[OPENING],
                   games=2, tc="nodes=1", progress=False, pgn_path=pgn)
    _check_failures(r, FailureKind.CRASH, "crasher", 2)
    f = r.failures[0]
    assert "exit code 3" in f.detail and "crashing on purpose" in f.detail
    assert "crasher 2/0/0" in r.summary()
    games = _read_pgn(pgn)
    assert [g.headers["Termination"] for g in games] == ["abandoned"] * 2
    assert all("crasher" in g.headers["TerminationDetails"] for g in games)


def test_illegal_move_is_counted(fake_engine: FakeMaker) -> None:
    r = play_match(fake_engine("first"), fake_engine("illegal"), openings=[OPENING], games=2,
                   tc="nodes=1", progress=False)
    _check_failures(r, FailureKind.ILLEGAL, "illegal", 2)
    assert "e1e8" in r.failures[0].detail
    assert all(g.termination == "rules infraction" for g in r.games)


def test_flag_fall_is_a_time_loss(fake_engine: FakeMaker) -> None:
    # 0.3 s a move on a 0.5 s clock: the second move of the slow engine flags
    r = play_match(fake_engine("first"), fake_engine("slow"), openings=[OPENING], games=2,
                   tc="0.5+0", progress=False)
    _check_failures(r, FailureKind.TIME, "slow", 2)
    assert "flag fell" in r.failures[0].detail
    assert all(g.termination == "time forfeit" for g in r.games)
    for g in r.games:  # at most one move in time, then the flag; that move is not played
        slow_white = g.white == "slow"
        assert sum(1 for i in range(len(g.moves)) if (i % 2 == 0) == slow_white) <= 1
        assert g.final_board().turn == (chess.WHITE if slow_white else chess.BLACK)


def test_silent_engine_is_killed_as_a_time_loss(fake_engine: FakeMaker) -> None:
    r = play_match(fake_engine("first"), fake_engine("hang"), openings=[OPENING], games=2,
                   tc="nodes=1", progress=False, stall_timeout=1.0)
    _check_failures(r, FailureKind.TIME, "hang", 2)
    assert "stalled" in r.failures[0].detail


def test_sprt_stops_early(fake_engine: FakeMaker) -> None:
    r = play_match(fake_engine("first"), fake_engine("illegal"), openings=[OPENING], games=20,
                   tc="nodes=1", progress=False, sprt=(0, 10, 0.05, 0.05))
    assert r.stopped_early and len(r.games) < 20
    assert r.sprt is not None and r.sprt.decision == SprtDecision.ACCEPT_H1
    assert "SPRT" in r.summary() and "stopped after" in r.summary()


def test_match_main_cli(fake_engine: FakeMaker, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    first, crash = fake_engine("first"), fake_engine("crash")
    argv = ["--engine1", "name=good", "cmd=" + shlex.join(first.command),
            "--engine2", "name=bad", "cmd=" + shlex.join(crash.command),
            "--tc", "nodes=1", "--games", "2", "--openings", "none", "--no-progress",
            "--pgn", str(tmp_path / "m.pgn"), "--json", str(tmp_path / "m.json")]
    assert match_main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Score of good vs bad: 2 - 0 - 0  [100.0%]  2 games; Elo difference:")
    assert "crashes/time losses/illegal: good 0/0/0, bad 2/0/0" in out
    data = json.loads((tmp_path / "m.json").read_text())
    assert (data["wins"], data["losses"], data["failures"]["bad"]["crash"]) == (2, 0, 2)
    assert len(_read_pgn(tmp_path / "m.pgn")) == 2
    with pytest.raises(SystemExit):
        match_main(["--weights1", "x.onnx", "--sunfish", "--tc", "fast"])


def test_match_refuses_a_missing_net_before_any_game(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # the engine would fall back to its bundled net: the match would measure the wrong one
    pgn = tmp_path / "m.pgn"
    with pytest.raises(SystemExit):
        match_main(["--weights1", str(tmp_path / "missing.onnx"), "--sunfish", "--games", "2",
                    "--pgn", str(pgn)])
    assert "missing.onnx not found" in capsys.readouterr().err
    assert not pgn.exists() and not (tmp_path / "m.pgn.partial").exists()


def test_ladder_and_tuning_refuse_a_missing_net(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # the check lives in zerosum_spec, which match, ladder and tune all build their engines with
    from trainer.arena.ladder import ladder_main
    from trainer.arena.tune import match_pair_player

    missing = tmp_path / "missing.onnx"
    with pytest.raises(FileNotFoundError, match="missing.onnx not found"):
        zerosum_spec(missing)
    with pytest.raises(SystemExit):
        ladder_main(["--weights", str(missing), "--out", str(tmp_path / "ladder"), "--games", "2"])
    assert "missing.onnx not found" in capsys.readouterr().err
    assert not (tmp_path / "ladder").exists()
    with pytest.raises(FileNotFoundError, match="missing.onnx not found"):
        match_pair_player(str(missing), "fast", None, {}, pairs=2, seed=1)


def test_played_games_reads_a_match_back(fake_engine: FakeMaker, tmp_path: Path) -> None:
    pgn = tmp_path / "m.pgn"
    r = play_match(fake_engine("first", "a"), fake_engine("first", "b"), openings=[OPENING],
                   games=2, tc="5+0.1", progress=False, pgn_path=pgn, max_plies=16)
    back = played_games(pgn, "a", "b", [OPENING], TimeControl.parse("5+0.1"))
    assert [g.number for g in back] == [1, 2] and [g.a_white for g in back] == [True, False]
    for old, new in zip(r.games, back):
        assert (new.moves, new.result, new.termination) == (old.moves, old.result,
                                                             old.termination)
        assert len(new.clocks) == len(new.moves) and all(c is not None for c in new.clocks)
    # another match's file is refused, not mixed in
    for names, tc in ((("a", "c"), "5+0.1"), (("a", "b"), "10+0.1"), (("b", "a"), "5+0.1")):
        with pytest.raises(ValueError):
            played_games(pgn, *names, [OPENING], TimeControl.parse(tc))
    with pytest.raises(ValueError, match="opening"):
        played_games(pgn, "a", "b", [START], TimeControl.parse("5+0.1"))


def test_own_book_moves_are_marked_and_read_back(fake_engine: FakeMaker,
                                                tmp_path: Path) -> None:
    """A move the engine says it took from its own book (an info string, no depth) is marked
    in the record and the PGN ("own book" after the clock) and read back on resume; a searched
    move is not, whatever string it sends."""
    pgn = tmp_path / "m.pgn"
    r = play_match(fake_engine("book", "a"), fake_engine("first", "b"), openings=[OPENING],
                   games=2, tc="5+0.1", progress=False, pgn_path=pgn, max_plies=18)
    # the opening has 4 plies; "a" answers from its book below ply 12, then searches
    for g in r.games:
        plies = range(4, 4 + len(g.moves))
        a_moves = [p % 2 == (0 if g.a_white else 1) for p in plies]
        assert g.own_book == [a and p < 12 for a, p in zip(a_moves, plies)]
    back = played_games(pgn, "a", "b", [OPENING], TimeControl.parse("5+0.1"))
    assert [g.own_book for g in back] == [g.own_book for g in r.games]
    nodes = list(_read_pgn(pgn)[0].mainline())
    assert nodes[4].comment.endswith("] own book") and nodes[4].clock() is not None
    assert "book" not in nodes[5].comment


def test_match_resumes_after_a_kill(fake_engine: FakeMaker, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    first, crash = fake_engine("first"), fake_engine("crash")
    pgn = tmp_path / "m.pgn"
    argv = ["--engine1", "name=good", "cmd=" + shlex.join(first.command),
            "--engine2", "name=bad", "cmd=" + shlex.join(crash.command),
            "--tc", "nodes=1", "--openings", "none", "--no-progress", "--pgn", str(pgn)]
    assert match_main(argv + ["--games", "2"]) == 0
    # killed after two games: only the .partial holds them
    pgn.rename(pgn.with_name("m.pgn.partial"))
    capsys.readouterr()
    assert match_main(argv + ["--games", "4", "--resume"]) == 0
    out = capsys.readouterr().out
    assert "resuming: 2 of 4 games already played" in out
    # the two resumed games count, their crashes included
    assert "Score of good vs bad: 4 - 0 - 0" in out and "bad 4/0/0" in out
    assert [g.headers["Round"] for g in _read_pgn(pgn)] == ["1", "2", "3", "4"]
    assert not pgn.with_name("m.pgn.partial").exists()
    with pytest.raises(SystemExit):  # more games in the file than asked for
        match_main(argv + ["--games", "3", "--resume"])
    # resuming a complete match plays nothing and leaves its JSON as first written
    js = tmp_path / "m.json"
    js.write_text('{"seconds": 12.5}\n')
    assert match_main(argv + ["--games", "4", "--resume", "--json", str(js)]) == 0
    assert "Score of good vs bad: 4 - 0 - 0" in capsys.readouterr().out
    assert js.read_text() == '{"seconds": 12.5}\n'
    fresh = tmp_path / "fresh.json"
    assert match_main(argv + ["--games", "4", "--resume", "--json", str(fresh)]) == 0
    assert json.loads(fresh.read_text())["games"] == 4


# --------------------------------------------------------------------------------------------
# One real match


def _read_pgn(path: Path) -> list[chess.pgn.Game]:
    games = []
    with open(path) as f:
        while (g := chess.pgn.read_game(f)) is not None:
            assert not g.errors, g.errors
            games.append(g)
    return games


def test_real_match_zerosum_maia(shared_data: Path, tmp_path: Path) -> None:
    lc0 = shared_data / "lc0"
    strong = zerosum_spec(lc0 / "maia-1500.onnx", Threads=1, NNThreads=1)
    weak = zerosum_spec(lc0 / "maia-1100.onnx", Threads=1, NNThreads=1)
    openings = read_openings(shared_data / BOOK_REL, 2)
    pgn = tmp_path / "real.pgn"
    r = play_match(strong, weak, openings=openings, games=4, tc="nodes=50", concurrency=2,
                   pgn_path=pgn, max_plies=80, progress=False)
    assert r.wins + r.draws + r.losses == len(r.games) == 4
    assert r.failures == [], [str(f) for f in r.failures]
    assert not pgn.with_name(pgn.name + ".partial").exists()
    games = _read_pgn(pgn)
    assert len(games) == 4
    for k, (g, rec) in enumerate(zip(games, r.games)):
        h = g.headers
        assert int(h["Round"]) == rec.number == k + 1
        white_is_strong = k % 2 == 0  # each opening twice, colours swapped
        assert (h["White"], h["Black"]) == ((strong.name, weak.name) if white_is_strong
                                            else (weak.name, strong.name))
        assert h["Opening"] == openings[k // 2].name
        assert h["Result"] == rec.result and h["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert h["TimeControl"] == "-" and h["NodesPerMove"] == "50"
        assert h["Termination"] in ("normal", "adjudication")
        moves = list(g.mainline_moves())
        assert moves[:16] == list(openings[k // 2].moves)
        assert len(moves) == int(h["PlyCount"]) <= 80
        board = g.end().board()
        if h["Termination"] == "adjudication":
            assert len(moves) == 80 and h["Result"] == "1/2-1/2"
        elif h["Result"] != "1/2-1/2":
            assert board.is_checkmate()
    points = sum(p for g in r.games if (p := g.a_points()) is not None)
    assert points == r.wins + 0.5 * r.draws
    assert r.summary().startswith(f"Score of {strong.name} vs {weak.name}: {r.wins} - "
                                  f"{r.losses} - {r.draws}")


# --------------------------------------------------------------------------------------------
# The ladder's table and plot (no engines)


def test_ladder_table_and_plot(tmp_path: Path) -> None:
    from trainer.arena.ladder import Rung, RungResult, plot_ladder, write_table

    ours = EngineSpec("ours", ["x"])
    results = []
    for key, outcomes, nominal in (("sf1350", ["1-0", "1/2-1/2", "0-1", "1-0"], 1350),
                                   ("sunfish", ["1-0", "1-0", "1-0", "1-0"], None)):
        opp = EngineSpec(key, ["y"])
        games = []
        for k, res in enumerate(outcomes):
            a_white = k % 2 == 0
            games.append(GameRecord(k + 1, OPENING, "ours" if a_white else key,
                                    key if a_white else "ours", a_white, result=res))
        m = MatchResult("ours", key, TimeControl.parse("10+0.1"), games, len(games))
        results.append(RungResult(Rung(key, opp, nominal), m))
    text = write_table(ours, results, tmp_path / "ladder.md", TimeControl.parse("10+0.1"), 4)
    # sf1350: ours White in games 1, 3 (1-0, 0-1), Black in 2, 4 (1/2, 1-0): W1 D1 L2
    assert "| sf1350 | 4 | 1-1-2 | 37.5% |" in text
    assert "| sunfish | 4 | 2-0-2 | 50.0% | +0 ±" in text
    assert "1261" in text  # implied: 1350 - 88.7
    plot_ladder(results, tmp_path / "ladder.png")
    assert (tmp_path / "ladder.png").stat().st_size > 1000


def test_ladder_games_per_rung(fake_engine: FakeMaker, tmp_path: Path) -> None:
    """``rung_games`` gives one rung more games than the rest; the table says so per rung."""
    import json

    from trainer.arena.ladder import Rung, run_ladder

    rungs = [Rung("r1", fake_engine("illegal", "r1")), Rung("r2", fake_engine("crash", "r2"))]
    results = run_ladder(fake_engine("first", "ours"), rungs, games=2, tc="nodes=1",
                         out_dir=tmp_path, openings_path=None, progress=False,
                         rung_games={"r2": 4})
    assert [len(r.match.games) for r in results] == [2, 4]
    text = (tmp_path / "ladder.md").read_text()
    assert "games per opponent as listed" in text
    assert "| r1 | 2 | 2-0-0 |" in text and "| r2 | 4 | 4-0-0 |" in text
    assert json.loads((tmp_path / "ladder.json").read_text())["games_per_rung"] == {"r1": 2, "r2": 4}
