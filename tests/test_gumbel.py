"""Gumbel AlphaZero's root, KataGo's forced playouts and policy target pruning (engine/gumbel.py,
the root rules of engine/mcts.pyx and their reference in engine/mcts_ref.py)."""

from __future__ import annotations

import math
from typing import Any

import chess
import numpy as np
import numpy.typing as npt
import pytest

from engine import contract
from engine.board import Position
from engine.evaluator import NetOutput
from engine.gumbel import GumbelParams, GumbelRoot, halving_phases, pruned_visits, run_search
from engine.mcts import ROOT, SCHEDULE_DONE, WIN, Tree
from engine.mcts_ref import RefTree
from engine.search import Search, SearchParams
from tests.fakes import HashEvaluator


def mctx_sequence(max_considered: int, simulations: int) -> list[int]:
    """mctx's get_sequence_of_considered_visits, transcribed as the reference."""
    if max_considered <= 1:
        return list(range(simulations))
    log2max = int(math.ceil(math.log2(max_considered)))
    sequence: list[int] = []
    visits = [0] * max_considered
    considered = max_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return sequence[:simulations]


@pytest.mark.parametrize("m,n", [(16, 32), (16, 200), (8, 16), (4, 10), (2, 7), (16, 9), (5, 50)])
def test_halving_phases_follow_mctx(m: int, n: int) -> None:
    seq: list[int] = []
    before = 0
    for considered, visits in halving_phases(m, n):
        for v in range(before, visits):
            seq.extend([v] * considered)
        before = visits
    assert seq[:n] == mctx_sequence(m, n)


def bandit(tree_factory: Any, values: list[float], priors: list[float], params: GumbelParams,
           seed: int = 0) -> tuple[Any, GumbelRoot, list[int]]:
    """A root whose moves are arms with fixed values (for the root's side): every visit to a
    move backs that value up. Returns the tree, the driver and the moves in visit order."""
    tree = tree_factory()
    k = len(values)
    path = np.zeros(8, np.int32)
    assert tree.select(path) == ROOT  # the root's own evaluation
    tree.expand(ROOT, np.arange(k, dtype=np.int32), np.asarray(priors, np.float32))
    tree.backup(ROOT, 0.0, 0.0, 0.0)
    root = GumbelRoot(params, np.random.default_rng(seed))
    root.begin(tree)
    order = []
    while not root.done:
        leaf = tree.select(path)
        if leaf == SCHEDULE_DONE:
            root.advance(tree)
            continue
        assert tree.last_depth == 1
        move = int(path[0])
        order.append(move)
        tree.backup(leaf, -values[move], 0.0, 0.0)  # the leaf's side to move is the opponent
        root.advance(tree)
    return tree, root, order


@pytest.mark.parametrize("tree_factory", [Tree, RefTree])
def test_sequential_halving_keeps_the_best_moves(tree_factory: Any) -> None:
    values = [0.1, -0.5, 0.9, 0.0, 0.5, -0.9, 0.3, 0.7]
    params = GumbelParams(simulations=32, max_num_considered_actions=8, gumbel_scale=0.0)
    tree, root, order = bandit(tree_factory, values, [1 / 8] * 8, params)
    visits = tree.children(ROOT)[2]
    moves = tree.children(ROOT)[0]
    by_move = {int(m): int(v) for m, v in zip(moves, visits)}
    assert sum(by_move.values()) == 32
    # Phases (8 x 1), (4 x 2), (2 x 4) ... : every move once, then the best 4, then the best 2.
    assert set(order[:8]) == set(range(8))
    assert set(order[8:12]) == {2, 7, 4, 6}
    kept = {int(moves[i]) for i in root.remaining}
    assert kept == {2, 7}
    assert by_move[2] >= by_move[7] > by_move[4] >= by_move[6] > by_move[0]
    assert int(moves[root.choose(tree, noise=False)]) == 2


def test_gumbel_schedule_same_in_cython_and_reference() -> None:
    values = list(np.random.default_rng(3).uniform(-1, 1, 20))
    priors = list(np.random.default_rng(4).dirichlet([0.5] * 20))
    params = GumbelParams(simulations=50, max_num_considered_actions=16)
    _, _, fast = bandit(Tree, values, priors, params, seed=11)
    _, _, ref = bandit(RefTree, values, priors, params, seed=11)
    assert fast == ref and len(fast) == 50


def test_improved_policy_sums_to_one_and_prefers_the_better_move() -> None:
    values = [0.0, 0.8, -0.3]
    priors = [0.6, 0.2, 0.2]
    tree, root, _ = bandit(Tree, values, priors, GumbelParams(simulations=12))
    moves = tree.children(ROOT)[0]
    policy = dict(zip(moves.tolist(), root.improved_policy(tree)))
    assert sum(policy.values()) == pytest.approx(1.0, abs=1e-9)
    assert all(p > 0 for p in policy.values())
    # The search found move 1 best: it outweighs the prior's favourite in the target.
    assert policy[1] > policy[0] > policy[2]


def test_without_rescaling_close_values_barely_move_the_policy() -> None:
    # Two moves whose values differ by 0.02: min-max rescaling spreads them over the whole scale
    # (c_visit + N) * c_scale; without it the target stays near the prior.
    values = [0.10, 0.12]
    priors = [0.5, 0.5]
    for rescale, low, high in ((True, 0.9, 1.0), (False, 0.5, 0.7)):
        params = GumbelParams(simulations=12, rescale_values=rescale)
        tree, root, _ = bandit(Tree, values, priors, params)
        moves = tree.children(ROOT)[0]
        policy = dict(zip(moves.tolist(), root.improved_policy(tree)))
        assert low < policy[1] < high, (rescale, policy)


def test_improved_value_is_the_best_moves_worth_not_the_roots_mean() -> None:
    # Sequential halving visits every considered move in its first phase: the root's mean is
    # dragged down by the moves it eliminates; the improved value leans on the best.
    values = [0.1, -0.5, 0.9, 0.0, 0.5, -0.9, 0.3, 0.7]
    params = GumbelParams(simulations=32, max_num_considered_actions=8, gumbel_scale=0.0)
    tree, root, _ = bandit(Tree, values, [1 / 8] * 8, params)
    root_mean = -float(tree.node_stats(ROOT)[2])
    improved, draw = root.improved_value(tree)
    assert root_mean < 0.6 < improved <= 0.9
    policy = root.improved_policy(tree)
    q = np.asarray(values, np.float64)[tree.children(ROOT)[0]]
    assert improved == pytest.approx(float(policy @ q), abs=1e-6)
    assert draw == 0.0  # the bandit's leaves back up no draws


def test_improved_draw_share_keeps_w_and_l_probabilities() -> None:
    # Leaves that are all draws or all decisive: the improved (Q, D) is their improved-policy
    # mix, and W = (1 + Q - D) / 2 and L = (1 - Q - D) / 2 are never negative.
    tree = Tree()
    path = np.zeros(64, np.int32)
    assert tree.select(path) == ROOT
    tree.expand(ROOT, np.arange(3, dtype=np.int32), np.full(3, 1 / 3, np.float32))
    tree.backup(ROOT, 0.0, 0.9, 0.0)
    root = GumbelRoot(GumbelParams(simulations=12, gumbel_scale=0.0), np.random.default_rng(0))
    root.begin(tree)
    leaf_values = {0: (0.0, 1.0), 1: (-0.8, 0.2), 2: (0.9, 0.0)}  # (Q, D) for the leaf's side
    while not root.done:
        leaf = tree.select(path)
        if leaf == SCHEDULE_DONE:
            root.advance(tree)
            continue
        v, d = leaf_values[int(path[0])]
        tree.backup(leaf, v, d, 0.0)
        root.advance(tree)
    q, d = root.improved_value(tree)
    assert 0.0 <= d <= 1.0 - abs(q) + 1e-12
    assert (1 + q - d) / 2 >= 0 and (1 - q - d) / 2 >= 0
    assert q > 0.5  # move 1 (the leaf's side at -0.8) is the root side's best


def test_value_target_keeps_the_search_value() -> None:
    """A D inconsistent with Q (Q 0.9 with D 0.3) is capped, not renormalised: W - L stays Q."""
    from trainer.data.replay import Batch
    from trainer.learn.train import value_target

    n = 3
    q = np.array([0.9, -0.5, 0.0], np.float32)
    d = np.array([0.3, 0.2, 0.6], np.float32)
    b = Batch(planes=np.zeros((n, 112, 8, 8), np.float32), policy=np.zeros((n, 1858), np.float32),
              has_policy=np.ones(n, np.bool_), wdl=np.tile(np.float32([0, 1, 0]), (n, 1)),
              root_q=q, root_d=d, plies_left=np.full(n, -1, np.float32))
    t = value_target(b, 1.0)
    assert np.allclose(t.sum(1), 1.0) and (t >= 0).all()
    assert np.allclose(t[:, 0] - t[:, 2], q, atol=1e-6)
    assert t[0, 1] == pytest.approx(0.1) and t[1, 1] == pytest.approx(0.2)


class BishopOnB5:
    """A fake net: uniform policy; a white bishop on b5 wins for White, wherever it stands in
    the tree (the current position's planes: "their" bishop seen from Black, ranks flipped, or
    "our" bishop seen from White); any other position is even."""

    def evaluate(self, planes: npt.NDArray[np.float32]) -> NetOutput:
        n = len(planes)
        black_lost = planes[:, 8, 3, 1] > 0  # Black to move: White's bishop is plane 8
        white_won = planes[:, 2, 4, 1] > 0  # White to move: our bishops, plane 2
        wdl = np.tile(np.array([0.1, 0.8, 0.1], np.float32), (n, 1))
        wdl[black_lost] = [0.0, 0.0, 1.0]
        wdl[white_won] = [1.0, 0.0, 0.0]
        return NetOutput(np.zeros((n, contract.POLICY_SIZE), np.float32), wdl, None)


@pytest.mark.parametrize("seed", range(5))
def test_gumbel_search_finds_the_known_best_move(seed: int) -> None:
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    good = "f1b5"
    search = Search(BishopOnB5(), SearchParams(minibatch_size=8, seed=seed))
    search.set_position(Position.from_board(board), [])
    root = run_search(search, GumbelParams(simulations=64, max_num_considered_actions=32),
                      np.random.default_rng(seed))
    tree = search.tree
    moves = tree.children(ROOT)[0]
    assert int(tree.node_stats(ROOT)[0]) == 65
    # Gumbel-top-k may leave the good move out of the last phase (the noise is a sample
    # from the policy, uniform here); with 32 considered out of 27 legal moves it is in, and
    # without the noise in the final choice (play for strength) it is picked.
    best = int(moves[root.choose(tree, noise=False)])
    assert chess.Move.from_uci(good) == chess.Move(best & 63, (best >> 6) & 63)
    policy = root.improved_policy(tree)
    assert policy.sum() == pytest.approx(1.0)
    assert int(moves[int(np.argmax(policy))]) == best


def test_gumbel_search_takes_a_mate_in_one() -> None:
    board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    search = Search(HashEvaluator(), SearchParams(minibatch_size=8))
    search.set_position(Position.from_board(board), [])
    root = run_search(search, GumbelParams(simulations=40, max_num_considered_actions=32),
                      np.random.default_rng(0))
    moves, _, _, _, _, _, bound = search.tree.children(ROOT)[:7]
    best = int(moves[root.choose(search.tree, noise=False)])
    assert (bound == WIN).sum() == 1  # the mate is proven in the tree
    assert chess.Move(best & 63, (best >> 6) & 63).uci() == "a1a8"


@pytest.mark.parametrize("tree_factory", [Tree, RefTree])
def test_forced_playouts_visit_a_starved_child(tree_factory: Any) -> None:
    """A child below sqrt(k P N) visits is selected before the PUCT comparison."""
    tree = tree_factory()
    tree.configure(forced_playouts=2.0)
    tree.expand(ROOT, np.arange(3, dtype=np.int32), np.array([0.5, 0.3, 0.2], np.float32))
    path = np.zeros(8, np.int32)
    # Move 0 strong, 1 and 2 visited once each with a bad value.
    values = {0: 0.9, 1: -0.9, 2: -0.9}
    for target in (0, 1, 2):
        tree.set_root_schedule([0 if i == target else -1 for i in range(3)], 1)
        leaf = tree.select(path)
        tree.backup(leaf, -values[target], 0.0, 0.0)
    tree.set_root_schedule([], 0)
    picks = []
    for _ in range(40):
        leaf = tree.select(path)
        picks.append(int(path[0]))
        tree.backup(leaf, -values[int(path[0])], 0.0, 0.0)
    visits = dict(zip(tree.children(ROOT)[0].tolist(), tree.children(ROOT)[2].tolist()))
    total = sum(visits.values())
    # Each weak move holds at least its forced share, floor(sqrt(2 P N)) minus the last visit.
    assert visits[1] >= math.floor(math.sqrt(2 * 0.3 * total)) - 1
    assert visits[2] >= math.floor(math.sqrt(2 * 0.2 * total)) - 1
    off = tree_factory()
    off.expand(ROOT, np.arange(3, dtype=np.int32), np.array([0.5, 0.3, 0.2], np.float32))
    for target in (0, 1, 2):
        off.set_root_schedule([0 if i == target else -1 for i in range(3)], 1)
        leaf = off.select(path)
        off.backup(leaf, -values[target], 0.0, 0.0)
    off.set_root_schedule([], 0)
    for _ in range(40):
        leaf = off.select(path)
        off.backup(leaf, -values[int(path[0])], 0.0, 0.0)
    plain = dict(zip(off.children(ROOT)[0].tolist(), off.children(ROOT)[2].tolist()))
    assert visits[1] + visits[2] > plain[1] + plain[2]


def test_policy_target_pruning_on_a_fixed_root() -> None:
    priors = np.array([0.4, 0.3, 0.2, 0.1])
    q = np.array([0.5, -0.6, 0.55, -0.8])
    visits = np.array([60, 8, 25, 2])
    k, cpuct = 2.0, 2.0
    kept = pruned_visits(priors, visits, q, k, cpuct)
    total = visits.sum()
    assert kept[0] == 60  # the most visited move is never pruned
    # A weak move is cut by at most its forced playouts...
    assert kept[1] >= visits[1] - math.floor(math.sqrt(k * priors[1] * total))
    assert kept[1] < visits[1]
    # ...a move left with one visit or less is dropped, a move that earned its visits stays.
    assert kept[3] == 0
    assert kept[2] == 25
    # Without forced playouts nothing is pruned.
    assert (pruned_visits(priors, visits, q, 0.0, cpuct) == visits).all()
