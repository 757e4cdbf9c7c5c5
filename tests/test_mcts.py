"""The Cython tree against its Python reference, and the search's exact-value handling."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from engine.board import Position, move_from_uci, move_to_uci
from engine.mcts import FULL, LOSS, ROOT, UNKNOWN, WIN, Tree
from engine.mcts_ref import RefTree
from engine.search import Search, SearchParams
from engine.evaluator import OnnxEvaluator, UniformEvaluator
from tests.fakes import HashEvaluator

FENS = [
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
]


@pytest.fixture(scope="module")
def maia_evaluator(maia_path) -> OnnxEvaluator:
    return OnnxEvaluator(str(maia_path), threads=2)


def run_search(fen: str, tree_factory, nodes: int, batch: int = 8, evaluator=None,
               **kw) -> Search:
    search = Search(evaluator or HashEvaluator(), SearchParams(minibatch_size=batch, **kw),
                    tree_factory)
    search.set_position(Position(fen), [])
    search.run_worker(lambda: False, node_limit=nodes)
    return search


def visit_table(search: Search) -> dict[str, int]:
    return {move_to_uci(m.move): m.visits for m in search.ranked_moves()}


@pytest.mark.parametrize("fen", FENS)
@pytest.mark.parametrize("batch", [1, 8])
def test_cython_and_reference_trees_visit_alike(fen: str, batch: int) -> None:
    fast = run_search(fen, Tree, 300, batch)
    ref = run_search(fen, RefTree, 300, batch)
    assert visit_table(fast) == visit_table(ref)
    assert fast.root_visits() == ref.root_visits() == 300
    # The C cache keeps values as float32, the reference's as Python floats.
    np.testing.assert_allclose([m.q for m in fast.ranked_moves()],
                               [m.q for m in ref.ranked_moves()], atol=1e-6)


def test_node_limit_is_exact_and_counts_add_up() -> None:
    s = run_search(FENS[1], Tree, 500, 16)
    assert s.root_visits() == 500
    # Every visit but the root's own went to exactly one child.
    assert sum(m.visits for m in s.ranked_moves()) == 499
    assert s.tree.node_stats(ROOT)[1] == 0  # nothing left in flight


def test_batching_changes_little(maia_evaluator) -> None:
    """Batch 32 versus batch 1 on the same 1000-node search with a real net: the same favourite
    and close visit shares (virtual loss spreads a batch over moves; measured 0.06-0.12 total
    variation at virtual loss 1, 0.3-0.6 at virtual loss 3)."""
    for fen in FENS[:3]:
        tables = []
        for batch in (1, 32):
            s = Search(maia_evaluator, SearchParams(minibatch_size=batch))
            s.set_position(Position(fen), [])
            s.run_worker(lambda: False, node_limit=1000)
            tables.append(visit_table(s))
        a, b = tables
        pa = np.array([a[k] for k in sorted(a)], float) / 999
        pb = np.array([b[k] for k in sorted(a)], float) / 999
        assert 0.5 * np.abs(pa - pb).sum() < 0.2, (fen, a, b)
        assert max(a, key=a.__getitem__) == max(b, key=b.__getitem__)


@pytest.mark.parametrize("tree_factory", [Tree, RefTree])
def test_mate_in_one_is_proven(tree_factory) -> None:
    s = run_search("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", tree_factory, 300, 16,
                   UniformEvaluator())
    best = s.ranked_moves()[0]
    assert move_to_uci(best.move) == "a1a8"
    assert best.bound == WIN and best.plies == 1


def test_mate_in_two_is_proven() -> None:
    # The rook ladder: 1. Rb7 (or Ra7) Kg8 2. Ra8# (Rb8#).
    fen = "7k/8/8/8/8/8/1R6/R6K w - - 0 1"
    s = run_search(fen, Tree, 20000, 16, UniformEvaluator())
    best = s.ranked_moves()[0]
    assert best.bound == WIN and best.plies == 3
    board = chess.Board(fen)
    board.push(chess.Move.from_uci(move_to_uci(best.move)))
    for reply in list(board.legal_moves):
        board.push(reply)
        assert any(_mates(board, mv) for mv in board.legal_moves), reply
        board.pop()


def _mates(board: chess.Board, mv: chess.Move) -> bool:
    board.push(mv)
    mate = board.is_checkmate()
    board.pop()
    return mate


def test_being_mated_gives_losses() -> None:
    # Black to move, every move runs into Ra8# or is mate already: Kh8 only, then Ra8#.
    s = run_search("7k/8/6K1/8/8/8/8/R7 b - - 0 1", Tree, 300, 8, UniformEvaluator())
    ranked = s.ranked_moves()
    assert all(m.bound == LOSS for m in ranked)


def test_stalemate_and_draw_rules_score_zero() -> None:
    # White to move: Qc5-b6 stalemates; the search must see the stalemate as a draw, not a win.
    s = run_search("k7/8/8/2Q5/8/8/8/7K w - - 0 1", Tree, 400, 8, UniformEvaluator())
    table = {move_to_uci(m.move): m for m in s.ranked_moves()}
    assert table["c5b6"].bound == 0
    # 50-move rule: with the clock at 99, any quiet move draws.
    s = run_search("8/8/8/4k3/8/8/1R6/4K3 w - - 99 80", Tree, 200, 8, UniformEvaluator())
    quiet = [m for m in s.ranked_moves() if m.visits]
    assert quiet and all(m.bound == 0 for m in quiet)


def test_tree_reuse_keeps_the_subtree() -> None:
    search = Search(HashEvaluator(), SearchParams(minibatch_size=8))
    search.set_position(Position(), [])
    search.run_worker(lambda: False, node_limit=2000)
    best = search.ranked_moves()[0]
    reply = search.pv(best)[1]
    kept = next(m for m in search.ranked_moves() if m.move == best.move)
    pos = Position()
    pos.push(best.move)
    pos.push(reply)
    assert search.set_position(pos, [best.move, reply])
    assert search.root_visits() > 0
    assert search.root_visits() < kept.visits
    search.run_worker(lambda: False, node_limit=search.root_visits() + 100)
    assert search.tree.node_stats(ROOT)[1] == 0


def test_reroot_matches_reference() -> None:
    fast = run_search(chess.STARTING_FEN, Tree, 600)
    ref = run_search(chess.STARTING_FEN, RefTree, 600)
    line = fast.pv(fast.ranked_moves()[0])[:2]
    for s in (fast, ref):
        pos = Position()
        for mv in line:
            pos.push(mv)
        assert s.set_position(pos, line)
        s.run_worker(lambda: False, node_limit=s.root_visits() + 200)
    assert visit_table(fast) == visit_table(ref)


def test_memory_bound_stops_growth() -> None:
    s = run_search(chess.STARTING_FEN, Tree, 5000, 8, max_nodes=300)
    assert s.stats.full
    assert s.tree.num_nodes <= 300
    path = np.zeros(64, np.int32)
    assert s.tree.select(path) in (FULL, -2) or s.tree.num_nodes <= 300


def test_search_moves_filter() -> None:
    search = Search(HashEvaluator(), SearchParams())
    allowed = [move_from_uci("a2a3"), move_from_uci("h2h4")]
    search.set_position(Position(), [], root_filter=allowed)
    search.run_worker(lambda: False, node_limit=200)
    assert {m.move for m in search.ranked_moves()} == set(allowed)


def test_dirichlet_noise_changes_root_priors_only() -> None:
    quiet = Search(HashEvaluator(), SearchParams())
    noisy = Search(HashEvaluator(), SearchParams(dirichlet_epsilon=0.25, seed=1))
    for s in (quiet, noisy):
        s.set_position(Position(), [])
        s.run_worker(lambda: False, node_limit=50)
    pq = {m.move: m.prior for m in quiet.ranked_moves()}
    pn = {m.move: m.prior for m in noisy.ranked_moves()}
    assert pq.keys() == pn.keys()
    assert max(abs(pq[k] - pn[k]) for k in pq) > 0.01
    assert abs(sum(pn.values()) - 1) < 1e-4
    assert all(m.bound == UNKNOWN for m in noisy.ranked_moves())


@pytest.mark.parametrize("fen", FENS)
def test_fast_path_matches_the_whole_reference(fen: str) -> None:
    """Cython tree + C batch builder + Cython position against RefTree + the Python gather +
    the python-chess position: identical visit counts for the same positions."""
    from engine import board_ref

    fast = Search(HashEvaluator(), SearchParams(minibatch_size=8))
    fast.set_position(Position(fen), [])
    ref = Search(HashEvaluator(), SearchParams(minibatch_size=8), RefTree)
    ref.set_position(board_ref.Position(fen), [])
    for s in (fast, ref):
        s.run_worker(lambda: False, node_limit=400)
    assert visit_table(fast) == visit_table(ref)
    assert fast.stats.cache_hits == ref.stats.cache_hits
    assert fast.stats.terminals == ref.stats.terminals


class _StalemateLover(HashEvaluator):
    """Puts nearly all prior on Qc5-b6 (stalemate) and says the side to move is lost when
    black, won when white: the stalemate must still not be chosen."""

    def evaluate(self, planes):
        from engine import contract
        from engine.evaluator import NetOutput

        out = super().evaluate(planes)
        policy = out.policy.copy()
        policy[:, contract.MOVE_INDEX["c5b6"]] = 30.0
        black = planes[:, 108, 0, 0] > 0
        wdl = np.where(black[:, None], [[0.02, 0.08, 0.90]], [[0.90, 0.08, 0.02]])
        return NetOutput(policy, wdl.astype(np.float32), None)


@pytest.mark.parametrize("nodes", [3, 10, 40])
def test_no_stalemate_from_a_won_position(nodes: int) -> None:
    s = run_search("k7/8/8/2Q5/8/8/8/7K w - - 0 1", Tree, nodes, 8, _StalemateLover())
    best = s.ranked_moves()[0]
    assert move_to_uci(best.move) != "c5b6", [(move_to_uci(m.move), m.visits, m.q, m.bound)
                                             for m in s.ranked_moves()[:4]]


# lc0's moves-left utility (MovesLeft* options): lc0's defaults but a max effect of 0.0345.
MLH = dict(moves_left_max_effect=0.0345, moves_left_threshold=0.8, moves_left_slope=0.0027,
           moves_left_constant=0.0, moves_left_scaled=1.6521, moves_left_quadratic=-0.6521)


@pytest.mark.parametrize("tree_factory", [Tree, RefTree])
def test_moves_left_utility_favours_short_wins_and_long_losses(tree_factory) -> None:
    tree = tree_factory()
    tree.configure(**MLH)
    # Winning (q > 0): a child ending the game sooner gains, a longer one loses.
    assert tree.moves_left_utility(10.0, 30.0, 0.95) > 0.0
    assert tree.moves_left_utility(50.0, 30.0, 0.95) < 0.0
    # Losing: the reverse.
    assert tree.moves_left_utility(10.0, 30.0, -0.95) < 0.0
    assert tree.moves_left_utility(50.0, 30.0, -0.95) > 0.0
    # |q| at or below the threshold: nothing; at |q| = 1 the scale is 1.6521 - 0.6521 = 1.
    assert tree.moves_left_utility(10.0, 30.0, 0.8) == 0.0
    assert tree.moves_left_utility(29.0, 30.0, 1.0) == pytest.approx(0.0027)
    # The slope's term is capped at the max effect (100 plies * 0.0027 > 0.0345).
    assert tree.moves_left_utility(0.0, 100.0, 1.0) == pytest.approx(0.0345)
    a = (0.9 - 0.8) / 0.2
    assert tree.moves_left_utility(25.0, 30.0, 0.9) == pytest.approx(
        5 * 0.0027 * (1.6521 * a - 0.6521 * a * a))
    off = tree_factory()
    off.configure()
    assert off.moves_left_utility(0.0, 100.0, 1.0) == 0.0  # max effect 0: off


def _two_child_root(tree_factory, priors: list[float], value: float, plies: list[float],
                    visits: int, **kw):
    """A root with two children of equal value (``value`` for the side to move at the root),
    the first ending the game in ``plies[0]`` plies, the second in ``plies[1]``; returns the
    children's visits after ``visits`` selections."""
    tree = tree_factory()
    tree.configure(**kw)
    tree.expand(ROOT, np.arange(2, dtype=np.int32), np.array(priors, np.float32))
    path = np.zeros(8, np.int32)
    for _ in range(visits):
        leaf = tree.select(path)
        tree.backup(leaf, -value, 0.0, plies[int(path[0])])
    return dict(zip(tree.children(ROOT)[0].tolist(), tree.children(ROOT)[2].tolist()))


@pytest.mark.parametrize("tree_factory", [Tree, RefTree])
def test_moves_left_utility_steers_visits_in_a_decided_position(tree_factory) -> None:
    # Winning: the shorter win (child 1, lower prior) gets more visits with the utility on.
    off = _two_child_root(tree_factory, [0.6, 0.4], 0.95, [60.0, 8.0], 200)
    on = _two_child_root(tree_factory, [0.6, 0.4], 0.95, [60.0, 8.0], 200, **MLH)
    assert on[1] > off[1] + 10
    # Losing: the longer loss (child 0, lower prior) gets more.
    off = _two_child_root(tree_factory, [0.4, 0.6], -0.95, [60.0, 8.0], 200)
    on = _two_child_root(tree_factory, [0.4, 0.6], -0.95, [60.0, 8.0], 200, **MLH)
    assert on[0] > off[0] + 10
    # Undecided (|Q| below the threshold): the utility changes nothing.
    off = _two_child_root(tree_factory, [0.6, 0.4], 0.5, [60.0, 8.0], 200)
    on = _two_child_root(tree_factory, [0.6, 0.4], 0.5, [60.0, 8.0], 200, **MLH)
    assert on == off


def test_moves_left_utility_same_in_cython_and_reference(bundled_net) -> None:
    """The bundled net has a moves-left head; in KQ vs K its Q is past the threshold."""
    net = OnnxEvaluator(str(bundled_net), threads=1)
    fen = "6k1/8/8/8/8/8/5Q2/6K1 w - - 0 1"
    fast = run_search(fen, Tree, 300, 8, evaluator=net, **MLH)
    ref = run_search(fen, RefTree, 300, 8, evaluator=net, **MLH)
    assert visit_table(fast) == visit_table(ref)
    off = run_search(fen, Tree, 300, 8, evaluator=net)
    assert visit_table(off) != visit_table(fast)  # the utility was at work


class _ShuffleEvaluator:
    """Uniform, except for a huge prior on the knight shuffle g1f3 g8f6 f3g1 f6g8."""

    name = "shuffle"

    def __init__(self) -> None:
        pos = Position()
        self.favoured = set()
        for uci in ("g1f3", "g8f6", "f3g1", "f6g8"):
            mv = move_from_uci(uci)
            self.favoured.add(pos.policy_index(mv))
            pos.push(mv)

    def evaluate(self, planes: np.ndarray):
        out = UniformEvaluator().evaluate(planes)
        out.policy[:, sorted(self.favoured)] = 8.0
        return out


@pytest.mark.parametrize("tree_factory", [Tree, RefTree])
def test_reroot_onto_a_repetition_draw_starts_afresh(tree_factory) -> None:
    """A node the old root saw as a twofold repetition keeps its visits but loses its moves when
    the root moves; reached as the new root it must be searched again, not taken as searched
    (self-play played from such a root with no moves and crashed)."""
    line = [move_from_uci(u) for u in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3")]
    search = Search(_ShuffleEvaluator(), SearchParams(minibatch_size=8), tree_factory)
    pos = Position()
    pos.push(line[0])
    search.set_position(pos, line[:1])
    search.run_worker(lambda: False, node_limit=400)
    node = ROOT
    for mv in line[1:]:
        moves, _, visits, *_, ids = search.tree.children(node)
        node = int(ids[list(moves).index(mv)])
    assert search.tree.node_stats(node)[0] > 1  # the repetition was visited, as a draw
    for i in range(2, len(line) + 1):  # the game follows the line one ply at a time
        pos.push(line[i - 1])
        reused = search.set_position(pos, line[:i])
        assert reused == (i < len(line))
    assert search.root_visits() == 0
    search.run_worker(lambda: False, node_limit=1)
    assert search.tree.is_expanded(ROOT) and len(search.ranked_moves()) > 1
