"""MCTS over a MuZero model's hidden states, on the same Cython tree as the AlphaZero search.

The root is the real position: initial inference (h, f) gives its state, policy and value; it is
expanded with its legal moves only (the policy masked to them and renormalised), so the move
played is always legal. Below the root there is no board: a node's state is its parent's state
stepped by the dynamics g with the edge's action, and an interior node is expanded with all 1858
actions of the learned policy (an edge's "move" there is the policy index itself; at the root it
is the engine's move). Nothing below the root is judged by the rules of chess: no mate,
stalemate or repetition is detected there, only what the model predicts.

One iteration of a worker: under the lock, select up to ``minibatch_size`` leaves with virtual
loss (``Tree.select``); outside it, run recurrent inference on their parents' states and actions
as one batch; under the lock, store the new states (a numpy array indexed by node id), expand,
back up.

Values. Chess has a discount of 1 and a reward only when a move ends the game, so the value of a
new node for the player who moved into it is ``reward - value(new state)``. MuZero normalises Q
by the min and max seen in the tree because Atari returns are unbounded; for board games its
pseudocode uses the known bounds [-1, 1] instead, and so does this search: with values and
rewards in [-1, 1] that normalisation is the affine map (q + 1) / 2, which the tree's c_puct
absorbs (lc0's constants are tuned for Q in [-1, 1]); backed-up values are clipped to [-1, 1] so
that the bounds hold. A node whose move the model predicts ends the game (a reward class above
``TERMINAL_REWARD``) is absorbing: it gets a single edge whose child backs up the reward again at
each visit (the tree sums values without rewards, so the game's end must not be searched past).

Tree reuse: node ids change when the tree is re-rooted, which would scramble the state array, so
every search starts from a fresh tree.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

import numpy as np
import numpy.typing as npt

from engine import contract
from engine.board import Position
from engine.evaluator import LatentModel, NetOutput
from engine.mcts import ROOT, UNKNOWN, Tree
from engine.search import (MAX_MOVES, MAX_PATH, LeafSelection, MoveStats, SearchParams,
                           SearchStats, batch_room, ranked_root_moves, softmax_priors,
                           visit_budget)

TERMINAL_REWARD = 0.5
"""Probability of a decisive reward above which a move is taken to end the game."""
ABSORB = -1
"""The edge 'move' below a node that ends the game."""
LATENT_MAX_NODES = 500_000
"""Tree bound: interior nodes carry 1858 edges, so the tree's edge budget (40 a node on average)
fills after about this / 46 expansions (~250 MB of edges and states for a 64-channel model)."""
ALL_ACTIONS = np.arange(contract.POLICY_SIZE, dtype=np.int32)


class _NoCache:
    """Latent states are not positions: there is nothing to cache. For the info line."""

    def permille_full(self) -> int:
        return 0

    def clear(self) -> None:
        pass


class LatentSearch:
    """The controller's search interface (see engine/search.py's Search) over a MuZero model."""

    def __init__(self, model: LatentModel, params: SearchParams = SearchParams()) -> None:
        self.evaluator = model
        self.params = params
        self.tree = Tree()
        self.cache = _NoCache()
        self.lock = threading.Lock()
        self.stats = SearchStats()
        self.root: Position | None = None
        self._root_filter: set[int] | None = None
        self._rng = np.random.default_rng(params.seed)
        self._states: npt.NDArray[np.float32] | None = None
        self._node_of: dict[tuple[int, ...], int] = {}
        self._absorbing: dict[int, float] = {}  # node -> reward of the move into it
        self._configure_tree()

    def _configure_tree(self) -> None:
        p = self.params
        self.tree.configure(cpuct=p.cpuct, cpuct_base=p.cpuct_base, cpuct_factor=p.cpuct_factor,
                            fpu_reduction=p.fpu_reduction, fpu_root=p.fpu_root,
                            virtual_loss=p.virtual_loss,
                            max_nodes=min(p.max_nodes, LATENT_MAX_NODES))

    def set_params(self, params: SearchParams) -> None:
        with self.lock:
            self.params = params
            self._configure_tree()

    def set_position(self, root: Position, game_moves: list[int],
                     root_filter: list[int] | None = None) -> bool:
        """Searches ``root`` next (``game_moves`` are ignored: no tree reuse); returns False."""
        with self.lock:
            self.root = root.copy()
            self._root_filter = set(root_filter) if root_filter else None
            self._reset()
        return False

    def clear(self) -> None:
        self.clear_tree()

    def clear_tree(self) -> None:
        with self.lock:
            self._reset()

    def _reset(self) -> None:
        self.tree.reset()
        self.stats = SearchStats()
        self._node_of = {(): ROOT}
        self._absorbing = {}

    # ------------------------------------------------------------------ workers

    def root_visits(self) -> int:
        return int(self.tree.node_stats(ROOT)[0])

    def _inflight(self) -> int:
        return int(self.tree.node_stats(ROOT)[1])

    def run_worker(self, should_stop: Callable[[], bool], node_limit: int | None = None,
                   max_batch: int | None = None) -> None:
        """Grows the tree until ``should_stop()`` or ``node_limit`` root visits. Blocks.
        ``max_batch``: fewer leaves a batch than ``minibatch_size`` (as Search.run_worker)."""
        path = np.zeros(MAX_PATH, np.int32)
        room = batch_room(self.params, max_batch)
        while not should_stop():
            with self.lock:
                budget = visit_budget(self.tree, node_limit)
                done = budget <= 0 or self.stats.full
                batch = [] if done else self._gather(path, budget, room)
                if batch and batch[0][0] != ROOT:
                    assert self._states is not None
                    # copied under the lock: another worker may grow the array meanwhile
                    states = self._states[np.array([b[1] for b in batch], np.int64)]
            if done:
                if node_limit is not None and self._inflight() > 0:
                    time.sleep(0.0005)  # another worker holds the last leaves
                    continue
                return
            if not batch:
                time.sleep(0.0005)  # all collisions: another worker holds the leaves
                continue
            if batch[0][0] == ROOT:
                self._evaluate_root()
                continue
            actions = np.array([b[2] for b in batch], np.int64)
            out = self.evaluator.recurrent(states, actions)
            with self.lock:
                self._apply(batch, out.state, out.reward, out.net)

    def _gather(self, path: npt.NDArray[np.int32], budget: int,
                room: int) -> list[tuple[int, int, int, int]]:
        """Leaves to evaluate as (node, parent node, action, depth); [(ROOT, ...)] when the root
        itself is unexpanded. Absorbing leaves are backed up on the spot. Call under the lock."""
        tree, stats, p = self.tree, self.stats, self.params
        sel: LeafSelection[tuple[int, int, int, int]] = LeafSelection(
            tree, path, stats, p, room, budget)
        for leaf, depth in sel:
            if leaf < 0:  # TERMINAL: the latent tree sets none, but a proof is a proof
                stats.playouts += 1
                sel.free += 1
                continue
            if leaf == ROOT:
                # Unexpanded and not in flight (another worker's pending root collides).
                return [(ROOT, ROOT, 0, 0)]
            stats.seldepth = max(stats.seldepth, depth)
            key = tuple(int(x) for x in path[:depth])
            parent = self._node_of[key[:-1]]
            self._node_of[key] = leaf
            if parent in self._absorbing:
                # Below the game's end: the reward of the move into ``parent`` once more.
                tree.backup(leaf, self._absorbing[parent], 0.0, 0.0)
                stats.playouts += 1
                stats.depth_sum += depth
                sel.free += 1
                continue
            action = key[-1] if depth > 1 else self._root_action(key[0])
            sel.batch.append((leaf, parent, action, depth))
        return sel.batch

    def _root_action(self, move: int) -> int:
        assert self.root is not None
        return int(self.root.policy_index(move))

    def _evaluate_root(self) -> None:
        """Initial inference on the root; expands it with its legal moves only."""
        assert self.root is not None
        planes = np.zeros((1, contract.NUM_PLANES, 8, 8), np.float32)
        self.root.encode(planes[0])
        net, state = self.evaluator.initial(planes)
        movebuf = np.zeros(MAX_MOVES, np.int32)
        with self.lock:
            n = self.root.legal_moves(movebuf)
            moves = movebuf[:n].copy()
            if self._root_filter is not None:
                moves = np.array([m for m in moves if int(m) in self._root_filter], np.int32)
            idx = np.array([self.root.policy_index(int(m)) for m in moves], np.int64)
            priors = softmax_priors(net.policy[0, idx], self.params.policy_temperature)
            p = self.params
            if p.dirichlet_epsilon > 0 and len(priors) > 1:
                noise = self._rng.dirichlet([p.dirichlet_alpha] * len(priors))
                priors = ((1 - p.dirichlet_epsilon) * priors
                          + p.dirichlet_epsilon * noise).astype(np.float32)
            self._store(ROOT, state[0])
            self.tree.expand(ROOT, moves, priors.astype(np.float32))
            wdl = net.wdl[0]
            self.tree.backup(ROOT, float(wdl[0] - wdl[2]), float(wdl[1]), 0.0)
            self.stats.evaluated += 1
            self.stats.playouts += 1

    def _store(self, node: int, state: npt.NDArray[np.float32]) -> None:
        if self._states is None or self._states.shape[1:] != state.shape:
            self._states = np.zeros((1024, *state.shape), np.float32)
        if node >= len(self._states):
            grown = np.zeros((max(node + 1, 2 * len(self._states)), *state.shape), np.float32)
            grown[: len(self._states)] = self._states
            self._states = grown
        self._states[node] = state

    def _apply(self, batch: list[tuple[int, int, int, int]], states: npt.NDArray[np.float32],
               reward: npt.NDArray[np.float32], net: NetOutput) -> None:
        """Stores, expands and backs up the evaluated leaves. Call under the lock."""
        temp = self.params.policy_temperature
        for i, (leaf, _parent, _action, depth) in enumerate(batch):
            self._store(leaf, states[i])
            r = float(reward[i, 0] - reward[i, 2])
            if max(float(reward[i, 0]), float(reward[i, 2])) > TERMINAL_REWARD:
                self._absorbing[leaf] = r
                self.tree.expand(leaf, np.array([ABSORB], np.int32), np.ones(1, np.float32))
                wl, d = -r, 0.0
            else:
                priors = softmax_priors(net.policy[i], temp)
                order = np.argsort(-priors, kind="stable").astype(np.int32)
                self.tree.expand(leaf, ALL_ACTIONS[order], priors[order])
                v = float(net.wdl[i, 0] - net.wdl[i, 2])
                # backup() takes the value for the side to move at the leaf: v - r is that side's
                # view of (reward for the mover) - (value of the new state).
                wl, d = max(-1.0, min(1.0, v - r)), float(net.wdl[i, 1])
            self.tree.backup(leaf, wl, d, 0.0)
            self.stats.depth_sum += depth
        self.stats.playouts += len(batch)
        self.stats.evaluated += len(batch)
        self.stats.batches += 1

    # ---------------------------------------------------------------- results

    def ranked_moves(self) -> list[MoveStats]:
        """The root's moves, best first (by visits, then Q: a latent tree proves nothing)."""
        return ranked_root_moves(self.tree, self.lock)

    def pv(self, first: MoveStats, max_len: int = 32) -> list[int]:
        """The principal variation as engine moves: the most visited actions below ``first``,
        translated to moves on the real board while they are legal there (the model may plan
        through moves that are not)."""
        assert self.root is not None
        pos = self.root.copy()
        pos.push(first.move)
        line = [first.move]
        node = first.node
        movebuf = np.zeros(MAX_MOVES, np.int32)
        with self.lock:
            while node >= 0 and len(line) < max_len and node not in self._absorbing:
                actions, _, visits, *_rest, ids = self.tree.children(node)
                if len(actions) == 0:
                    break
                best = int(np.argmax(visits))
                if visits[best] == 0:
                    break
                n = pos.legal_moves(movebuf)
                legal = {int(pos.policy_index(int(mv))): int(mv) for mv in movebuf[:n]}
                move = legal.get(int(actions[best]))
                if move is None:
                    break
                line.append(move)
                pos.push(move)
                node = int(ids[best])
        return line

    def root_stats(self) -> tuple[int, float, float, float, int, int]:
        """(visits, q, d, m, bound, bound plies) of the root for its side to move; a latent tree
        proves nothing, so the bound is always UNKNOWN."""
        with self.lock:
            visits, _, q, d, m = self.tree.node_stats(ROOT)[:5]
        return int(visits), -float(q), float(d), float(m), UNKNOWN, 0

    def set_tablebase(self, tablebase: Any) -> None:
        """Tables are not probed below a latent root: the model's positions are not boards, and
        positions the model cannot score exactly are never scored by the rules."""

    def describe(self) -> dict[str, Any]:
        """Counters for tests and benchmarks."""
        return {"nodes": int(self.tree.num_nodes), "absorbing": len(self._absorbing),
                "evaluated": self.stats.evaluated, "batches": self.stats.batches}
