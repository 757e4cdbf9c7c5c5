"""Engine-vs-engine matches over UCI, as cutechess-cli or fastchess play them, in Python.

``python -m trainer match --weights1 new.onnx --weights2 old.onnx --tc 10+0.1 --games 100``

* Engines are any UCI programs (:class:`EngineSpec`: a name, a command, UCI options), driven by
  python-chess's :class:`chess.engine.SimpleEngine`.
* Time controls (:class:`TimeControl`) are a clock, ``"10+0.1"`` (base seconds + increment), or a
  fixed number of nodes a move, ``"nodes=800"``. The runner keeps both clocks itself, as a GUI
  does: each move's wall time (measured around the whole ``go`` ... ``bestmove`` exchange) is
  taken off the mover's clock, the increment is added after the move, and both clocks go with
  every ``go``. A clock below zero after a move (less ``time_margin``) loses on time.
* Openings come from a PGN file (:func:`read_openings`); each is played twice, colours swapped
  (games 1 and 2 use opening 1, the first engine White in game 1, and so on).
* Failures lose the game for the engine at fault and are counted and named per engine
  (:class:`Failure`): a *crash* (the process died, would not start, or broke the protocol),
  a *time loss* (flag fall, or no answer within ``stall_timeout`` seconds past its clock, or
  past the start of a fixed-node move, when it is killed), an *illegal move* (a ``bestmove``
  that is not legal here, ``0000`` or ``(none)`` with legal moves left). An engine at fault
  is killed and started afresh for its next game; its stderr's tail goes into the failure's
  detail.
* Games end by the rules: checkmate, stalemate, insufficient material, the 75-move rule and
  fivefold repetition (automatic), and the 50-move rule and threefold repetition as soon as
  they have *occurred* (the draw a GUI claims for the engines). ``max_plies`` adjudicates a
  draw at that game length (opening plies included).
  (``board.is_game_over(claim_draw=True)`` is not used for the claims: it also ends the game
  when the side to move merely *could* make a move that repeats, which is not a draw yet.)
* ``concurrency`` games run at once, each worker thread with its own pair of engine processes,
  reused across its games (python-chess sends ``ucinewgame`` at each new game).
* The PGN (headers Event, Site, Date, Round, White, Black, Result, Termination (PGN's standard
  values: normal, time forfeit, rules infraction, abandoned, adjudication), TerminationDetails,
  Opening, ECO, TimeControl, PlyCount; ``[%clk]`` comments under a clock, ``own book`` after
  a move the engine said came from its own book) is appended to
  ``PATH.partial`` as games finish and written in game order to ``PATH`` atomically at the end.
  A match stopped by anything (Ctrl-C, kill -9, the machine) resumes from them
  (``--resume``, :mod:`trainer.arena.match_pgn`): it plays only the games the files lack.
* ``sprt=(elo0, elo1, alpha, beta)`` stops the match when the SPRT (:mod:`trainer.arena.elo`)
  accepts a hypothesis: games not yet begun are dropped, games under way are abandoned
  (not counted, not written).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import dataclasses
import datetime
import enum
import io
import os
import queue
import re
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Sequence

import chess
import chess.engine
import chess.pgn

from trainer.data.books import DEFAULT_OPENINGS
from trainer.arena.elo import EloEstimate, SprtDecision, SprtResult, elo_estimate, los
from trainer.arena.elo import sprt as sprt_test
from trainer.data.openings import START, Opening, chess960_openings, read_openings

__all__ = [
    "DEFAULT_OPENINGS", "EngineSpec", "Failure", "FailureKind", "GameRecord", "MatchResult",
    "Opening", "TimeControl", "chess960_openings", "play_match", "read_openings", "stockfish_path",
    "stockfish_spec", "sunfish_spec", "zerosum_command", "zerosum_spec",
]

REPO = Path(__file__).resolve().parents[2]
"""The folder holding the engine and trainer packages (a checkout, or site-packages)."""


# --------------------------------------------------------------------------------------------
# Engines


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine: its display name, its command line and the UCI options to set."""

    name: str
    command: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    cwd: str | None = None


def zerosum_command() -> list[str]:
    """Zerosum run by this interpreter: ``python -m engine`` in REPO (the spec's cwd), so that the
    engine is the one beside this trainer, checked out or installed."""
    return [sys.executable, "-m", "engine"]


def zerosum_spec(weights: str | os.PathLike[str] | None = None, name: str | None = None,
                 **options: Any) -> EngineSpec:
    """Zerosum with a net (``WeightsFile``; its bundled net if None) and other UCI options.

    A net that is not there raises FileNotFoundError here: the engine would keep its bundled net
    and say so only in an info string, so a match, ladder or tuning run of the wrong net must not
    start."""
    opts: dict[str, Any] = {}
    if weights is not None:
        path = Path(weights).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"net {weights} not found")
        opts["WeightsFile"] = str(path.resolve())
    opts.update(options)
    if name is None:
        name = "zerosum" if weights is None else f"zerosum-{Path(weights).stem}"
    return EngineSpec(name, zerosum_command(), opts, cwd=str(REPO))


def stockfish_path() -> str | None:
    """Stockfish on PATH, else Debian's /usr/games/stockfish, else None."""
    found = shutil.which("stockfish")
    if found:
        return found
    return "/usr/games/stockfish" if Path("/usr/games/stockfish").is_file() else None


def stockfish_spec(elo: int | None = None, name: str | None = None, threads: int = 1,
                   hash_mb: int = 16, **options: Any) -> EngineSpec:
    """Stockfish, limited to ``elo`` with ``UCI_LimitStrength`` (1350..2850 in 15.1) if given."""
    path = stockfish_path()
    if path is None:
        raise FileNotFoundError("stockfish not found (apt-get install stockfish)")
    opts: dict[str, Any] = {"Threads": threads, "Hash": hash_mb}
    if elo is not None:
        opts.update({"UCI_LimitStrength": True, "UCI_Elo": int(elo)})
    opts.update(options)
    return EngineSpec(name or (f"stockfish-{elo}" if elo is not None else "stockfish"),
                      [path], opts)


def sunfish_spec(name: str = "sunfish") -> EngineSpec:
    """sunfish's UCI front end (``pip install sunfish``); give it 10+0.1 or more."""
    path = shutil.which("sunfish-uci")
    if path is None:
        raise FileNotFoundError("sunfish-uci not found (pip install sunfish)")
    return EngineSpec(name, [path], {})


class _EngineHandle:
    """One engine process of a worker, started on demand and replaced after a failure."""

    def __init__(self, spec: EngineSpec, start_timeout: float) -> None:
        self.spec = spec
        self.start_timeout = start_timeout
        self.engine: chess.engine.SimpleEngine | None = None
        self._stderr: IO[bytes] | None = None

    def get(self) -> chess.engine.SimpleEngine:
        if self.engine is None:
            self._stderr = tempfile.TemporaryFile()
            engine = chess.engine.SimpleEngine.popen_uci(
                self.spec.command, timeout=self.start_timeout, cwd=self.spec.cwd,
                stderr=self._stderr)
            self.engine = engine
            if self.spec.options:
                engine.configure(self.spec.options)
            engine.ping()  # let it load (nets...) before any clock runs
        return self.engine

    def stderr_tail(self, limit: int = 300) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            size = self._stderr.seek(0, io.SEEK_END)
            self._stderr.seek(max(0, size - limit))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def returncode(self, wait: float = 0.5) -> int | None:
        if self.engine is None:
            return None
        try:
            return self.engine.returncode.result(timeout=wait)
        except (concurrent.futures.TimeoutError, Exception):
            return None

    def discard(self) -> None:
        """Kill the process (if still alive); the next :meth:`get` starts a fresh one."""
        if self.engine is not None:
            try:
                self.engine.close()
            except Exception:
                pass
        self.engine = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def close(self) -> None:
        """Quit politely, then kill."""
        if self.engine is not None:
            try:
                self.engine.quit()
            except Exception:
                pass
        self.discard()


def _play(engine: chess.engine.SimpleEngine, board: chess.Board, limit: chess.engine.Limit,
          game: object, timeout: float) -> chess.engine.PlayResult:
    """``engine.play`` with a hard wall-clock ``timeout`` (raises TimeoutError). The result's
    info holds the move's last depth and info string (a book move has the string, no depth)."""
    coro = asyncio.wait_for(engine.protocol.play(board, limit, game=game,
                                                 info=chess.engine.INFO_BASIC), timeout)
    future = asyncio.run_coroutine_threadsafe(coro, engine.protocol.loop)
    return future.result()


# --------------------------------------------------------------------------------------------
# Time controls


_CLOCK_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(?:\+\s*(\d+(?:\.\d*)?|\.\d+)\s*)?$")
_NODES_RE = re.compile(r"^\s*nodes\s*=\s*(\d+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class TimeControl:
    """A clock (``base`` seconds plus ``increment`` a move) or a fixed ``nodes`` a move."""

    base: float | None = None
    increment: float = 0.0
    nodes: int | None = None

    def __post_init__(self) -> None:
        if (self.base is None) == (self.nodes is None):
            raise ValueError("a time control is either a clock (base) or nodes, exactly one")
        if self.base is not None and (self.base <= 0 or self.increment < 0):
            raise ValueError(f"bad clock {self.base}+{self.increment}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"nodes must be positive, not {self.nodes}")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"10+0.1"``, ``"2+0"``, ``"60"`` (seconds + increment) or ``"nodes=800"``."""
        m = _NODES_RE.match(text)
        if m:
            return cls(nodes=int(m.group(1)))
        m = _CLOCK_RE.match(text)
        if m:
            return cls(base=float(m.group(1)), increment=float(m.group(2) or 0.0))
        raise ValueError(f"time control {text!r}: want BASE+INC in seconds (10+0.1) or nodes=N")

    @property
    def is_clock(self) -> bool:
        return self.base is not None

    def limit(self, white_clock: float, black_clock: float) -> chess.engine.Limit:
        if self.nodes is not None:
            return chess.engine.Limit(nodes=self.nodes)
        return chess.engine.Limit(white_clock=max(white_clock, 0.001),
                                  black_clock=max(black_clock, 0.001),
                                  white_inc=self.increment, black_inc=self.increment)

    def pgn_tag(self) -> str:
        """PGN's TimeControl value: ``base+inc`` in seconds, ``-`` (none) for fixed nodes."""
        return "-" if self.base is None else f"{self.base:g}+{self.increment:g}"

    def __str__(self) -> str:
        return f"nodes={self.nodes}" if self.base is None else f"{self.base:g}+{self.increment:g}"


# --------------------------------------------------------------------------------------------
# Openings


# --------------------------------------------------------------------------------------------
# Games


class FailureKind(str, enum.Enum):
    CRASH = "crash"
    TIME = "time loss"
    ILLEGAL = "illegal move"


_TERMINATION = {FailureKind.CRASH: "abandoned", FailureKind.TIME: "time forfeit",
                FailureKind.ILLEGAL: "rules infraction"}


@dataclass(frozen=True)
class Failure:
    """An engine's fault that lost it a game: what, who, when, and the details."""

    kind: FailureKind
    engine: str
    game: int
    ply: int
    detail: str

    def __str__(self) -> str:
        return f"game {self.game}, ply {self.ply}: {self.engine} {self.kind.value}: {self.detail}"


@dataclass
class GameRecord:
    """One finished game. ``a_white``: the first engine (A) had White."""

    number: int
    opening: Opening
    white: str
    black: str
    a_white: bool
    moves: list[chess.Move] = field(default_factory=list)
    clocks: list[float | None] = field(default_factory=list)  # mover's clock after each move
    own_book: list[bool] = field(default_factory=list)  # the mover played it from its own book
    result: str = "*"
    termination: str = "unterminated"
    reason: str = ""
    failure: Failure | None = None
    duration: float = 0.0

    def a_points(self) -> float | None:
        """A's points: 1, 0.5, 0 (None if unfinished)."""
        white = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}.get(self.result)
        if white is None:
            return None
        return white if self.a_white else 1.0 - white

    def final_board(self) -> chess.Board:
        board = self.opening.board()
        for move in self.moves:
            board.push(move)
        return board

    def to_pgn(self, event: str, tc: TimeControl, date: str | None = None) -> chess.pgn.Game:
        game = chess.pgn.Game()
        board = chess.Board(self.opening.fen, chess960=self.opening.chess960)
        if self.opening.fen != chess.STARTING_FEN or self.opening.chess960:
            game.setup(board)  # also writes the Variant tag of a Chess960 game
        h = game.headers
        h["Event"] = event
        h["Site"] = "?"
        h["Date"] = date or datetime.date.today().strftime("%Y.%m.%d")
        h["Round"] = str(self.number)
        h["White"] = self.white
        h["Black"] = self.black
        h["Result"] = self.result
        h["Termination"] = self.termination
        h["TerminationDetails"] = self.reason
        h["Opening"] = self.opening.name
        if self.opening.eco:
            h["ECO"] = self.opening.eco
        h["TimeControl"] = tc.pgn_tag()
        if tc.nodes is not None:
            h["NodesPerMove"] = str(tc.nodes)
        h["PlyCount"] = str(len(self.opening.moves) + len(self.moves))
        node: chess.pgn.GameNode = game
        for move in self.opening.moves:
            node = node.add_main_variation(move)
        if self.opening.moves:
            node.comment = "book"
        for k, (move, clock) in enumerate(zip(self.moves, self.clocks)):
            node = node.add_main_variation(move)
            if clock is not None:
                node.set_clock(max(clock, 0.0))
            if k < len(self.own_book) and self.own_book[k]:
                node.comment = (node.comment + " " if node.comment else "") + OWN_BOOK
        if self.reason:
            node.comment = (node.comment + " " if node.comment else "") + self.reason
        return game


def _rules_outcome(board: chess.Board) -> tuple[str, str] | None:
    """(result, reason) if the game is over by the rules, draws claimed as soon as they occur."""
    outcome = board.outcome(claim_draw=False)
    if outcome is not None:
        t = outcome.termination
        if t == chess.Termination.CHECKMATE:
            reason = f"{'White' if outcome.winner else 'Black'} mates"
        else:
            reason = {
                chess.Termination.STALEMATE: "stalemate",
                chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
                chess.Termination.SEVENTYFIVE_MOVES: "75-move rule",
                chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
            }.get(t, t.name.lower())
        return outcome.result(), reason
    if board.is_fifty_moves():
        return "1/2-1/2", "50-move rule"
    if board.is_repetition(3):
        return "1/2-1/2", "threefold repetition"
    return None


def _describe_crash(handle: _EngineHandle, exc: BaseException | None, what: str) -> str:
    parts = [what + (f": {type(exc).__name__}: {exc}" if exc is not None and str(exc) else
                     f": {type(exc).__name__}" if exc is not None else "")]
    code = handle.returncode()
    if code is not None:
        parts.append(f"exit code {code}")
    tail = handle.stderr_tail()
    if tail:
        parts.append("stderr: " + " | ".join(tail.splitlines()[-3:]))
    return "; ".join(parts)


OWN_BOOK = "own book"
"""The PGN comment (after the clock) of a move the engine played from its own book."""


def _is_book_move(info: chess.engine.InfoDict) -> bool:
    """The engine answered from its own book: it said so (``info string book move ...``, as
    this engine and others do) and reported no search depth."""
    return "depth" not in info and str(info.get("string", "")).lower().startswith("book")


def play_game(number: int, opening: Opening, white: _EngineHandle, black: _EngineHandle,
              a_white: bool, tc: TimeControl, *, max_plies: int | None = None,
              stall_timeout: float = 30.0, time_margin: float = 0.0,
              stop: threading.Event | None = None) -> GameRecord | None:
    """One game between two engine handles; None if ``stop`` was set before it ended."""
    board = opening.board()
    rec = GameRecord(number, opening, white.spec.name, black.spec.name, a_white)
    handles = {chess.WHITE: white, chess.BLACK: black}
    clocks = {chess.WHITE: tc.base or 0.0, chess.BLACK: tc.base or 0.0}
    token = object()  # a new game for python-chess: it sends ucinewgame
    t_start = time.perf_counter()
    while True:
        if stop is not None and stop.is_set():
            return None
        over = _rules_outcome(board)
        if over is not None:
            rec.result, rec.reason = over
            rec.termination = "normal"
            break
        if max_plies is not None and board.ply() >= max_plies:
            rec.result, rec.termination = "1/2-1/2", "adjudication"
            rec.reason = f"draw by adjudication: {max_plies} plies"
            break
        side = board.turn
        handle = handles[side]
        name = handle.spec.name
        failure: tuple[FailureKind, str] | None = None
        move: chess.Move | None = None
        from_book = False
        spent = 0.0
        timeout = stall_timeout + (clocks[side] if tc.is_clock else 0.0)
        try:
            engine = handle.get()
        except Exception as exc:  # would not start or configure
            failure = (FailureKind.CRASH, _describe_crash(handle, exc, "failed to start"))
        else:
            limit = tc.limit(clocks[chess.WHITE], clocks[chess.BLACK])
            t0 = time.perf_counter()
            try:
                played = _play(engine, board, limit, token, timeout)
                spent = time.perf_counter() - t0
                move = played.move
                from_book = _is_book_move(played.info)
            except (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError):
                failure = (FailureKind.TIME,
                           f"no move after {time.perf_counter() - t0:.1f} s "
                           f"(stalled; killed)")
            except chess.engine.EngineTerminatedError as exc:
                failure = (FailureKind.CRASH, _describe_crash(handle, exc, "engine died"))
            except chess.engine.EngineError as exc:
                text = str(exc)
                cause = exc.args[0] if exc.args else exc.__context__
                if isinstance(cause, ValueError) or "illegal uci" in text or "invalid uci" in text:
                    failure = (FailureKind.ILLEGAL, f"bestmove rejected: {text}")
                else:
                    failure = (FailureKind.CRASH, _describe_crash(handle, exc, "protocol error"))
            except Exception as exc:  # broken pipe and the like
                failure = (FailureKind.CRASH, _describe_crash(handle, exc, "engine failed"))
        if failure is None:
            if move is None or not move or move not in board.legal_moves:
                shown = "(none)" if move is None else move.uci()
                failure = (FailureKind.ILLEGAL,
                           f"bestmove {shown} is not legal in {board.fen()}")
            elif tc.is_clock:
                clocks[side] -= spent
                if clocks[side] < -time_margin:
                    failure = (FailureKind.TIME,
                               f"flag fell: {spent:.3f} s for the move, clock "
                               f"{clocks[side]:.3f} s")
                else:
                    clocks[side] += tc.increment
        if failure is not None:
            kind, detail = failure
            handle.discard()
            rec.failure = Failure(kind, name, number, board.ply() + 1, detail)
            rec.result = "0-1" if side == chess.WHITE else "1-0"
            rec.termination = _TERMINATION[kind]
            rec.reason = f"{'White' if side == chess.WHITE else 'Black'} ({name}) {kind.value}"
            if kind == FailureKind.TIME:
                rec.reason += " (" + detail + ")"
            break
        assert move is not None
        board.push(move)
        rec.moves.append(move)
        rec.clocks.append(clocks[side] if tc.is_clock else None)
        rec.own_book.append(from_book)
    rec.duration = time.perf_counter() - t_start
    return rec


# --------------------------------------------------------------------------------------------
# Matches


@dataclass
class MatchResult:
    """A match's games (in game order) and what they add up to, from A's point of view."""

    engine_a: str
    engine_b: str
    tc: TimeControl
    games: list[GameRecord]
    planned: int
    sprt: SprtResult | None = None
    stopped_early: bool = False
    interrupted: bool = False
    seconds: float = 0.0

    def _count(self, points: float) -> int:
        return sum(1 for g in self.games if g.a_points() == points)

    @property
    def wins(self) -> int:
        return self._count(1.0)

    @property
    def draws(self) -> int:
        return self._count(0.5)

    @property
    def losses(self) -> int:
        return self._count(0.0)

    @property
    def failures(self) -> list[Failure]:
        return [g.failure for g in self.games if g.failure is not None]

    def failure_counts(self, engine: str) -> dict[FailureKind, int]:
        counts = {kind: 0 for kind in FailureKind}
        for f in self.failures:
            if f.engine == engine:
                counts[f.kind] += 1
        return counts

    @property
    def elo(self) -> EloEstimate:
        return elo_estimate(self.wins, self.draws, self.losses)

    @property
    def los(self) -> float:
        return los(self.wins, self.draws, self.losses)

    def failure_text(self) -> str:
        parts = []
        for name in (self.engine_a, self.engine_b):
            c = self.failure_counts(name)
            parts.append(f"{name} {c[FailureKind.CRASH]}/{c[FailureKind.TIME]}/"
                         f"{c[FailureKind.ILLEGAL]}")
        return "crashes/time losses/illegal: " + ", ".join(parts)

    def summary(self) -> str:
        """``Score of A vs B: W - L - D  [score%]  N games; Elo difference: ...``"""
        n = len(self.games)
        e = self.elo
        line = (f"Score of {self.engine_a} vs {self.engine_b}: {self.wins} - {self.losses} - "
                f"{self.draws}  [{100 * e.score:.1f}%]  {n} games; Elo difference: "
                f"{e.elo:+.1f} +/- {e.error:.1f} (95%)"
                + (f" [{e.note}]" if e.note else "")
                + f", LOS {100 * self.los:.1f}%; {self.failure_text()}")
        if self.sprt is not None:
            line += f"; {self.sprt}"
        if self.stopped_early:
            line += f" (stopped after {n} of {self.planned} games)"
        if self.interrupted:
            line += " (interrupted)"
        return line

    def to_dict(self) -> dict[str, Any]:
        e = self.elo
        return {
            "engine_a": self.engine_a, "engine_b": self.engine_b, "tc": str(self.tc),
            "games": len(self.games), "planned": self.planned, "wins": self.wins,
            "draws": self.draws, "losses": self.losses, "score": e.score, "elo": e.elo,
            "elo_error": e.error, "elo_lower": e.lower, "elo_upper": e.upper,
            "elo_note": e.note, "los": self.los,
            "failures": {name: {k.value: v for k, v in self.failure_counts(name).items()}
                         for name in (self.engine_a, self.engine_b)},
            "failure_details": [str(f) for f in self.failures],
            "sprt": None if self.sprt is None else {
                "llr": self.sprt.llr, "lower": self.sprt.lower, "upper": self.sprt.upper,
                "decision": self.sprt.decision.value},
            "stopped_early": self.stopped_early, "interrupted": self.interrupted,
            "seconds": self.seconds,
        }


def _write_game(out: IO[str], game: chess.pgn.Game) -> None:
    print(game, file=out, end="\n\n")


def _write_pgn_atomically(path: Path, games: Iterable[chess.pgn.Game]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        for game in games:
            _write_game(out, game)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def play_match(a: EngineSpec, b: EngineSpec, *, openings: Sequence[Opening] | None,
               games: int, tc: TimeControl | str, concurrency: int = 1,
               pgn_path: str | os.PathLike[str] | None = None,
               sprt: tuple[float, float, float, float] | None = None,
               max_plies: int | None = None, progress: bool = True, event: str | None = None,
               stall_timeout: float = 30.0, time_margin: float = 0.0,
               start_timeout: float = 30.0,
               previous: Sequence[GameRecord] = ()) -> MatchResult:
    """Play ``games`` games of A against B and return the result (A's wins, draws, losses).

    ``openings``: game ``k`` (from 0) starts from ``openings[k // 2]`` (cycled), A White when k
    is even; None plays every game from the start position. ``sprt``: ``(elo0, elo1, alpha,
    beta)`` stops early on a decision. ``max_plies`` adjudicates a draw at that length.
    ``stall_timeout``: seconds past its clock (or past the start of a fixed-node move) after
    which a silent engine loses on time and is killed. ``time_margin``: how far below zero a
    clock may go before the flag falls. Engines that will not start raise here, before any game.
    Ctrl-C stops the match and returns what was played (``interrupted``). ``previous``: games
    of this match already played (``trainer.arena.match_pgn.played_games``), counted and written
    again, not replayed: the match resumes with the games it lacks.
    """
    if isinstance(tc, str):
        tc = TimeControl.parse(tc)
    if games < 1 or concurrency < 1:
        raise ValueError("games and concurrency must be at least 1")
    if a.name == b.name:
        b = dataclasses.replace(b, name=b.name + "-2")
    if sprt is not None:
        sprt_test(0, 0, 0, *sprt)  # validates the arguments
    book = list(openings) if openings else [START]
    event = event or f"{a.name} vs {b.name}"
    date = datetime.date.today().strftime("%Y.%m.%d")
    done: list[GameRecord] = sorted(previous, key=lambda g: g.number)
    have = {g.number for g in done}
    jobs: collections.deque[tuple[int, Opening, bool]] = collections.deque(
        (k + 1, book[(k // 2) % len(book)], k % 2 == 0) for k in range(games) if k + 1 not in have)
    jobs_lock = threading.Lock()
    stop = threading.Event()
    results: queue.Queue[GameRecord | None | BaseException] = queue.Queue()
    workers_n = max(1, min(concurrency, len(jobs)))

    # Start the first pair here so that a bad command or option fails loudly, at once.
    first_pair = (_EngineHandle(a, start_timeout), _EngineHandle(b, start_timeout))
    try:
        for h in first_pair:
            h.get()
    except BaseException:
        for h in first_pair:
            h.close()
        raise

    def worker(pair: tuple[_EngineHandle, _EngineHandle]) -> None:
        try:
            while not stop.is_set():
                with jobs_lock:
                    if not jobs:
                        break
                    number, opening, a_white = jobs.popleft()
                ha, hb = pair
                white, black = (ha, hb) if a_white else (hb, ha)
                rec = play_game(number, opening, white, black, a_white, tc,
                                max_plies=max_plies, stall_timeout=stall_timeout,
                                time_margin=time_margin, stop=stop)
                if rec is not None:
                    results.put(rec)
        except BaseException as exc:  # a bug here: report it rather than hang the match
            results.put(exc)
        finally:
            for h in pair:
                h.close()
            results.put(None)

    pairs = [first_pair] + [(_EngineHandle(a, start_timeout), _EngineHandle(b, start_timeout))
                            for _ in range(workers_n - 1)]
    threads = [threading.Thread(target=worker, args=(p,), name=f"match-worker-{i}", daemon=True)
               for i, p in enumerate(pairs)]
    pgn = Path(pgn_path) if pgn_path is not None else None
    partial: IO[str] | None = None
    if pgn is not None:
        pgn.parent.mkdir(parents=True, exist_ok=True)
        # The file restarts with the resumed games (replaced whole: they may be read from it).
        _write_pgn_atomically(pgn.with_name(pgn.name + ".partial"),
                              (g.to_pgn(event, tc, date) for g in done))
        partial = open(pgn.with_name(pgn.name + ".partial"), "a", encoding="utf-8")
    sprt_state: SprtResult | None = None
    stopped_early = interrupted = False
    error: BaseException | None = None
    t0 = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=games, initial=len(done), desc=f"{a.name} vs {b.name}", unit="game",
                   leave=True)
    for t in threads:
        t.start()
    running = len(threads)
    try:
        while running:
            item = results.get()
            if item is None:
                running -= 1
                continue
            if isinstance(item, BaseException):
                error = error or item
                stop.set()
                continue
            done.append(item)
            if partial is not None:
                _write_game(partial, item.to_pgn(event, tc, date))
                partial.flush()
            w = sum(1 for g in done if g.a_points() == 1.0)
            d = sum(1 for g in done if g.a_points() == 0.5)
            l = len(done) - w - d
            if sprt is not None and not stopped_early:
                sprt_state = sprt_test(w, d, l, *sprt)
                if sprt_state.decision != SprtDecision.CONTINUE:
                    stopped_early = True
                    stop.set()
            if bar is not None:
                bar.set_postfix_str(f"+{w} ={d} -{l}", refresh=False)
                bar.update(1)
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
        for t in threads:
            t.join()
        while True:  # games that ended while we waited
            try:
                item = results.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, GameRecord):
                done.append(item)
    finally:
        if bar is not None:
            bar.close()
        if partial is not None:
            partial.close()
    if error is not None:
        raise RuntimeError(f"match worker failed: {error!r}") from error
    done.sort(key=lambda g: g.number)
    result = MatchResult(a.name, b.name, tc, done, games, stopped_early=stopped_early,
                         interrupted=interrupted, seconds=time.perf_counter() - t0)
    if sprt is not None:
        result.sprt = sprt_test(result.wins, result.draws, result.losses, *sprt)
    if pgn is not None:
        _write_pgn_atomically(pgn, (g.to_pgn(event, tc, date) for g in done))
        pgn.with_name(pgn.name + ".partial").unlink(missing_ok=True)
    return result
