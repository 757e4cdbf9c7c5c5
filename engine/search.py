"""The search: gathers leaves of the Cython tree into batches, evaluates them, backs them up.

One iteration of a worker (lc0's "gather -> evaluate -> backup", mctx's simulate/expand/backward):
    1. under the lock, select up to ``minibatch_size`` leaves with virtual loss; a leaf whose
       game is over, or whose evaluation is in the NN cache, is backed up on the spot;
    2. without the lock, run the network on the batch (onnxruntime releases the GIL, so another
       worker gathers its batch meanwhile and the network never waits for Python);
    3. under the lock, expand each leaf with the softmax of its legal moves' logits and back up
       its value.

Values are W-L ("wl") and draw probability ("d") for a given side to move; "m" is plies left.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterator, Protocol, TypeVar

import chess
import numpy as np
import numpy.typing as npt

from engine import contract
from engine.batch import BatchBuilder, NNCache
from engine.board import Position
from engine.evaluator import Evaluator, NetOutput
from engine.tablebase import TB_PLIES, Tablebases
from engine.mcts import (
    COLLISION,
    DRAW,
    FULL,
    LOSS,
    ROOT,
    SCHEDULE_DONE,
    TERM_GAME,
    TERM_NONE,
    TERM_TWOFOLD,
    TERMINAL,
    UNKNOWN,
    WIN,
    Tree,
)

MAX_MOVES = 256
MAX_PATH = 1024


class PositionLike(Protocol):
    """What the search needs of a position (``engine.board.Position`` or its reference)."""

    def copy(self) -> Any: ...
    def push(self, move: int) -> None: ...
    def legal_moves(self, out: Any) -> int: ...
    def in_check(self) -> bool: ...
    def halfmove_clock(self) -> int: ...
    def key(self) -> int: ...
    def repetitions(self) -> int: ...
    def repetition_distance(self) -> int: ...
    def insufficient_material(self) -> bool: ...
    def policy_index(self, move: int) -> int: ...
    def encode(self, out: Any) -> None: ...
    def to_board(self) -> chess.Board: ...


@dataclass(frozen=True, kw_only=True)
class SearchParams:
    """Search settings, lc0's names and defaults where lc0 has them."""

    cpuct: float = 1.745
    """c_puct at zero visits."""
    cpuct_base: float = 38739.0
    """visits over which c_puct grows by cpuct_factor * log 2."""
    cpuct_factor: float = 3.894
    """growth of c_puct with the parent's visits."""
    fpu_reduction: float = 0.330
    """first-play urgency: an unvisited move's Q is the parent's Q minus this x sqrt(visited P)."""
    fpu_root: float | None = None
    """the reduction at the root; None: the same as elsewhere (lc0's default)."""
    policy_temperature: float = 1.359
    """softmax temperature applied to the policy logits."""
    virtual_loss: float = 1.0
    """value counted as a loss for each in-flight visit during gathering."""
    minibatch_size: int = 32
    """leaves sent to the network at once."""
    max_collisions: int = 8
    """collisions tolerated while gathering one batch before it is sent short."""
    max_nodes: int = 4_000_000
    """tree size bound: the search stops growing the tree here."""
    nn_cache_size: int = 200_000
    """positions whose network outputs are kept."""
    two_fold_draws: bool = True
    """score a repetition of a position met since the search root as a draw."""
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.0
    """share of Dirichlet noise mixed into the root priors (self-play); 0 turns it off."""
    forced_playouts: float = 0.0
    """KataGo's k for forced playouts at the root (self-play with noise; 0 turns it off)."""
    moves_left_max_effect: float = 0.0
    """lc0's moves-left utility: the most it adds to a move's Q, preferring shorter wins and
    longer losses where the position is decided (|Q| above moves_left_threshold). 0 turns it
    off: unlike lc0 (0.0345), since with the bundled net it converted no more won endings
    (benchmarks/results/moves-left.md)."""
    moves_left_threshold: float = 0.8
    moves_left_slope: float = 0.0027
    """utility per ply of difference between a child's expected game length and its parent's."""
    moves_left_constant: float = 0.0
    moves_left_scaled: float = 1.6521
    moves_left_quadratic: float = -0.6521
    """the scale of the utility: constant + scaled * a + quadratic * a^2, a = how far |Q| is
    past the threshold, from 0 to 1 (lc0's names and defaults)."""
    seed: int | None = None


@dataclass
class _Pending:
    leaf: int
    moves: npt.NDArray[np.int32]
    indices: npt.NDArray[np.int64]
    key: int
    depth: int


@dataclass
class _RefBatch:
    pending: list[_Pending] = field(default_factory=list)


@dataclass
class SearchStats:
    """Counters for info lines."""

    playouts: int = 0
    depth_sum: int = 0
    seldepth: int = 0
    batches: int = 0
    evaluated: int = 0
    cache_hits: int = 0
    terminals: int = 0
    collisions: int = 0
    tbhits: int = 0
    full: bool = False
    start: float = field(default_factory=time.monotonic)


T = TypeVar("T")


class LeafSelection(Generic[T]):
    """The selection loop of a gather, as BatchBuilder.gather runs it in Cython; the reference
    gather and the latent search's iterate this one. ``Tree.select`` (with virtual loss) goes on
    while fewer than ``room`` leaves are in ``batch``, fewer than ``budget`` visits have started
    (``batch`` and ``free``), fewer than ``max_collisions`` selections collided and fewer than 4 x
    ``minibatch_size`` visits were free. Collisions, a full tree and a finished root schedule are
    handled here; every other leaf is yielded as (leaf, depth) with the path to it in ``path``,
    and the caller either appends its entry to ``batch`` (for the network) or adds 1 to ``free``
    (backed up at once)."""

    def __init__(self, tree: Tree, path: npt.NDArray[np.int32], stats: SearchStats,
                 params: SearchParams, room: int, budget: int) -> None:
        self.tree, self.path, self.stats, self.params = tree, path, stats, params
        self.room, self.budget = room, budget
        self.batch: list[T] = []
        self.free = 0

    def __iter__(self) -> Iterator[tuple[int, int]]:
        tree, stats, p = self.tree, self.stats, self.params
        collisions = 0
        while (len(self.batch) < self.room and len(self.batch) + self.free < self.budget
               and collisions < p.max_collisions and self.free < 4 * p.minibatch_size):
            leaf = tree.select(self.path)
            if leaf == COLLISION:
                collisions += 1
                stats.collisions += 1
                continue
            if leaf == FULL:
                stats.full = True
                return
            if leaf == SCHEDULE_DONE:
                return
            yield leaf, tree.last_depth


class RefCache:
    """The reference path's NN cache: LRU map from a key to (priors, wl, d, m)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._data: OrderedDict[int, tuple[npt.NDArray[np.float32], float, float, float]] = (
            OrderedDict()
        )

    def get(self, key: int) -> tuple[npt.NDArray[np.float32], float, float, float] | None:
        hit = self._data.get(key)
        if hit is not None:
            self._data.move_to_end(key)
        return hit

    def put(self, key: int, value: tuple[npt.NDArray[np.float32], float, float, float]) -> None:
        if self.capacity <= 0:
            return
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)

    def permille_full(self) -> int:
        return 0 if self.capacity <= 0 else min(1000, len(self._data) * 1000 // self.capacity)


def softmax_priors(logits: npt.NDArray[np.float32], temperature: float) -> npt.NDArray[np.float32]:
    z = logits.astype(np.float64) / max(temperature, 1e-3)
    z -= z.max()
    p = np.exp(z)
    return (p / p.sum()).astype(np.float32)


class Search:
    """A tree over one root position, grown by ``run_worker`` calls; thread-safe through a lock.

    The fast path (the Cython tree, ``engine.board.Position`` roots) gathers batches in C; the
    reference path (``reference=True``, or any other tree such as ``RefTree``) does the same in
    Python on any position with the ``PositionLike`` interface, for the tests to compare.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        params: SearchParams = SearchParams(),
        tree_factory: Callable[[], Any] = Tree,
        reference: bool = False,
        cache: NNCache | RefCache | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.params = params
        self.tree = tree_factory()
        self._fast = isinstance(self.tree, Tree) and not reference
        # Searches may share one cache (self-play runs many games on one net).
        self.cache: NNCache | RefCache = cache if cache is not None else (
            NNCache(params.nn_cache_size) if self._fast else RefCache(params.nn_cache_size))
        self.lock = threading.Lock()
        self.stats = SearchStats()
        self.root: PositionLike | None = None
        self._root_moves: list[int] = []
        self._root_filter: set[int] | None = None
        self._rng = np.random.default_rng(params.seed)
        self.tablebase: Tablebases | None = None
        """Syzygy tables that decide the leaves they can (set with set_tablebase)."""
        self._configure_tree()

    def _configure_tree(self) -> None:
        p = self.params
        self.tree.configure(cpuct=p.cpuct, cpuct_base=p.cpuct_base, cpuct_factor=p.cpuct_factor,
                            fpu_reduction=p.fpu_reduction, fpu_root=p.fpu_root,
                            virtual_loss=p.virtual_loss, max_nodes=p.max_nodes,
                            forced_playouts=p.forced_playouts,
                            moves_left_max_effect=p.moves_left_max_effect,
                            moves_left_threshold=p.moves_left_threshold,
                            moves_left_slope=p.moves_left_slope,
                            moves_left_constant=p.moves_left_constant,
                            moves_left_scaled=p.moves_left_scaled,
                            moves_left_quadratic=p.moves_left_quadratic)

    def set_params(self, params: SearchParams) -> None:
        with self.lock:
            if params.nn_cache_size != self.params.nn_cache_size:
                self.cache = (NNCache(params.nn_cache_size) if self._fast
                              else RefCache(params.nn_cache_size))
            self.params = params
            self._configure_tree()

    def set_tablebase(self, tablebase: Tablebases | None) -> None:
        """Tables to probe inside the tree (None: none). Nodes already scored stay as they are,
        so the tree is cleared when the tables change."""
        with self.lock:
            if tablebase is not self.tablebase:
                self.tablebase = tablebase
                self.tree.reset()
                self._root_moves = []

    def set_position(self, root: PositionLike, game_moves: list[int],
                     root_filter: list[int] | None = None) -> bool:
        """Moves the search to ``root``, reached by ``game_moves`` from the game's start
        (``root`` must be set up from the same starting position as the previous root, or
        ``clear`` called first). ``root_filter`` restricts the root to those moves.

        Keeps the subtree when the new root follows the old one (tree reuse); returns whether it did.
        """
        if self._fast and not isinstance(root, Position):
            raise TypeError("the fast search needs an engine.board.Position root")
        with self.lock:
            old, self._root_moves = self._root_moves, list(game_moves)
            # The search pushes and pops leaf paths on its root, so it keeps a private copy.
            self.root = root.copy()
            self.stats = SearchStats()
            was_filtered = self._root_filter is not None
            self._root_filter = set(root_filter) if root_filter else None
            # A root expanded with only some moves (searchmoves, tablebases) is not reusable.
            fresh = (self.params.dirichlet_epsilon > 0 or self._root_filter is not None
                     or was_filtered)
            if not fresh and old == game_moves[: len(old)] and self.tree.num_nodes > 0:
                return bool(self.tree.reroot(game_moves[len(old):]))
            self.tree.reset()
            return False

    def clear(self) -> None:
        """Forgets the tree and the cache (a new game)."""
        with self.lock:
            self.cache.clear()
        self.clear_tree()

    def clear_tree(self) -> None:
        """Forgets the tree; the next position starts a fresh one."""
        with self.lock:
            self.tree.reset()
            self._root_moves = []

    # ------------------------------------------------------------------ workers

    def run_worker(self, should_stop: Callable[[], bool], node_limit: int | None = None,
                   max_batch: int | None = None) -> None:
        """Grows the tree until ``should_stop()`` or ``node_limit`` root visits. Blocks.
        ``max_batch``: fewer leaves a batch than ``minibatch_size`` (a short clock: the search can
        stop only between batches)."""
        planes = np.zeros((batch_room(self.params, max_batch), contract.NUM_PLANES, 8, 8),
                          np.float32)
        batch = self.new_batch()
        while not should_stop():
            with self.lock:
                budget = visit_budget(self.tree, node_limit)
                done = budget <= 0 or self.stats.full
                count = 0 if done else self.gather(batch, planes, 0, budget)
            if done:
                if node_limit is not None and self._inflight() > 0:
                    time.sleep(0.0005)  # another worker holds the last leaves
                    continue
                return
            if count == 0:
                continue
            out = self.evaluator.evaluate(planes[:count])
            with self.lock:
                self.apply(batch, out, 0)

    def new_batch(self) -> Any:
        """A batch for one worker: the C builder, or the reference's list of leaves."""
        if self._fast:
            return BatchBuilder(self.params.minibatch_size)
        return _RefBatch()

    def gather(self, batch: Any, planes: npt.NDArray[np.float32], offset: int, budget: int) -> int:
        """Selects leaves into ``planes[offset:]`` (at most the minibatch size, at most ``budget``
        started visits); returns how many need the network. Call under ``lock``; no blocking.

        Self-play gathers several searches into one array and evaluates them in one call.
        """
        assert self.root is not None
        p = self.params
        if isinstance(batch, _RefBatch):
            return self._gather_ref(batch, planes, offset, budget)
        count = int(batch.gather(self.tree, self.root, planes, offset, budget, p.max_collisions,
                                 p.two_fold_draws, self.cache, self.tablebase))
        self._absorb(batch)
        return count

    def apply(self, batch: Any, out: NetOutput, offset: int) -> None:
        """Backs up a gathered batch from rows ``offset:`` of the network's outputs. Call under
        ``lock``."""
        if isinstance(batch, _RefBatch):
            self._apply_ref(batch, out, offset)
            return
        batch.apply(self.tree, self.cache, out.policy, out.wdl, out.mlh, offset,
                    self.params.policy_temperature)
        if batch.has_root:
            row, moves, indices = batch.root_entry()
            self._expand_root(moves, out.policy[offset + row, indices], out, offset + row)
        self.stats.evaluated += batch.count
        self.stats.batches += 1
        self._absorb(batch)

    def _absorb(self, batch: BatchBuilder) -> None:
        st = self.stats
        st.playouts += batch.playouts
        st.terminals += batch.terminals
        st.cache_hits += batch.cache_hits
        st.collisions += batch.collisions
        st.tbhits += batch.tbhits
        st.depth_sum += batch.depth_sum
        st.seldepth = max(st.seldepth, batch.seldepth)
        st.full = st.full or batch.full
        batch.reset_counters()

    def _expand_root(self, moves: npt.NDArray[np.int32], logits: npt.NDArray[np.float32],
                     out: NetOutput, row: int) -> None:
        priors = softmax_priors(logits, self.params.policy_temperature)
        self._expand(ROOT, moves, priors)
        wl = float(out.wdl[row, 0]) - float(out.wdl[row, 2])
        m = float(out.mlh[row]) if out.mlh is not None else 0.0
        self.tree.backup(ROOT, wl, float(out.wdl[row, 1]), m)

    def root_visits(self) -> int:
        return int(self.tree.node_stats(ROOT)[0])

    def root_stats(self) -> tuple[int, float, float, float, int, int]:
        """(visits, q, d, m, bound, bound plies) of the root, for its side to move."""
        with self.lock:
            visits, _, q, d, m, bound, plies, terminal = self.tree.node_stats(ROOT)
        if terminal == TERM_NONE or bound == UNKNOWN:
            bound = UNKNOWN
        else:
            bound = -bound  # stored for the side that moved into the root
        return int(visits), -float(q), float(d), float(m), int(bound), int(plies)

    def _inflight(self) -> int:
        return int(self.tree.node_stats(ROOT)[1])

    # ------------------------------------------------ the pure-Python reference

    def _gather_ref(self, batch: _RefBatch, planes: npt.NDArray[np.float32], offset: int,
                    budget: int) -> int:
        """What BatchBuilder.gather does, in Python, on any tree and position."""
        assert self.root is not None
        tree, stats, p = self.tree, self.stats, self.params
        path = np.zeros(MAX_PATH, np.int32)
        movebuf = np.zeros(MAX_MOVES, np.int32)
        room = min(p.minibatch_size, len(planes) - offset)
        sel: LeafSelection[_Pending] = LeafSelection(tree, path, stats, p, room, budget)
        pending = batch.pending = sel.batch
        for leaf, depth in sel:
            stats.seldepth = max(stats.seldepth, depth)
            if leaf == TERMINAL:
                stats.depth_sum += depth
                stats.terminals += 1
                stats.playouts += 1
                sel.free += 1
                continue
            pos = self.root.copy()
            for i in range(depth):
                pos.push(int(path[i]))
            n = pos.legal_moves(movebuf)
            if leaf != ROOT and self._score_terminal(pos, leaf, n, depth):
                tree.backup_terminal(leaf)
                stats.depth_sum += depth
                stats.terminals += 1
                stats.playouts += 1
                sel.free += 1
                continue
            moves = movebuf[:n].copy()
            key = (pos.key() ^ (pos.halfmove_clock() * 0x9E3779B97F4A7C15)
                   ^ (min(pos.repetitions(), 3) << 62)) & 0xFFFFFFFFFFFFFFFF
            hit = self.cache.get(key) if leaf != ROOT else None
            if hit is not None and len(hit[0]) == n:
                priors, wl, d, m = hit
                self._expand(leaf, moves, priors)
                tree.backup(leaf, wl, d, m)
                stats.depth_sum += depth
                stats.cache_hits += 1
                stats.playouts += 1
                sel.free += 1
                continue
            indices = np.fromiter((pos.policy_index(int(mv)) for mv in moves), np.int64, n)
            pos.encode(planes[offset + len(pending)])
            pending.append(_Pending(leaf, moves, indices, key, depth))
        return len(pending)

    def _score_terminal(self, pos: PositionLike, leaf: int, n_legal: int, depth: int) -> bool:
        """Marks leaf terminal when its game is over; results are for the side that moved in."""
        tree = self.tree
        if n_legal == 0:
            tree.set_terminal(leaf, WIN if pos.in_check() else DRAW, 1, TERM_GAME)
        elif pos.halfmove_clock() >= 100 or pos.insufficient_material():
            tree.set_terminal(leaf, DRAW, 1, TERM_GAME)
        else:
            reps = pos.repetitions()
            if reps >= 2:
                tree.set_terminal(leaf, DRAW, 1, TERM_GAME)
            elif reps == 1 and self.params.two_fold_draws and 0 < pos.repetition_distance() <= depth:
                tree.set_terminal(leaf, DRAW, 1, TERM_TWOFOLD)
            elif self.tablebase is not None and pos.halfmove_clock() == 0:
                result = self.tablebase.in_tree_result(pos.to_board())
                if result is None:
                    return False
                self.stats.tbhits += 1
                tree.set_terminal(leaf, result, 1 if result == DRAW else TB_PLIES + 1, TERM_GAME)
            else:
                return False
        return True

    def _expand(self, leaf: int, moves: npt.NDArray[np.int32], priors: npt.NDArray[np.float32]) -> None:
        p = self.params
        if leaf == ROOT and self._root_filter is not None:
            keep = np.array([int(m) in self._root_filter for m in moves])
            moves, priors = moves[keep], priors[keep]
            priors = (priors / max(float(priors.sum()), 1e-12)).astype(np.float32)
        if leaf == ROOT and p.dirichlet_epsilon > 0:
            noise = self._rng.dirichlet([p.dirichlet_alpha] * len(priors)).astype(np.float32)
            priors = ((1 - p.dirichlet_epsilon) * priors + p.dirichlet_epsilon * noise).astype(
                np.float32)
        self.tree.expand(leaf, moves, priors)

    def _apply_ref(self, batch: _RefBatch, out: NetOutput, offset: int) -> None:
        temp = self.params.policy_temperature
        for i, item in enumerate(batch.pending):
            row = offset + i
            priors = softmax_priors(out.policy[row, item.indices], temp)
            wl = float(out.wdl[row, 0]) - float(out.wdl[row, 2])
            d = float(out.wdl[row, 1])
            m = float(out.mlh[row]) if out.mlh is not None else 0.0
            self.cache.put(item.key, (priors, wl, d, m))
            self._expand(item.leaf, item.moves, priors)
            self.tree.backup(item.leaf, wl, d, m)
            self.stats.depth_sum += item.depth
        self.stats.playouts += len(batch.pending)
        self.stats.evaluated += len(batch.pending)
        self.stats.batches += 1

    # ---------------------------------------------------------------- results

    def ranked_moves(self) -> list[MoveStats]:
        """The root's moves, best first: proven wins (shortest), then by visits and Q, proven
        draws among them, proven losses (longest) last."""
        return ranked_root_moves(self.tree, self.lock)

    def pv(self, first: MoveStats, max_len: int = 32) -> list[int]:
        """The principal variation starting with ``first``: most visited children below it."""
        line = [first.move]
        node = first.node
        with self.lock:
            while node >= 0 and len(line) < max_len:
                moves, _, visits, q, _, _, bound, plies, ids = self.tree.children(node)
                if len(moves) == 0:
                    break
                best = max(range(len(moves)), key=lambda i: MoveStats.rank_tuple(
                    int(bound[i]), int(plies[i]), int(visits[i]), float(q[i])))
                if visits[best] == 0 and bound[best] == UNKNOWN:
                    break
                line.append(int(moves[best]))
                node = int(ids[best])
        return line


def visit_budget(tree: Tree, node_limit: int | None) -> int:
    """Visits a worker may still start: the node limit less the root's visits and those in flight
    (other workers' leaves), or 1 << 30 without a limit. Call under the search's lock."""
    if node_limit is None:
        return 1 << 30
    visits, inflight = tree.node_stats(ROOT)[:2]
    return node_limit - int(visits) - int(inflight)


def batch_room(params: SearchParams, max_batch: int | None) -> int:
    """Leaves a worker's batch may hold: ``minibatch_size``, or fewer where the caller caps it
    (``run_worker``'s ``max_batch``); at least one."""
    return max(1, min(params.minibatch_size, max_batch or params.minibatch_size))


def ranked_root_moves(tree: Tree, lock: threading.Lock) -> list[MoveStats]:
    """The root's moves in ``tree`` ranked (MoveStats.rank_key, then prefer_by_value), read
    under ``lock``; the board search's and the latent search's."""
    with lock:
        moves, priors, visits, q, d, m, bound, plies, ids = tree.children(ROOT)
    out = [MoveStats(int(moves[i]), float(priors[i]), int(visits[i]), float(q[i]),
                     float(d[i]), float(m[i]), int(bound[i]), int(plies[i]), int(ids[i]))
           for i in range(len(moves))]
    out.sort(key=MoveStats.rank_key, reverse=True)
    return prefer_by_value(out)


def prefer_by_value(ranked: list[MoveStats]) -> list[MoveStats]:
    """Visits decide, except against a proven draw: a searched move expected to win beats a
    drawn one (the net's prior can pile visits onto a stalemate), and a proven draw beats a
    favourite expected to lose."""
    if not ranked or ranked[0].bound not in (UNKNOWN, DRAW):
        return ranked
    lead = ranked[0]
    if lead.bound == DRAW:
        better = next((m for m in ranked if m.bound == UNKNOWN and m.visits > 0 and m.q > 0), None)
    elif lead.q < 0:
        better = next((m for m in ranked if m.bound == DRAW), None)
    else:
        better = None
    if better is None:
        return ranked
    return [better] + [m for m in ranked if m is not better]


@dataclass(frozen=True)
class MoveStats:
    """One root move: prior, visits, and Q/D/M for the side to move at the root."""

    move: int
    prior: float
    visits: int
    q: float
    d: float
    m: float
    bound: int
    plies: int
    node: int

    @staticmethod
    def rank_tuple(bound: int, plies: int, visits: int, q: float) -> tuple[int, float, float]:
        if bound == WIN:
            return (3, -plies, 0.0)
        if bound == LOSS:
            return (0, plies, 0.0)
        return (2, visits, q)

    def rank_key(self) -> tuple[int, float, float]:
        return MoveStats.rank_tuple(self.bound, self.plies, self.visits, self.q)
