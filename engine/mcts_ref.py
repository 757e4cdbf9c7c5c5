"""Pure-Python reference of the Cython tree in ``mcts.pyx``: same interface, same arithmetic.

It exists so the tests can run one search through both and demand identical visit counts; it is
far too slow to play with. Notation and conventions are those of ``mcts.pyx``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np
import numpy.typing as npt

from engine.mcts import (
    COLLISION,
    FULL,
    LOSS,
    NO_NODE,
    ROOT,
    SCHEDULE_DONE,
    TERM_GAME,
    TERM_NONE,
    TERM_PROVEN,
    TERM_TWOFOLD,
    TERMINAL,
    UNKNOWN,
)

MAX_DEPTH = 1024
EDGES_PER_NODE = 40


@dataclass
class _Node:
    parent: int
    move: int
    edges: list[list[float]] | None = None  # [move, prior (float32-rounded), child]
    bound: int = UNKNOWN
    terminal: int = TERM_NONE
    bound_plies: int = 0
    visits: int = 0
    inflight: int = 0
    wl: float = 0.0
    d: float = 0.0
    m: float = 0.0


class RefTree:
    """The reference tree; see ``engine.mcts.Tree`` for each method's contract."""

    def __init__(self, max_nodes: int = 10_000_000) -> None:
        self.max_nodes = max(16, max_nodes)
        self.last_depth = 0
        self.configure()
        self.reset()

    def configure(
        self,
        *,
        cpuct: float = 1.745,
        cpuct_base: float = 38739.0,
        cpuct_factor: float = 3.894,
        cpuct_root: float | None = None,
        fpu_reduction: float = 0.330,
        fpu_root: float | None = None,
        virtual_loss: float = 1.0,
        max_nodes: int | None = None,
        forced_playouts: float = 0.0,
        moves_left_max_effect: float = 0.0,
        moves_left_threshold: float = 0.8,
        moves_left_slope: float = 0.0027,
        moves_left_constant: float = 0.0,
        moves_left_scaled: float = 1.6521,
        moves_left_quadratic: float = -0.6521,
    ) -> None:
        self.forced_k = forced_playouts
        self.m_cap = moves_left_max_effect
        self.m_threshold = moves_left_threshold
        self.m_slope = moves_left_slope
        self.m_constant = moves_left_constant
        self.m_scaled = moves_left_scaled
        self.m_quadratic = moves_left_quadratic
        self.cpuct = cpuct
        self.cpuct_base = cpuct_base
        self.cpuct_factor = cpuct_factor
        self.cpuct_root = cpuct if cpuct_root is None else cpuct_root
        self.fpu_reduction = fpu_reduction
        self.fpu_root = fpu_reduction if fpu_root is None else fpu_root
        self.virtual_loss = virtual_loss
        if max_nodes is not None:
            self.max_nodes = max(16, max_nodes)

    def reset(self) -> None:
        self.root_target = 0
        self.root_rank: list[int] = []
        self.nodes: list[_Node] = [_Node(NO_NODE, 0)]
        self.num_edges = 0

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    def _select_child(self, n: int, is_root: bool) -> int:
        node = self.nodes[n]
        assert node.edges is not None
        parent_n = float(node.visits + node.inflight)
        base = self.cpuct_root if is_root else self.cpuct
        cpuct = base + self.cpuct_factor * math.log((parent_n + self.cpuct_base) / self.cpuct_base)
        sqrt_n = math.sqrt(parent_n if parent_n > 1.0 else 1.0)
        parent_q = -node.wl / node.visits if node.visits > 0 else 0.0
        m_on = node.visits > 0 and self.m_cap > 0.0 and abs(parent_q) > self.m_threshold
        parent_m = node.m / node.visits if node.visits > 0 else 0.0
        visited_policy = 0.0
        for _, prior, child in node.edges:
            c = int(child)
            if c >= 0 and self.nodes[c].visits + self.nodes[c].inflight > 0:
                visited_policy += prior
        fpu = parent_q - (self.fpu_root if is_root else self.fpu_reduction) * math.sqrt(
            visited_policy
        )
        best, best_score = 0, -1e300
        for i, (_, prior, child) in enumerate(node.edges):
            c = int(child)
            if c < 0:
                if fpu + cpuct * prior * sqrt_n > best_score:
                    best = i
                break
            cn = self.nodes[c]
            started = cn.visits + cn.inflight
            if cn.terminal != TERM_NONE and cn.bound != UNKNOWN:
                score = float(cn.bound)
            elif (is_root and self.forced_k > 0 and started > 0
                  and started < math.sqrt(self.forced_k * prior * parent_n)):
                return i
            else:
                q = fpu if started == 0 else (cn.wl - self.virtual_loss * cn.inflight) / started
                score = q + cpuct * prior * sqrt_n / (1.0 + started)
                if m_on and cn.visits > 0:
                    score += self.moves_left_utility(cn.m / cn.visits, parent_m,
                                                     cn.wl / cn.visits)
            if score > best_score:
                best_score, best = score, i
        return best

    def moves_left_utility(self, child_m: float, parent_m: float, q: float) -> float:
        m = min(self.m_cap, max(-self.m_cap, self.m_slope * (child_m - parent_m)))
        if q > 0.0:
            m = -m
        a = abs(q)
        if 0.0 < self.m_threshold < 1.0:
            a = max(0.0, a - self.m_threshold) / (1.0 - self.m_threshold)
        return m * (self.m_constant + self.m_scaled * a + self.m_quadratic * a * a)

    def _select_scheduled(self) -> int:
        edges = self.nodes[ROOT].edges or []
        best, best_started = -1, 0
        for i, (_, _, child) in enumerate(edges[:256]):
            rank = self.root_rank[i]
            if rank < 0:
                continue
            c = int(child)
            started = self.nodes[c].visits + self.nodes[c].inflight if c >= 0 else 0
            if started >= self.root_target:
                continue
            if best < 0 or started < best_started or (
                    started == best_started and rank < self.root_rank[best]):
                best, best_started = i, started
        return best

    def is_expanded(self, n: int) -> bool:
        return self.nodes[n].edges is not None

    def set_root_schedule(self, ranks: Iterable[int], target: int) -> None:
        ranks = [int(r) for r in ranks]
        k = len(self.nodes[ROOT].edges or [])
        if target > 0 and len(ranks) != k:
            raise ValueError(f"{len(ranks)} ranks for {k} root moves")
        self.root_rank = ranks if target > 0 else []
        self.root_target = max(0, target)

    def select(self, path: npt.NDArray[np.int32]) -> int:
        n, depth = ROOT, 0
        while True:
            node = self.nodes[n]
            if n != ROOT and node.terminal != TERM_NONE:
                node.inflight += 1
                self.last_depth = depth
                self._backup_exact(n)
                return TERMINAL
            if node.edges is None:
                if node.inflight > 0:
                    self._revert(node.parent)
                    self.last_depth = depth
                    return COLLISION
                node.inflight += 1
                self.last_depth = depth
                return n
            if not node.edges:
                self.last_depth = depth
                return COLLISION
            if n == ROOT and self.root_target > 0:
                k = self._select_scheduled()
                if k < 0:
                    self.last_depth = depth
                    return SCHEDULE_DONE
                node.inflight += 1
            else:
                node.inflight += 1
                k = self._select_child(n, n == ROOT)
            edge = node.edges[k]
            if depth >= MAX_DEPTH or depth >= len(path):
                self._revert(n)
                self.last_depth = depth
                return COLLISION
            path[depth] = int(edge[0])
            depth += 1
            child = int(edge[2])
            if child < 0:
                if (len(self.nodes) >= self.max_nodes
                        or self.num_edges >= self.max_nodes * EDGES_PER_NODE):
                    self._revert(n)
                    self.last_depth = depth
                    return FULL
                child = len(self.nodes)
                self.nodes.append(_Node(n, int(edge[0])))
                edge[2] = child
            n = child

    def _revert(self, n: int) -> None:
        while n != NO_NODE:
            self.nodes[n].inflight -= 1
            n = self.nodes[n].parent

    def expand(self, n: int, moves: Iterable[int], priors: Iterable[float]) -> None:
        node = self.nodes[n]
        if node.edges is not None:
            return
        edges = [[int(m), float(np.float32(p)), NO_NODE] for m, p in zip(moves, priors)]
        # Stable sort, highest prior first, as the Cython insertion sort does.
        edges.sort(key=lambda e: -e[1])
        node.edges = edges
        self.num_edges += len(edges)

    def backup(self, n: int, wl: float, d: float, m: float) -> None:
        v = -wl
        while n != NO_NODE:
            node = self.nodes[n]
            node.inflight -= 1
            node.visits += 1
            node.wl += v
            node.d += d
            node.m += m
            v = -v
            m += 1.0
            n = node.parent

    def set_terminal(self, n: int, result: int, plies: int, kind: int) -> None:
        node = self.nodes[n]
        node.terminal, node.bound, node.bound_plies = kind, result, plies
        if n != ROOT:
            self._prove(node.parent)

    def backup_terminal(self, n: int) -> None:
        self._backup_exact(n)

    def _backup_exact(self, n: int) -> None:
        node = self.nodes[n]
        plies = node.bound_plies - 1
        self.backup(n, -float(node.bound), 1.0 if node.bound == 0 else 0.0, max(plies, 0))

    def _prove(self, n: int) -> None:
        while n != NO_NODE:
            node = self.nodes[n]
            if node.edges is None or node.terminal == TERM_GAME:
                return
            proven = [
                self.nodes[int(c)] for _, _, c in node.edges
                if int(c) >= 0 and self.nodes[int(c)].terminal != TERM_NONE
            ]
            wins = [c.bound_plies for c in proven if c.bound == 1]
            all_proven = len(proven) == len(node.edges)
            draws = [c.bound_plies for c in proven if c.bound == 0]
            if wins:
                node.bound, node.bound_plies = LOSS, min(wins) + 1
            elif all_proven and draws:
                node.bound, node.bound_plies = 0, max(draws) + 1
            elif all_proven:
                node.bound, node.bound_plies = 1, max(c.bound_plies for c in proven) + 1
            else:
                return
            node.terminal = TERM_PROVEN
            n = node.parent

    def node_stats(self, n: int) -> tuple[int, int, float, float, float, int, int, int]:
        node = self.nodes[n]
        v = node.visits
        return (v, node.inflight, node.wl / v if v else 0.0, node.d / v if v else 0.0,
                node.m / v if v else 0.0, node.bound, node.bound_plies, node.terminal)

    def children(self, n: int) -> tuple[npt.NDArray[np.generic], ...]:
        edges = self.nodes[n].edges or []
        k = len(edges)
        moves = np.array([int(e[0]) for e in edges], dtype=np.int32)
        priors = np.array([e[1] for e in edges], dtype=np.float32)
        visits, q = np.zeros(k, dtype=np.int64), np.zeros(k)
        d, m = np.zeros(k), np.zeros(k)
        bound, plies = np.full(k, UNKNOWN, dtype=np.int8), np.zeros(k, dtype=np.int32)
        ids = np.array([int(e[2]) for e in edges], dtype=np.int32)
        for i, c in enumerate(ids):
            if c < 0:
                continue
            cn = self.nodes[c]
            visits[i] = cn.visits
            if cn.visits:
                q[i], d[i], m[i] = cn.wl / cn.visits, cn.d / cn.visits, cn.m / cn.visits
            if cn.terminal != TERM_NONE:
                bound[i], plies[i] = cn.bound, cn.bound_plies
        return moves, priors, visits, q, d, m, bound, plies, ids

    def reroot(self, moves: Iterable[int]) -> bool:
        n = ROOT
        for mv in moves:
            edges = self.nodes[n].edges
            child = next((int(e[2]) for e in edges or [] if int(e[0]) == mv), NO_NODE)
            if child < 0:
                self.reset()
                return False
            n = child
        self.root_target = 0
        if n != ROOT:
            self._compact(n)
        for node in self.nodes:
            if node.terminal in (TERM_PROVEN, TERM_TWOFOLD):
                if node.terminal == TERM_TWOFOLD:
                    node.edges = None
                node.terminal, node.bound = TERM_NONE, UNKNOWN
        if n != ROOT and self.nodes[ROOT].edges is None:  # a dropped repetition draw
            self.reset()
            return False
        return True

    def _compact(self, new_root: int) -> None:
        old = self.nodes
        order = [new_root]
        remap = {new_root: 0}
        head = 0
        while head < len(order):
            for e in old[order[head]].edges or []:
                if int(e[2]) >= 0:
                    remap[int(e[2])] = len(order)
                    order.append(int(e[2]))
            head += 1
        nodes = []
        for i, o in enumerate(order):
            node = old[o]
            node.parent = NO_NODE if i == 0 else remap[node.parent]
            for e in node.edges or []:
                if int(e[2]) >= 0:
                    e[2] = remap[int(e[2])]
            nodes.append(node)
        self.nodes = nodes
        self.num_edges = sum(len(n.edges or []) for n in nodes)
