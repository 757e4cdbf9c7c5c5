"""Root rules that learn more per visit: Gumbel AlphaZero and KataGo's policy target pruning.

Gumbel AlphaZero (Danihelka et al., ICLR 2022; mctx's ``gumbel_muzero_policy``), notation as
there, for the root's legal moves ``a``:
    logits[a]   log of the root prior (the tree's edge priors)
    g[a]        Gumbel(0, 1) noise, drawn once per search (0 when playing for strength)
    q[a]        completed Q: the searched Q of a visited move (proven results exact), the mixed
                value ``v_mix`` (the root value blended with the prior-weighted Q of the visited
                moves) for an unvisited one; rescaled to [0, 1] over the root's moves
    sigma(q)    (c_visit + max_b N[b]) * c_scale * q   (q min-max rescaled unless
                ``rescale_values`` is off)
The search considers the ``m`` moves with the highest ``g + logits`` (Gumbel-top-k: a sample
without replacement from the policy), then halves them by ``g + logits + sigma(q)`` after each
phase of sequential halving, with mctx's visit schedule. The move played is the best of those
scores among the most visited moves; the policy target is ``softmax(logits + sigma(q))`` over
all legal moves (the improved policy), which, unlike visit counts, is a good target at 16 visits.

The tree does the visiting (``Tree.set_root_schedule``): this module only decides, between the
batches, which moves are considered and how many visits each must reach. Below the root: PUCT.

KataGo's policy target pruning (Wu 2019), for PUCT searches with forced playouts: from every move
but the most visited, subtract visits (at most its forced ``sqrt(k P N)``) for as long as its
PUCT score stays below the best move's; a move left with one visit is dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.mcts import DRAW, LOSS, ROOT, WIN


@dataclass(frozen=True, kw_only=True)
class GumbelParams:
    """Gumbel root settings, mctx's names and defaults."""

    simulations: int = 32
    """visits below the root per search (the root's own evaluation not counted)."""
    max_num_considered_actions: int = 16
    gumbel_scale: float = 1.0
    """scale of the Gumbel noise (0: deterministic, for play)."""
    maxvisit_init: float = 50.0
    """c_visit."""
    value_scale: float = 0.1
    """c_scale."""
    rescale_values: bool = True
    """min-max rescale the completed Q over the root's moves before scaling (mctx's default,
    made for unbounded returns); off: W-L as it is, so that moves whose values differ by noise
    alone are not spread over the whole scale."""
    prior_temperature: float = 1.0
    """softmax temperature the tree's priors were made with (SearchParams.policy_temperature):
    undone for the logits, so that the policy target is in the network's own scale."""


def halving_phases(max_considered: int, simulations: int) -> list[tuple[int, int]]:
    """Sequential halving as (moves considered, visits each must reach) per phase: mctx's
    ``get_sequence_of_considered_visits`` grouped by phase. The phases' visits add up to at
    least ``simulations``; the search stops at ``simulations`` within the last phase."""
    if simulations <= 0:
        return []
    if max_considered <= 1:
        return [(1, simulations)]
    log2max = math.ceil(math.log2(max_considered))
    phases: list[tuple[int, int]] = []
    considered, visits, used = max_considered, 0, 0
    while used < simulations:
        extra = max(1, int(simulations / (log2max * considered)))
        visits += extra
        used += extra * considered
        phases.append((considered, visits))
        considered = max(2, considered // 2)
    return phases


def completed_q(tree: Any, prior_temperature: float = 1.0) -> tuple[
        npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """(logits, visits, completed Q in [-1, 1]) over the root's edges, for the root's side;
    logits up to a constant, the priors' temperature undone."""
    _, priors, visits, q, _, _, bound, _, _ = tree.children(ROOT)
    q = q.astype(np.float64).copy()
    q[bound == WIN] = 1.0
    q[bound == DRAW] = 0.0
    q[bound == LOSS] = -1.0
    searched = (visits > 0) | (bound == WIN) | (bound == DRAW) | (bound == LOSS)
    root_n, _, root_q = tree.node_stats(ROOT)[:3]
    raw = -float(root_q)  # node_stats' Q is for the side that moved into the root
    p = np.maximum(priors.astype(np.float64), 1e-30)
    if searched.any():
        weighted = float((p[searched] * q[searched]).sum() / p[searched].sum())
        n = float(visits.sum())
        v_mix = (raw + n * weighted) / (n + 1.0)
    else:
        v_mix = raw
    return prior_temperature * np.log(p), visits.astype(np.int64), np.where(searched, q, v_mix)


def sigma(q: npt.NDArray[np.float64], visits: npt.NDArray[np.int64],
          params: GumbelParams) -> npt.NDArray[np.float64]:
    """mctx's qtransform_completed_by_mix_value after completion: min-max rescale (unless
    ``rescale_values`` is off), then scale."""
    scaled = q
    if params.rescale_values:
        lo, hi = float(q.min()), float(q.max())
        scaled = (q - lo) / max(hi - lo, 1e-8)
    return (params.maxvisit_init + float(visits.max(initial=0))) * params.value_scale * scaled


class GumbelRoot:
    """Drives one Gumbel search's root through the phases of sequential halving.

    Use: after the root is expanded, ``begin``; after every batch is backed up, ``advance``
    while it returns True the search goes on; then ``choose`` and ``improved_policy``.
    """

    def __init__(self, params: GumbelParams, rng: np.random.Generator) -> None:
        self.params = params
        self.rng = rng
        self.g = np.zeros(0)
        self.remaining = np.zeros(0, np.int64)
        self.phases: list[tuple[int, int]] = []
        self.phase = -1
        self.start_visits = 0
        self.done = False

    @property
    def begun(self) -> bool:
        return self.phase >= 0

    def _completed(self, tree: Any) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64],
                                            npt.NDArray[np.float64]]:
        return completed_q(tree, self.params.prior_temperature)

    def begin(self, tree: Any) -> None:
        """Draws the noise, picks the considered moves (Gumbel-top-k), starts phase 0."""
        logits, _, _ = self._completed(tree)
        k = len(logits)
        self.g = self.rng.gumbel(size=k) * self.params.gumbel_scale
        m = min(self.params.max_num_considered_actions, k)
        self.remaining = np.argsort(-(self.g + logits), kind="stable")[:m]
        self.phases = halving_phases(m, self.params.simulations)
        self.start_visits = int(tree.node_stats(ROOT)[0])
        self.phase = 0
        self._schedule(tree)

    def step(self, tree: Any) -> bool:
        """Between batches: begins once the root is expanded, then advances; returns whether a
        phase began (its visits start with the next batch)."""
        if not self.begun:
            if not tree.is_expanded(ROOT):
                return False
            self.begin(tree)
            return True
        phase = self.phase
        self.advance(tree)
        return self.phase != phase

    def visits_left(self, tree: Any) -> int:
        """Visits still to start in this search (0 once done)."""
        if not self.begun:
            return 1
        visits, inflight = tree.node_stats(ROOT)[:2]
        return max(0, self.start_visits + self.params.simulations - int(visits) - int(inflight))

    def advance(self, tree: Any) -> bool:
        """Moves to the next phase once every considered move has its visits (nothing in
        flight), halving the considered moves; returns whether the search goes on."""
        if self.done:
            return False
        if self.visits_left(tree) <= 0:
            tree.set_root_schedule([], 0)
            self.done = True
            return False
        _, inflight = tree.node_stats(ROOT)[:2]
        target = self.phases[self.phase][1]
        visits = tree.children(ROOT)[2]
        if inflight or (visits[self.remaining] < target).any():
            return True
        if self.phase + 1 >= len(self.phases):
            tree.set_root_schedule([], 0)  # every phase done below the budget: stop here
            self.done = True
            return False
        self.phase += 1
        keep = self.phases[self.phase][0]
        scores = self.scores(tree)[self.remaining]
        self.remaining = self.remaining[np.argsort(-scores, kind="stable")[:keep]]
        self._schedule(tree)
        return True

    def _schedule(self, tree: Any) -> None:
        ranks = np.full(len(self.g), -1, np.int64)
        ranks[self.remaining] = np.arange(len(self.remaining))
        tree.set_root_schedule(ranks.tolist(), self.phases[self.phase][1])

    def scores(self, tree: Any, noise: bool = True) -> npt.NDArray[np.float64]:
        """g + logits + sigma(q) per root edge (without g when ``noise`` is False)."""
        logits, visits, q = self._completed(tree)
        return (self.g if noise else 0.0) + logits + sigma(q, visits, self.params)

    def choose(self, tree: Any, noise: bool = True) -> int:
        """Edge index of the move to play: a proven win (the shortest) if the tree holds one,
        else the best score among the most visited considered moves (mctx), the Gumbel noise
        left out when ``noise`` is False. (A weak prior can keep a mate out of the considered
        moves' last phase; found, it is never given up.)"""
        _, _, visits, _, _, _, bound, plies, _ = tree.children(ROOT)
        wins = np.flatnonzero(bound == WIN)
        if len(wins):
            return int(wins[np.argmin(plies[wins])])
        cands = self.remaining[visits[self.remaining] == visits[self.remaining].max()]
        return int(cands[np.argmax(self.scores(tree, noise)[cands])])

    def improved_policy(self, tree: Any) -> npt.NDArray[np.float64]:
        """softmax(logits + sigma(completed q)) over the root's edges (sums to 1)."""
        return self._improved(*self._completed(tree))

    def _improved(self, logits: npt.NDArray[np.float64], visits: npt.NDArray[np.int64],
                  q: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        z = logits + sigma(q, visits, self.params)
        z -= z.max()
        p = np.exp(z)
        return np.asarray(p / p.sum())

    def improved_value(self, tree: Any) -> tuple[float, float]:
        """The improved policy's expected completed (Q, D): W-L for the root's side and the
        draw share, the value the search found for the position. The root's mean is no such
        value under sequential halving, which spends its first phase's visits on every
        considered move alike. Unvisited moves' D is the root's; D is kept within 1 - |Q| so
        that W and L stay probabilities."""
        logits, visits, q = self._completed(tree)
        pi = self._improved(logits, visits, q)
        _, _, _, _, d, _, bound, _, _ = tree.children(ROOT)
        d = np.where(visits > 0, d, float(tree.node_stats(ROOT)[3])).astype(np.float64)
        d[(bound == WIN) | (bound == LOSS)] = 0.0
        d[bound == DRAW] = 1.0
        value = float(pi @ q)
        return value, min(float(pi @ d), 1.0 - abs(value))


def pruned_visits(priors: npt.NDArray[np.floating[Any]], visits: npt.NDArray[np.integer[Any]],
                  q: npt.NDArray[np.floating[Any]], k: float, cpuct: float) -> npt.NDArray[np.int64]:
    """KataGo's policy target pruning over the root's moves (edge order): visits with the
    forced playouts that did not earn their place removed. ``cpuct`` is the root's c_puct at
    the root's visit count, ``q`` each move's Q for the root's side (unvisited: ignored)."""
    counts: npt.NDArray[np.int64] = np.asarray(visits, np.int64)
    out = counts.copy()
    total = float(counts.sum())
    if total <= 0 or k <= 0:
        return out
    sqrt_n = math.sqrt(total)
    best = int(np.argmax(counts))
    best_score = float(q[best]) + cpuct * float(priors[best]) * sqrt_n / (1.0 + counts[best])
    for i in range(len(counts)):
        n = int(counts[i])
        if i == best or n == 0:
            continue
        forced = math.sqrt(k * float(priors[i]) * total)
        gap = best_score - float(q[i])
        # Fewest visits n' keeping q + cpuct P sqrt(N) / (1 + n') <= the best's score.
        need = n if gap <= 0 else max(0, math.ceil(cpuct * float(priors[i]) * sqrt_n / gap - 1.0))
        kept = max(need, n - int(math.floor(forced)), 0)
        kept = min(kept, n)
        out[i] = 0 if kept <= 1 else kept
    return out


def pruned_root_visits(tree: Any, params: Any) -> tuple[npt.NDArray[np.int32],
                                                         npt.NDArray[np.int64]]:
    """(moves, pruned visits) of a PUCT search's root whose tree ran with
    ``params.forced_playouts`` (SearchParams), c_puct grown as the tree grows it."""
    moves, priors, visits, q = tree.children(ROOT)[:4]
    n = float(visits.sum()) + 1.0  # the root's own visit
    cpuct = params.cpuct + params.cpuct_factor * math.log((n + params.cpuct_base)
                                                          / params.cpuct_base)
    return moves, pruned_visits(priors, visits, q, params.forced_playouts, cpuct)


def run_search(search: Any, params: GumbelParams, rng: np.random.Generator) -> GumbelRoot:
    """One Gumbel search on ``search`` (already at its root position), batch after batch;
    returns the driver, for ``choose`` and ``improved_policy``. Blocks. (Self-play interleaves
    many of these in trainer/play/selfplay.py; this is the one-search form.)"""
    from engine import contract

    root = GumbelRoot(params, rng)
    planes = np.zeros((search.params.minibatch_size, contract.NUM_PLANES, 8, 8), np.float32)
    batch = search.new_batch()
    stalls = 0
    while stalls < 3:
        left = root.visits_left(search.tree)
        if root.done or left <= 0:
            break
        before = int(search.tree.node_stats(ROOT)[0])
        with search.lock:
            count = search.gather(batch, planes, 0, left)
        if count:
            search.apply(batch, search.evaluator.evaluate(planes[:count]), 0)
        if not root.begun:
            root.step(search.tree)
            continue
        new_phase = root.step(search.tree)
        if root.done:
            break
        # Neither a visit nor a new phase three times running: nothing left to search.
        progressed = int(search.tree.node_stats(ROOT)[0]) != before or new_phase
        stalls = 0 if progressed else stalls + 1
    return root
