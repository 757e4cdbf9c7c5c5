"""Self-play: many games at once, all their leaves in one network call, records on disk.

Why this shape: on a CPU the network is the cost and it is cheapest per position in large
batches, while one game's search only has a few leaves worth evaluating at a time. So every
iteration gathers up to ``minibatch`` leaves from *each* running game's tree into one array, runs
the net once, and hands each game its rows back (lc0's multi-game self-play, KataGo's batching).

Per move (KataGo's playout-cap randomization): with probability ``full_share`` a full search of
``full_visits`` with Dirichlet noise at the root (a fresh tree, since noise must not leak into
reused visits) whose visit distribution becomes a policy target; otherwise a fast search of
``fast_visits`` on the reused tree, without noise, recorded for its value targets only.
Moves are sampled from visits at ``temperature`` for the first ``temp_plies`` plies after the
opening, then at ``temp_end`` (0: the most visited).

``root`` picks how full searches treat the root (engine/gumbel.py): "puct" (Dirichlet noise,
visit-count targets; with ``forced_playouts`` > 0, KataGo's forced playouts and the pruned
visits as the target) or "gumbel" (Gumbel AlphaZero: no Dirichlet noise, sequential halving over
``gumbel_considered`` moves, the improved policy as the target and its expected Q and D as the
root's value, the move the Gumbel search picks with its noise for ``temp_plies`` plies and
without it after). A side resigns after ``resign_plies``
consecutive own moves whose best Q is below ``resign_threshold``; a ``resign_playout`` share of
games never resigns and records when it would have, to measure false resignations.

A game is written (atomically) only when it ends, under the name ``g{gen}-w{worker}-{n}``, with
``n`` one past the worker's largest finished file: a worker killed at any moment loses only its
unfinished games and never writes a finished game twice. Where it goes is a
:class:`records.GameSink`: a directory the worker writes itself, or (distributed, trainer/dist)
the learner, which writes it for the worker.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import chess
import chess.pgn
import chess.syzygy
import numpy as np
import numpy.typing as npt

from engine import contract
from engine.batch import NNCache
from engine.board import Position, move_to_uci
from engine.board_ref import to_chess_move
from engine.evaluator import Evaluator
from engine.gumbel import GumbelParams, GumbelRoot, pruned_root_visits
from engine.mcts import DRAW, LOSS, ROOT, WIN
from engine.search import MoveStats, Search, SearchParams
from trainer.data import records
from trainer.data.books import DEFAULT_OPENINGS


@dataclass
class SelfPlayConfig:
    """Self-play settings; the defaults suit a 2-core CPU and a small net."""

    parallel: int = 32
    """games played at once (their leaves share each network call)."""
    minibatch: int = 8
    """leaves gathered per game per network call."""
    full_visits: int = 160
    fast_visits: int = 32
    full_share: float = 0.25
    """share of moves searched fully (policy targets); the others are fast."""
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.25
    root: str = "puct"
    """full searches' root: "puct" (Dirichlet noise, visit targets) or "gumbel"."""
    forced_playouts: float = 0.0
    """KataGo's k for forced playouts and policy target pruning in "puct" full searches (0: off;
    KataGo uses 2)."""
    gumbel_considered: int = 16
    """moves a "gumbel" full search considers (Gumbel-top-k)."""
    gumbel_c_scale: float = 0.1
    """c_scale of a "gumbel" search (GumbelParams.value_scale): how far the searched values move
    the improved policy, the policy target, away from the prior (mctx: 0.1)."""
    gumbel_rescale: bool = True
    """min-max rescale a "gumbel" search's completed Q (GumbelParams.rescale_values)."""
    policy_temperature: float = SearchParams.policy_temperature
    """softmax temperature of the priors in every self-play search (the engine's 1.359 unless
    set; 1.0 keeps the prior as the net wrote it, for sharper targets)."""
    temperature: float = 1.0
    temp_plies: int = 16
    """plies after the start position played at ``temperature``."""
    temp_end: float = 0.1
    """temperature after ``temp_plies`` (low: near the most visited; 0: always it)."""
    resign_threshold: float = -0.9
    """best move's Q (W-L) below which a move counts toward resigning; <= -1 turns it off."""
    resign_plies: int = 3
    resign_playout: float = 0.1
    """share of games that never resign (to measure false resignations)."""
    resign_earliest: int = 20
    """plies after the start position before resigning is allowed."""
    max_plies: int = 300
    """game length (plies, opening included) at which a game is adjudicated a draw."""
    openings: str | None = str(DEFAULT_OPENINGS)
    """PGN of opening lines to start from (None or missing: the start position)."""
    start_fens: list[str] | None = None
    """start positions instead of openings (endgame curricula)."""
    syzygy: str | None = None
    """Syzygy directory: positions the tables cover get their result from the tables instead
    of the game (lc0's rescoring; off by default: pure self-play)."""
    cache_size: int = 200_000
    seed: int = 0


@dataclass
class SelfPlayStats:
    """What a self-play run did: games, positions, network calls, resignations."""

    games: int = 0
    positions: int = 0
    full_positions: int = 0
    results: dict[str, int] = field(default_factory=lambda: {"1-0": 0, "1/2-1/2": 0, "0-1": 0})
    terminations: dict[str, int] = field(default_factory=dict)
    plies: list[int] = field(default_factory=list)
    resigned: int = 0
    playout_games: int = 0
    """games with resignation disabled."""
    would_resign: int = 0
    """of those, games where a side met the resignation condition..."""
    false_resign: int = 0
    """...and then did not lose."""
    moves: int = 0
    """searches completed, unfinished games included (throughput)."""
    nn_calls: int = 0
    nn_positions: int = 0
    max_games_per_call: int = 0
    seconds: float = 0.0
    files: list[str] = field(default_factory=list)

    @property
    def false_resign_rate(self) -> float | None:
        return self.false_resign / self.would_resign if self.would_resign else None

    def summary(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("plies")
        d.pop("files")
        d["mean_plies"] = float(np.mean(self.plies)) if self.plies else 0.0
        d["false_resign_rate"] = self.false_resign_rate
        d["positions_per_s"] = self.positions / self.seconds if self.seconds else 0.0
        d["moves_per_s"] = self.moves / self.seconds if self.seconds else 0.0
        d["mean_batch"] = self.nn_positions / self.nn_calls if self.nn_calls else 0.0
        return d


class Openings:
    """Random lines from a large opening PGN without parsing all of it: the file is split into
    games by text once, and only the drawn games are parsed."""

    def __init__(self, path: str | Path) -> None:
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
        self._games = [g for g in text.split("\n[Event ") if g.strip()]
        if not self._games:
            raise ValueError(f"no games in {path}")

    def __len__(self) -> int:
        return len(self._games)

    def board(self, rng: random.Random) -> chess.Board:
        """A board after a random line, its moves on the move stack (the history planes)."""
        import io

        for _ in range(10):
            chunk = self._games[rng.randrange(len(self._games))]
            if not chunk.startswith("[Event"):
                chunk = "[Event " + chunk
            game = chess.pgn.read_game(io.StringIO(chunk))
            if game is not None and not game.errors:
                board = game.board()
                for move in game.mainline_moves():
                    board.push(move)
                if not board.is_game_over():
                    return board
        return chess.Board()


def game_over(pos: Position, movebuf: npt.NDArray[np.int32]) -> tuple[bool, int | None, str]:
    """(over, winner as 1 white / 0 black / None draw, reason) by the rules the search uses:
    mate, stalemate, 50 moves, insufficient material, threefold repetition."""
    if pos.legal_moves(movebuf) == 0:
        if pos.in_check():
            return True, 1 - pos.turn(), "checkmate"
        return True, None, "stalemate"
    if pos.halfmove_clock() >= 100:
        return True, None, "fifty moves"
    if pos.insufficient_material():
        return True, None, "insufficient material"
    if pos.repetitions() >= 2:
        return True, None, "threefold repetition"
    return False, None, ""


def best_q(m: MoveStats) -> float:
    """The best move's value for the side to move, proven results as exact."""
    if m.bound == WIN:
        return 1.0
    if m.bound == LOSS:
        return -1.0
    if m.bound == DRAW:
        return 0.0
    return m.q


def resign_step(low: list[int], side: int, value: float, ply: int, threshold: float,
                plies: int, earliest: int) -> bool:
    """The resignation rule, one search at a time: ``low[side]`` counts the side's own values in
    a row below ``threshold`` (a threshold <= -1 never counts); whether it resigns at ``ply``."""
    low[side] = low[side] + 1 if value < threshold and threshold > -1 else 0
    return low[side] >= plies and ply >= earliest


def resign_ply(values: Sequence[float], threshold: float, plies: int,
               earliest: int) -> int | None:
    """The resignation rule replayed on a game's values (side to move's W-L per position, e.g. a
    record's ``root_q``): the first position at which its side resigns."""
    low = [0, 0]
    for i, v in enumerate(values):
        if resign_step(low, i % 2, v, i, threshold, plies, earliest):
            return i
    return None


def pick_move(ranked: list[MoveStats], temperature: float, rng: random.Random) -> MoveStats:
    """Most visited (temperature 0, or a proven win) or sampled by visits^(1/T)."""
    best = ranked[0]
    if temperature <= 0 or best.bound == WIN:
        return best
    cands = [m for m in ranked if m.visits > 0 and m.bound != LOSS]
    if len(cands) < 2:  # nothing to sample from (e.g. a forced move searched with one visit)
        return best
    weights = np.array([m.visits for m in cands], np.float64) ** (1.0 / temperature)
    return cands[int(rng.choices(range(len(cands)), weights=list(weights))[0])]


class Searcher(Protocol):
    """A search sharing network calls with others: its batch and what it last gathered."""

    search: Search
    batch: Any
    gathered: int


def evaluate_together(evaluator: Evaluator, searchers: Sequence[Searcher],
                      planes: npt.NDArray[np.float32], visits_left: Sequence[int]) -> int:
    """One network call for many searches: each gathers up to its ``visits_left`` leaves into
    ``planes`` after the previous ones, the net evaluates them all at once, and each search takes
    its slice back. Returns how many positions the net saw (0: no call)."""
    total = 0
    for s, left in zip(searchers, visits_left):
        s.gathered = 0
        if left > 0:
            with s.search.lock:
                s.gathered = int(s.search.gather(s.batch, planes, total, left))
            total += s.gathered
    if total:
        out = evaluator.evaluate(planes[:total])
        offset = 0
        for s in searchers:
            if s.gathered:
                with s.search.lock:
                    s.search.apply(s.batch, out, offset)
                offset += s.gathered
    return total


@dataclass
class _Game:
    """One running game: its position, search, and the samples recorded so far."""

    pos: Position
    moves: list[int]
    book: list[str]
    start_fen: str
    search: Search
    batch: Any
    rng: random.Random
    no_resign: bool
    target: int = 0
    full: bool = False
    gumbel: GumbelRoot | None = None
    gathered: int = 0
    stalled: int = 0
    """iterations in a row in which the search could not add a visit (a guard against hangs)."""
    low: list[int] = field(default_factory=lambda: [0, 0])
    would_resign: dict[int, int] = field(default_factory=dict)
    planes: list[npt.NDArray[np.float32]] = field(default_factory=list)
    played: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)
    root_q: list[float] = field(default_factory=list)
    root_d: list[float] = field(default_factory=list)
    policies: list[tuple[list[int], list[float]] | None] = field(default_factory=list)

    @property
    def ply(self) -> int:
        """plies played since the start position (after the opening)."""
        return len(self.played)


class SelfPlayWorker:
    """Plays games with one evaluator and hands each finished game to ``out``: a records
    directory (written there) or any :class:`records.GameSink`."""

    def __init__(self, evaluator: Evaluator, cfg: SelfPlayConfig,
                 out: str | Path | records.GameSink, generation: int = 0, worker: int = 0,
                 net_name: str = "") -> None:
        self.evaluator = evaluator
        self.cfg = cfg
        self.sink = records.RecordDir(out) if isinstance(out, (str, Path)) else out
        self.generation = generation
        self.worker = worker
        self.net_name = net_name or getattr(evaluator, "name", "")
        self.counter = self.sink.next_counter(generation, worker)
        self._rng = random.Random(hash((cfg.seed, generation, worker, self.counter)))
        self._cache = NNCache(cfg.cache_size)
        self._movebuf = np.zeros(256, np.int32)
        self._tables: chess.syzygy.Tablebase | None = None
        if cfg.syzygy:
            self._tables = chess.syzygy.open_tablebase(cfg.syzygy)
        self._openings: Openings | None = None
        if cfg.start_fens is None and cfg.openings and Path(cfg.openings).is_file():
            self._openings = Openings(cfg.openings)
        self._fast_params = SearchParams(
            minibatch_size=cfg.minibatch, max_collisions=cfg.minibatch,
            nn_cache_size=cfg.cache_size, max_nodes=max(4 * cfg.full_visits, 20_000),
            dirichlet_epsilon=0.0, policy_temperature=cfg.policy_temperature)
        if cfg.root not in ("puct", "gumbel"):
            raise ValueError(f"root must be 'puct' or 'gumbel', not {cfg.root!r}")
        gumbel = cfg.root == "gumbel"
        self._full_params = replace(
            self._fast_params, dirichlet_alpha=cfg.dirichlet_alpha,
            dirichlet_epsilon=0.0 if gumbel else cfg.dirichlet_epsilon,
            forced_playouts=0.0 if gumbel else cfg.forced_playouts)
        self._gumbel_params = GumbelParams(
            simulations=cfg.full_visits, max_num_considered_actions=cfg.gumbel_considered,
            value_scale=cfg.gumbel_c_scale, rescale_values=cfg.gumbel_rescale,
            prior_temperature=self._full_params.policy_temperature)

    # ------------------------------------------------------------------ games

    def _new_game(self) -> _Game:
        rng = random.Random(self._rng.getrandbits(64))
        if self.cfg.start_fens:
            board = chess.Board(rng.choice(self.cfg.start_fens))
        elif self._openings is not None:
            board = self._openings.board(rng)
        else:
            board = chess.Board()
        pos = Position.from_board(board)
        moves = [m.from_square | (m.to_square << 6) | ((m.promotion or 0) << 12)
                 for m in board.move_stack]
        # Its own seed: every game draws its own Dirichlet noise.
        search = Search(self.evaluator, replace(self._full_params, seed=rng.getrandbits(63)),
                        cache=self._cache)
        g = _Game(pos=pos, moves=moves, book=[m.uci() for m in board.move_stack],
                  start_fen=board.root().fen(), search=search, batch=search.new_batch(), rng=rng,
                  no_resign=rng.random() < self.cfg.resign_playout)
        self._start_search(g)
        return g

    def _start_search(self, g: _Game) -> None:
        """Chooses full or fast for the next move and points the search at the position."""
        cfg = self.cfg
        n_legal = g.pos.legal_moves(self._movebuf)
        g.full = n_legal > 1 and g.rng.random() < cfg.full_share
        g.target = 1 if n_legal == 1 else (cfg.full_visits if g.full else cfg.fast_visits)
        g.search.set_params(self._full_params if g.full else self._fast_params)
        g.search.set_position(g.pos, g.moves)
        g.gumbel = None
        if g.full and cfg.root == "gumbel":
            g.gumbel = GumbelRoot(self._gumbel_params,
                                  np.random.default_rng(g.rng.getrandbits(63)))
            g.gumbel.step(g.search.tree)

    def _visits_left(self, g: _Game) -> int:
        if g.gumbel is not None and g.gumbel.begun:
            return 0 if g.gumbel.done else g.gumbel.visits_left(g.search.tree)
        visits, inflight = g.search.tree.node_stats(ROOT)[:2]
        return g.target - int(visits) - int(inflight)

    def _policy_target(self, g: _Game, ranked: list[MoveStats]) -> tuple[list[int], list[float]]:
        """The full search's policy target: the improved policy (Gumbel), the pruned visits
        (forced playouts), or the visit distribution."""
        tree = g.search.tree
        if g.gumbel is not None and g.gumbel.begun:
            moves = tree.children(ROOT)[0]
            probs = g.gumbel.improved_policy(tree)
            return ([g.pos.policy_index(int(m)) for m in moves], [float(x) for x in probs])
        if self.cfg.forced_playouts > 0:
            moves, kept = pruned_root_visits(tree, self._full_params)
            total = float(kept.sum())
            return ([g.pos.policy_index(int(m)) for m, k in zip(moves, kept) if k > 0],
                    [k / total for k in kept if k > 0])
        visited = [m for m in ranked if m.visits > 0]
        total = float(sum(m.visits for m in visited))
        return ([g.pos.policy_index(m.move) for m in visited], [m.visits / total for m in visited])

    def _move(self, g: _Game) -> tuple[bool, int | None, str]:
        """Records the searched position, plays a move; returns (over, winner, reason)."""
        cfg = self.cfg
        ranked = g.search.ranked_moves()
        _, _, q, d = g.search.tree.node_stats(ROOT)[:4]
        buf = np.zeros((contract.NUM_PLANES, 8, 8), np.float32)
        g.pos.encode(buf)
        g.planes.append(buf)
        g.turns.append(g.pos.turn())
        if g.gumbel is not None and g.gumbel.begun:
            # The root's mean under sequential halving averages moves visited for elimination,
            # not for their worth: measured against Stockfish it is a worse value than the net's.
            q_imp, d_imp = g.gumbel.improved_value(g.search.tree)
            g.root_q.append(q_imp)
            g.root_d.append(d_imp)
        else:
            g.root_q.append(-float(q))  # node_stats' q is for the side that moved into the root
            g.root_d.append(float(d))
        g.policies.append(self._policy_target(g, ranked) if g.full else None)
        side = g.pos.turn()
        if resign_step(g.low, side, best_q(ranked[0]), g.ply, cfg.resign_threshold,
                       cfg.resign_plies, cfg.resign_earliest):
            if not g.no_resign:
                g.played.append(-1)
                return True, 1 - side, "resignation"
            g.would_resign.setdefault(side, g.ply)
        temp = cfg.temperature if g.ply < cfg.temp_plies else cfg.temp_end
        if g.gumbel is not None and g.gumbel.begun and ranked[0].bound != WIN:
            edge = g.gumbel.choose(g.search.tree, noise=temp > 0 and g.ply < cfg.temp_plies)
            move = int(g.search.tree.children(ROOT)[0][edge])
        else:
            move = pick_move(ranked, temp, g.rng).move
        g.played.append(move)
        g.pos.push(move)
        g.moves.append(move)
        over, winner, reason = game_over(g.pos, self._movebuf)
        if not over and len(g.moves) >= cfg.max_plies:
            return True, None, "max plies"
        return over, winner, reason

    def _finish(self, g: _Game, winner: int | None, reason: str, stats: SelfPlayStats) -> None:
        """Hands the finished game's record and PGN to the sink; updates the statistics."""
        n = len(g.played)
        wdl = [records.wdl_onehot(None if winner is None else bool(winner), bool(t))
               for t in g.turns]
        rescored = self._rescore(g, wdl) if self._tables is not None else 0
        result = "1/2-1/2" if winner is None else ("1-0" if winner == 1 else "0-1")
        false_resign = [s for s in g.would_resign if winner != 1 - s]
        meta = {"kind": "selfplay", "generation": self.generation, "worker": self.worker,
                "game": self.counter, "net": self.net_name, "result": result,
                "termination": reason, "book": g.book, "no_resign": g.no_resign,
                "would_resign": {str(k): v for k, v in g.would_resign.items()},
                "false_resign": bool(false_resign), "plies": len(g.moves),
                "full_visits": self.cfg.full_visits, "fast_visits": self.cfg.fast_visits,
                "rescored": rescored}
        rec = records.Record.build(np.stack(g.planes), g.played, wdl, g.root_q, g.root_d,
                                   list(range(n, 0, -1)), g.policies, g.start_fen, meta)
        uci = g.book + [move_to_uci(m) for m in g.played if m >= 0]
        headers = {"Event": "zerosum self-play", "Round": str(self.counter),
                   "White": self.net_name, "Black": self.net_name, "Termination": reason}
        name = records.record_name(self.generation, self.worker, self.counter)
        self.sink.put(name, rec, records.game_pgn(g.start_fen, uci, result, headers))
        self.counter += 1
        stats.games += 1
        stats.positions += n
        stats.full_positions += int(rec.full.sum())
        stats.results[result] += 1
        stats.terminations[reason] = stats.terminations.get(reason, 0) + 1
        stats.plies.append(len(g.moves))
        stats.resigned += reason == "resignation"
        stats.playout_games += g.no_resign
        stats.would_resign += bool(g.would_resign)
        stats.false_resign += bool(false_resign)
        stats.files.append(name)

    def _rescore(self, g: _Game, wdl: list[list[float]]) -> int:
        """Replaces the game result by the tables' verdict (side to move; cursed wins and
        blessed losses count as draws) where they cover the position; returns how many."""
        assert self._tables is not None
        board = chess.Board(g.start_fen)
        for u in g.book:
            board.push_uci(u)
        count = 0
        for i, move in enumerate(g.played):
            if chess.popcount(board.occupied) <= 7 and not board.castling_rights:
                v = self._tables.get_wdl(board)
                if v is not None:
                    wdl[i] = [0.0, 1.0, 0.0] if abs(v) < 2 else (
                        [1.0, 0.0, 0.0] if v > 0 else [0.0, 0.0, 1.0])
                    count += 1
            if move >= 0:
                board.push(to_chess_move(move))
        return count

    # ------------------------------------------------------------------- run

    def run(self, games: int, should_stop: Callable[[], bool] = lambda: False,
            progress: bool = False) -> SelfPlayStats:
        """Plays ``games`` games, ``parallel`` at a time; returns early (abandoning unfinished
        games) when ``should_stop()`` turns true."""
        cfg = self.cfg
        stats = SelfPlayStats()
        t0 = time.monotonic()
        planes = np.zeros((cfg.parallel * cfg.minibatch, contract.NUM_PLANES, 8, 8), np.float32)
        started = min(cfg.parallel, games)
        active = [self._new_game() for _ in range(started)]
        bar = None
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=games, desc=f"selfplay g{self.generation}", unit="game",
                       dynamic_ncols=True, mininterval=1.0)
        try:
            while active and not should_stop():
                lefts = [self._visits_left(g) for g in active]
                total = evaluate_together(self.evaluator, active, planes, lefts)
                for g, left in zip(active, lefts):
                    if g.gumbel is not None and g.gumbel.step(g.search.tree):
                        continue  # a new phase (or a first one): its visits start next round
                    if left > 0:
                        # no leaf for the net and no free visit either: no progress
                        g.stalled = g.stalled + 1 if not g.gathered and \
                            self._visits_left(g) == left else 0
                if total:
                    stats.nn_calls += 1
                    stats.nn_positions += total
                    stats.max_games_per_call = max(stats.max_games_per_call,
                                                   sum(g.gathered > 0 for g in active))
                for i, g in enumerate(active):
                    if self._visits_left(g) > 0 and not g.search.stats.full and (
                            g.stalled < 3 or not g.search.tree.is_expanded(ROOT)):
                        continue
                    g.stalled = 0
                    over, winner, reason = self._move(g)
                    stats.moves += 1
                    if not over:
                        self._start_search(g)
                        continue
                    self._finish(g, winner, reason, stats)
                    if bar is not None:
                        bar.update(1)
                        bar.set_postfix(pos_s=f"{stats.positions / (time.monotonic() - t0):.1f}",
                                        batch=f"{stats.nn_positions / max(1, stats.nn_calls):.0f}")
                    if started < games:
                        active[i] = self._new_game()
                        started += 1
                    else:
                        active[i] = None  # type: ignore[call-overload]
                active = [g for g in active if g is not None]
        finally:
            if bar is not None:
                bar.close()
            stats.seconds = time.monotonic() - t0
        return stats


SELFPLAY_BACKENDS = ("cpu", "cuda", "torch-cpu", "torch-cuda")
TORCH_PRECISIONS = ("fp32", "fp16", "bf16")
SELFPLAY_PRECISIONS = (*TORCH_PRECISIONS, "int8")


def selfplay_evaluator(backend: str, net: str, threads: int,
                       precision: str = "fp32") -> Evaluator:
    """The one place a self-play backend name becomes an evaluator: onnxruntime's CPU or CUDA
    provider, or the net imported into torch ("torch-cpu", "torch-cuda": torch's CUDA where
    onnxruntime has none) at ``precision``. int8 (onnxruntime on the CPU) plays the net's int8
    sibling, quantized first where it is missing or stale (``trainer.learn.quantize.ensure_int8``):
    on a CPU with VNNI or AMX it runs 400-visit self-play at about 1.9x fp32's positions/s.
    NetError for a missing net or GPU, ValueError for a precision the backend lacks."""
    from engine.evaluator import OnnxEvaluator, NetError

    if precision not in SELFPLAY_PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; expected one of "
                         f"{', '.join(SELFPLAY_PRECISIONS)}")
    if backend.startswith("torch-"):
        from trainer.learn.torch_eval import TorchEvaluator

        if precision == "int8":
            raise ValueError("--precision int8 is onnxruntime's on the CPU (--backend cpu)")
        return TorchEvaluator(net, device=backend.removeprefix("torch-"), threads=threads,
                              precision=precision)
    if precision in ("fp16", "bf16"):
        raise ValueError("--precision fp16/bf16 needs a torch backend "
                         "(--backend torch-cuda or torch-cpu)")
    if precision == "int8":
        if backend != "cpu":
            raise ValueError("--precision int8 is onnxruntime's on the CPU (--backend cpu)")
        if not Path(net).is_file():
            raise NetError(f"no net at {net!r}")
        from trainer.learn.quantize import ensure_int8

        ensure_int8(net)
    return OnnxEvaluator(net, threads=threads, provider=backend, precision=precision)
