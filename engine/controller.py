"""The engine controller: one game position, one search, the clock; what the UCI loop drives.

It owns the search thread: ``go`` starts it and returns at once; the thread runs the workers,
watches the clock and the limits, reports ``SearchInfo`` through ``on_info`` and ends with
``on_bestmove``. ``stop`` and ``ponderhit`` may come from any thread at any time.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from dataclasses import dataclass
from typing import Callable

import chess
import numpy as np

from engine.board import Position, move_from_uci, move_to_uci
from engine.book import Book
from engine.evaluator import Evaluator, LatentModel, OnnxEvaluator, OnnxMuZero, is_muzero
from engine.latent_search import LatentSearch
from engine.mcts import DRAW, LOSS, UNKNOWN, WIN
from engine.search import MoveStats, Search, SearchParams
from engine.tablebase import TB_PLIES, TB_WIN_CP, Tablebases
from engine.timeman import HORIZON, MIN_HORIZON, Budget, GoLimits, budget

AnySearch = Search | LatentSearch
"""The AlphaZero search, or the latent search of a MuZero net (chosen by the net's metadata)."""

_UNPLAYABLE = (chess.STATUS_EMPTY | chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING
               | chess.STATUS_TOO_MANY_KINGS | chess.STATUS_PAWNS_ON_BACKRANK
               | chess.STATUS_OPPOSITE_CHECK | chess.STATUS_TOO_MANY_WHITE_PIECES
               | chess.STATUS_TOO_MANY_BLACK_PIECES)
INFO_INTERVAL = 1.0
"""Seconds between periodic info lines."""
POLL = 0.004
"""Seconds between checks of the clock and limits."""
BATCH_SHARE = 0.25
"""The most of a move's hard limit one batch may take. A search stops only between batches, so
at a short clock the batch shrinks to fit: on a 2-core AVX2 CPU a batch of 32 took 50 ms, and at
10+0.1 with under a second left moves took 115-139 ms on a 100 ms increment, nine time losses in
100 games (benchmarks/results/campaign, step 3b)."""


@dataclass(frozen=True)
class Score:
    """A UCI score: centipawns, or mate in ``mate`` moves (negative when being mated)."""

    cp: int | None = None
    mate: int | None = None

    def uci(self) -> str:
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"


@dataclass(frozen=True)
class PvLine:
    """One line of analysis, for the side to move: score, win/draw/loss permille, moves."""

    multipv: int
    score: Score
    wdl: tuple[int, int, int]
    pv: tuple[str, ...]


@dataclass(frozen=True)
class MoveReport:
    """One root move's statistics (lc0's VerboseMoveStats), for the side to move at the root."""

    move: str
    """the move in UCI, or ``node`` for the root itself"""
    visits: int
    prior: float
    """the policy prior after the softmax (1 for the root)"""
    q: float
    """expected score W-L in [-1, 1]"""
    d: float
    """draw probability"""
    m: float
    """plies left, as the net estimates them"""
    score: Score
    proven: bool
    """the score is exact (mate, draw or tablebase), not an estimate"""

    @property
    def wdl(self) -> tuple[float, float, float]:
        w = max(0.0, min(1.0, (1 + self.q - self.d) / 2))
        loss = max(0.0, min(1.0, (1 - self.q - self.d) / 2))
        return w, max(0.0, 1.0 - w - loss), loss


@dataclass(frozen=True)
class SearchInfo:
    depth: int
    seldepth: int
    time_ms: int
    nodes: int
    nps: int
    hashfull: int
    lines: tuple[PvLine, ...]
    tbhits: int | None = None
    """tablebase probes answered in the tree; None when no tables are set"""
    currmove: tuple[str, int] | None = None
    """(move, its 1-based rank at the root): where the search spent most since the last report"""
    move_stats: tuple[MoveReport, ...] = ()
    """every root move, worst first, then the root (``node``): only with VerboseMoveStats"""


def q_to_cp(q: float) -> int:
    """lc0's centipawn conversion of an expected score Q in [-1, 1]."""
    q = max(-0.9999, min(0.9999, q))
    return int(round(90.0 * math.tan(1.5637541897 * q)))


def score_of(m: MoveStats) -> tuple[Score, tuple[int, int, int]]:
    if m.bound == WIN:
        if m.plies >= TB_PLIES:  # won by the tables: no distance to mate, Stockfish's TB score
            return Score(cp=TB_WIN_CP - (m.plies - TB_PLIES)), (1000, 0, 0)
        return Score(mate=(m.plies + 1) // 2), (1000, 0, 0)
    if m.bound == LOSS:
        if m.plies >= TB_PLIES:
            return Score(cp=-TB_WIN_CP + (m.plies - TB_PLIES)), (0, 0, 1000)
        return Score(mate=-(m.plies // 2)), (0, 0, 1000)
    q, d = (0.0, 1.0) if m.bound == DRAW else (m.q, m.d)
    w = int(round(500 * (1 + q - d)))
    loss = int(round(500 * (1 - q - d)))
    w, loss = max(0, min(1000, w)), max(0, min(1000, loss))
    return Score(cp=q_to_cp(q)), (w, 1000 - w - loss, loss)


UNSETTLED_VISITS = 0.25
"""A runner-up with at least this share of the best move's visits and a better Q unsettles it."""


def unsettled(ranked: list[MoveStats]) -> bool:
    """Whether the root's choice may still change: the runner-up, well searched, is valued above
    the most visited move, so more visits could overtake it (the time manager's reason to spend
    past its target, as Stockfish does on an unstable best move)."""
    if len(ranked) < 2:
        return False
    best, second = ranked[0], ranked[1]
    if best.bound != UNKNOWN or second.bound != UNKNOWN:
        return False
    return second.visits >= UNSETTLED_VISITS * best.visits and second.q > best.q


@dataclass(frozen=True, kw_only=True)
class EngineSettings:
    """Everything the UCI options set that is not a search parameter."""

    weights: str
    backend: str = "cpu"
    precision: str = "fp32"
    onnx_threads: int = 2
    threads: int = 2
    multipv: int = 1
    move_overhead_ms: int = 30
    smart_pruning_factor: float = 1.33
    spend_saved_time: float = 1.0
    """share of the time a move saved (stopping before its target) added to the next move's"""
    time_horizon: int = HORIZON
    time_min_horizon: int = MIN_HORIZON
    """moves a sudden-death clock is shared over at the start, and at the fewest (timeman)"""
    temperature: float = 0.0
    syzygy_path: str = ""
    verbose_move_stats: bool = False
    analyse_mode: bool = False
    """analysis for a GUI: best move only (no Temperature), no smart pruning, no book"""
    chess960: bool = False
    """castling is written as the king taking its own rook, and FENs may name rook files"""
    own_book: bool = False
    """play moves from book_file while the game is within book_depth plies"""
    book_file: str = ""
    book_depth: int = 20
    book_variety: int = 0
    """0: the book's heaviest move; 100: any book move, as often as its weight says"""


class Controller:
    """Drives one search at a time over the current game position."""

    def __init__(
        self,
        on_info: Callable[[SearchInfo], None],
        on_bestmove: Callable[[str, str | None], None],
        on_message: Callable[[str], None],
        settings: EngineSettings,
        params: SearchParams = SearchParams(),
    ) -> None:
        self.on_info, self.on_bestmove, self.on_message = on_info, on_bestmove, on_message
        self.settings = settings
        self.params = params
        self.search: AnySearch | None = None
        self._net_key: tuple[str, str, str, int] | None = None
        self._board = chess.Board(chess960=settings.chess960)
        self._tablebases: Tablebases | None = None
        self._book: Book | None = None
        self._root_fen = ""
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._ponderhit = threading.Event()
        self._rng = np.random.default_rng()
        # Seconds each side's last clock move stopped short of its target (see timeman).
        self._saved = {chess.WHITE: 0.0, chess.BLACK: 0.0}
        # Seconds of search per evaluated leaf, measured on the last clock searches (None until
        # one ran): what a batch in flight will still take when the clock says stop.
        self._leaf_seconds: float | None = None

    # ----------------------------------------------------------------- state

    def configure(self, settings: EngineSettings, params: SearchParams) -> None:
        """New settings; takes effect at the next `go` (the net is loaded then)."""
        if settings.syzygy_path != self.settings.syzygy_path or (
                settings.syzygy_path and self._tablebases is None):
            # Opened now, so a bad path is reported at setoption and the old tables stay.
            tables = Tablebases(settings.syzygy_path) if settings.syzygy_path else None
            if self._tablebases is not None:
                self._tablebases.close()
            self._tablebases = tables
        if settings.book_file != self.settings.book_file or (
                settings.book_file and self._book is None):
            book = Book(settings.book_file) if settings.book_file else None
            if self._book is not None:
                self._book.close()
            self._book = book
        if settings.chess960 != self.settings.chess960:
            # Same position, other castling notation (the GUI sends position next anyway).
            self._board = chess.Board(self._board.fen(), chess960=settings.chess960)
            self._root_fen = ""
        self.settings, self.params = settings, params
        if self.search is not None:
            self.search.set_params(params)

    def load_net(self) -> Evaluator | LatentModel:
        """Loads the weights file when it changed. Raises NetError with the file named. A MuZero
        net (metadata mode "muzero") gets the latent search, any other the AlphaZero one."""
        s = self.settings
        key = (s.weights, s.backend, s.precision, s.onnx_threads)
        if self.search is None or key != self._net_key:
            evaluator = OnnxEvaluator(s.weights, threads=s.onnx_threads, provider=s.backend,
                                      precision=s.precision)
            self.search = (LatentSearch(OnnxMuZero(evaluator), self.params)
                           if is_muzero(evaluator.metadata) else Search(evaluator, self.params))
            self._net_key = key
            self._leaf_seconds = None
        return self.search.evaluator

    def clear_tree(self) -> None:
        """Forgets the search tree and the NN cache; the position stays."""
        self.wait()
        if self.search is not None:
            self.search.clear()

    def new_game(self) -> None:
        self.wait()
        if self.search is not None:
            self.search.clear()
        self._board = chess.Board(chess960=self.settings.chess960)
        self._saved = {chess.WHITE: 0.0, chess.BLACK: 0.0}

    def set_position(self, fen: str | None, moves: list[str]) -> None:
        """The game from ``fen`` (None: the start) through ``moves``; ValueError if either is bad,
        leaving the previous position in place."""
        try:
            chess960 = self.settings.chess960
            board = chess.Board(fen, chess960=chess960) if fen is not None else chess.Board(
                chess960=chess960)
        except ValueError as exc:
            raise ValueError(f"bad FEN {fen!r}: {exc}") from None
        if board.status() & _UNPLAYABLE:
            raise ValueError(f"FEN {fen!r} is not a playable position ({board.status()!r})")
        for uci in moves:
            try:
                board.push(board.parse_uci(uci))
            except ValueError:
                raise ValueError(f"illegal move {uci!r} in position {board.fen()!r}") from None
        self._board = board

    @property
    def board(self) -> chess.Board:
        return self._board.copy()

    # ---------------------------------------------------------------- search

    def is_searching(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def go(self, limits: GoLimits) -> None:
        """Starts searching the current position; returns at once. Raises NetError, ValueError."""
        received = time.monotonic()  # the clock runs from here: setting up the root counts
        self.wait()
        self.load_net()
        assert self.search is not None
        board = self._board
        if not any(board.legal_moves):
            raise ValueError("the game is over in this position: no legal move to search")
        if self._play_from_book(board, limits):
            return
        root = Position.from_board(board)
        root_moves = [move_from_uci(m.uci()) for m in board.move_stack]
        search_moves = []
        for uci in limits.searchmoves:
            try:
                search_moves.append(move_from_uci(board.parse_uci(uci).uci()))
            except ValueError:
                raise ValueError(f"searchmoves: {uci!r} is not a legal move here") from None
        if not search_moves and self._tablebases is not None:
            known = self._tablebases.root_moves(board.copy())
            if known:
                search_moves = [move_from_uci(m.uci()) for m in known]
        self.search.set_tablebase(self._tablebases)
        root_fen = board.root().fen()
        if search_moves or root_fen != self._root_fen:
            self.search.clear_tree()
        self._root_fen = root_fen
        self.search.set_position(root, root_moves, root_filter=search_moves or None)
        self._stop.clear()
        self._ponderhit.clear()
        allowed = search_moves or [move_from_uci(m.uci()) for m in board.legal_moves]
        self._thread = threading.Thread(target=self._run,
                                        args=(limits, board.copy(), allowed, received),
                                        name="search", daemon=True)
        self._thread.start()

    def _play_from_book(self, board: chess.Board, limits: GoLimits) -> bool:
        """Answers ``go`` from the book when it has the position (not in analysis, pondering,
        searchmoves, mate search or Chess960: Polyglot books are for standard chess)."""
        s = self.settings
        if (self._book is None or not s.own_book or s.analyse_mode or board.chess960
                or board.ply() >= s.book_depth or limits.infinite or limits.ponder
                or limits.searchmoves or limits.mate is not None):
            return False
        pick = self._book.choose(board, s.book_variety, self._rng)
        if pick is None:
            return False
        self.on_message(f"book move {pick.move.uci()} (weight {pick.weight} of {pick.total})")
        self.on_bestmove(pick.move.uci(), None)
        return True

    def stop(self) -> None:
        """Ends the search; bestmove follows at once. Does not block."""
        self._stop.set()

    def ponderhit(self) -> None:
        """The opponent played the move pondered on: go on searching, now on our clock."""
        self._ponderhit.set()

    def wait(self) -> None:
        """Stops any search and blocks until its bestmove is out."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def _run(self, limits: GoLimits, board: chess.Board, allowed: list[int],
             received: float) -> None:
        search = self.search
        assert search is not None
        try:
            self._search(search, limits, board, received)
        except Exception as exc:  # a crash must still answer the GUI with a move
            self.on_message(f"search error: {type(exc).__name__}: {exc}")
        ranked = search.ranked_moves()
        if not ranked:
            # Stopped before the root was evaluated: any allowed move beats no move.
            self.on_bestmove(move_to_uci(allowed[0]), None)
            return
        # With no visits yet, ranking falls back to the priors (edges are sorted by them).
        best = self._choose(ranked)
        pv = search.pv(best, max_len=2)
        self.on_bestmove(move_to_uci(best.move), move_to_uci(pv[1]) if len(pv) > 1 else None)

    def _choose(self, ranked: list[MoveStats]) -> MoveStats:
        """The best move, or with Temperature > 0 a move drawn by visits^(1/T) (variety)."""
        t = self.settings.temperature
        if t <= 0 or ranked[0].bound == WIN or self.settings.analyse_mode:
            return ranked[0]
        visits = np.array([m.visits for m in ranked], dtype=np.float64)
        if visits.sum() == 0:
            return ranked[0]
        p = visits ** (1.0 / t)
        return ranked[int(self._rng.choice(len(ranked), p=p / p.sum()))]

    def _search(self, search: AnySearch, limits: GoLimits, board: chess.Board,
                received: float) -> None:
        s = self.settings
        pondering = limits.ponder
        infinite = limits.infinite
        # What this side's last clock move left of its target is spent now, once (budget()
        # drops it for a movetime search: its time is fixed).
        saved, self._saved[board.turn] = self._saved[board.turn] * s.spend_saved_time, 0.0
        clock: Budget | None = budget(limits, board.turn, board.ply(), s.move_overhead_ms,
                                      saved=saved, horizon=s.time_horizon,
                                      min_horizon=s.time_min_horizon)
        start = clock_start = received
        stop_workers = threading.Event()
        node_limit = None
        if limits.nodes is not None:
            node_limit = search.root_visits() + max(1, limits.nodes)
        # A batch of n leaves takes about n x leaf_seconds x workers (they share the cores).
        max_batch, lag = None, 0.0
        if clock is not None and self._leaf_seconds is not None:
            per_leaf = self._leaf_seconds * max(1, s.threads)
            max_batch = int(min(self.params.minibatch_size,
                                max(1.0, BATCH_SHARE * clock.hard / per_leaf)))
            lag = per_leaf * max_batch
        workers = [threading.Thread(target=search.run_worker,
                                    args=(stop_workers.is_set, node_limit, max_batch), daemon=True)
                   for _ in range(max(1, s.threads))]
        for w in workers:
            w.start()
        last_info = start
        single_move = board.legal_moves.count() == 1
        seen: dict[int, int] = {m.move: m.visits for m in search.ranked_moves()}
        try:
            while True:
                time.sleep(POLL)
                now = time.monotonic()
                if self._stop.is_set():
                    break
                if pondering and self._ponderhit.is_set():
                    pondering = False
                    clock_start = now  # our clock starts at ponderhit
                if now - last_info >= INFO_INTERVAL:
                    self.on_info(self.info(search, now - start, seen=seen))
                    last_info = now
                if all(not w.is_alive() for w in workers):
                    if infinite or pondering:
                        continue  # limit reached: bestmove waits for stop or ponderhit
                    break
                if infinite or pondering:
                    continue
                if self._limits_reached(search, limits, clock, now - clock_start, single_move,
                                        lag):
                    break
        finally:
            stop_workers.set()
            for w in workers:
                w.join()
        if clock is not None and not limits.ponder and search.stats.evaluated >= 16:
            sample = (time.monotonic() - start) / search.stats.evaluated
            old = self._leaf_seconds
            self._leaf_seconds = sample if old is None else 0.7 * old + 0.3 * sample
        if clock is not None and limits.movetime is None and not pondering and not infinite \
                and not self._stop.is_set():
            # Stopped by our own limits, perhaps before the target: keep what is left of it.
            self._saved[board.turn] = max(0.0, clock.target - (time.monotonic() - clock_start))
        self.on_info(self.info(search, time.monotonic() - start, final=True))

    def _limits_reached(self, search: AnySearch, limits: GoLimits, clock: Budget | None,
                        elapsed: float, single_move: bool, lag: float = 0.0) -> bool:
        """Whether to stop now. ``lag``: what the batches in flight will still take; the hard
        limit is kept with it counted, the target without."""
        visits = search.root_visits()
        if search.stats.full:
            self.on_message("tree memory bound reached; stopping the search")
            return True
        ranked = search.ranked_moves()
        if not ranked:
            return False
        best = ranked[0]
        if limits.depth is not None and search.stats.playouts > 0:
            if search.stats.depth_sum / search.stats.playouts >= limits.depth:
                return True
        if limits.mate is not None:
            if best.bound == WIN and (best.plies + 1) // 2 <= limits.mate:
                return True
            if search.root_stats()[4] in (DRAW, LOSS):
                return True  # every line proven, none a win: no mate to find
        if clock is None:
            return False
        if elapsed + lag >= clock.hard:
            return True
        if visits == 0:
            return False
        if single_move or best.bound == WIN:
            return True
        if elapsed >= clock.target:
            # Past the target only an unsettled root may go on, up to the hard limit.
            return not unsettled(ranked)
        # Smart pruning: stop when the runner-up cannot catch up in the time that is left.
        if (len(ranked) > 1 and elapsed > 0.05 and self.settings.smart_pruning_factor > 0
                and not self.settings.analyse_mode):
            rate = search.stats.playouts / elapsed
            remaining = rate * (clock.target - elapsed) / self.settings.smart_pruning_factor
            if ranked[1].visits + remaining < best.visits:
                return True
        return False

    def info(self, search: AnySearch, elapsed: float, final: bool = False,
             seen: dict[int, int] | None = None) -> SearchInfo:
        """The search's state as a UCI info report. ``final``: the report before bestmove (with
        the per-move statistics when asked for). ``seen``: root visits per move at the last
        report, updated here, to name the move searched most since (``currmove``)."""
        stats = search.stats
        ranked = search.ranked_moves()
        lines = []
        for i, m in enumerate(ranked[: max(1, self.settings.multipv)]):
            if m.visits == 0 and m.bound == UNKNOWN and i > 0:
                break
            score, wdl = score_of(m)
            pv = tuple(move_to_uci(x) for x in search.pv(m))
            lines.append(PvLine(i + 1, score, wdl, pv))
        currmove = None
        if seen is not None and ranked:
            gains = [(m.visits - seen.get(m.move, 0), -i) for i, m in enumerate(ranked)]
            gain, neg_rank = max(gains)
            if gain > 0:
                currmove = (move_to_uci(ranked[-neg_rank].move), 1 - neg_rank)
            seen.clear()
            seen.update((m.move, m.visits) for m in ranked)
        move_stats: tuple[MoveReport, ...] = ()
        if final and self.settings.verbose_move_stats:
            move_stats = tuple(self._report(m) for m in reversed(ranked)) + (self._root_report(search),)
        playouts = stats.playouts
        depth = round(stats.depth_sum / playouts) if playouts else 0
        return SearchInfo(
            depth=max(1, depth), seldepth=max(1, stats.seldepth), time_ms=int(elapsed * 1000),
            nodes=search.root_visits(), nps=int(playouts / elapsed) if elapsed > 0 else 0,
            hashfull=search.cache.permille_full(), lines=tuple(lines),
            tbhits=stats.tbhits if self._tablebases is not None else None,
            currmove=currmove, move_stats=move_stats)

    @staticmethod
    def _report(m: MoveStats) -> MoveReport:
        score, _ = score_of(m)
        q, d = (0.0, 1.0) if m.bound == DRAW else (m.q, m.d)
        if m.bound in (WIN, LOSS):
            q, d = float(m.bound), 0.0
        return MoveReport(move_to_uci(m.move), m.visits, m.prior, q, d, m.m, score,
                          m.bound != UNKNOWN)

    @staticmethod
    def _root_report(search: AnySearch) -> MoveReport:
        visits, q, d, m, bound, plies = search.root_stats()
        report = Controller._report(MoveStats(0, 1.0, visits, q, d, m, bound, plies, 0))
        return dataclasses.replace(report, move="node")
