"""Self-play records and the batched multi-game self-play driver, with a tiny exported net."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.pgn
import chess.syzygy
import numpy as np
import pytest

from engine import contract
from engine.board import Position, move_from_uci
from engine.evaluator import NetOutput, OnnxEvaluator
from trainer.data import records
from trainer.data.records import Record
from trainer.play.selfplay import SelfPlayConfig, SelfPlayWorker


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch

    from trainer.learn.config import get_config
    from trainer.learn.export import export_onnx
    from trainer.learn.model import Net

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("net") / "tiny.onnx"
    export_onnx(Net(get_config("tiny")), path)
    return path


class Counting:
    """Wraps an evaluator and records the size of every network call."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.name = "counting"
        self.sizes: list[int] = []

    def evaluate(self, planes: np.ndarray) -> NetOutput:
        self.sizes.append(len(planes))
        return self.inner.evaluate(planes)  # type: ignore[attr-defined]


class Confident:
    """Every position is a win for its side to move: every root's best Q is -1 (resigns)."""

    name = "confident"

    def evaluate(self, planes: np.ndarray) -> NetOutput:
        b = len(planes)
        wdl = np.tile(np.array([1.0, 0.0, 0.0], np.float32), (b, 1))
        return NetOutput(np.zeros((b, contract.POLICY_SIZE), np.float32), wdl, None)


def sample_record(n: int = 5, seed: int = 0) -> Record:
    rng = np.random.default_rng(seed)
    board = chess.Board()
    planes = np.zeros((n, contract.NUM_PLANES, 8, 8), np.float32)
    moves: list[int] = []
    policies: list[tuple[list[int], list[float]] | None] = []
    for i in range(n):
        Position.from_board(board).encode(planes[i])
        legal = list(board.legal_moves)
        move = legal[int(rng.integers(len(legal)))]
        moves.append(move_from_uci(move.uci()))
        if i % 2 == 0:
            idx = [contract.move_index(board, m) for m in legal[:3]]
            policies.append((idx, [0.5, 0.3, 0.2]))
        else:
            policies.append(None)
        board.push(move)
    wdl = [records.wdl_onehot(chess.WHITE, bool(i % 2 == 0)) for i in range(n)]
    return Record.build(planes, moves, wdl, rng.uniform(-1, 1, n), rng.uniform(0, 1, n),
                        list(range(n, 0, -1)), policies, meta={"game": seed, "result": "1-0"})


def test_record_round_trip(tmp_path: Path) -> None:
    rec = sample_record()
    path = tmp_path / records.record_name(3, 1, 7)
    pgn = records.game_pgn(chess.STARTING_FEN, ["e2e4", "e7e5"], "1-0", {"White": "a"})
    rec.save(path, pgn)
    back = Record.load(path)
    for name in ("bits", "aux", "moves", "wdl", "root_q", "root_d", "plies_left", "full",
                 "policy_ptr", "policy_idx", "policy_prob"):
        got, want = getattr(back, name), getattr(rec, name)
        assert got.dtype == want.dtype and np.array_equal(got, want), name
    assert back.meta == rec.meta and back.start_fen == chess.STARTING_FEN
    assert np.array_equal(back.planes(), rec.planes())
    dense = back.dense_policy()
    assert np.allclose(dense[back.full].sum(1), 1.0) and not dense[~back.full].any()
    game = chess.pgn.read_game(open(path.with_suffix(".pgn")))
    assert game is not None and [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5"]
    assert records.parse_name(path.name) == (3, 1, 7)
    assert records.next_counter(tmp_path, 3, 1) == 8 and records.next_counter(tmp_path, 3, 2) == 0
    (tmp_path / f".{path.name}.abc.tmp").write_bytes(b"partial")  # a killed writer's leftover
    assert records.list_records(tmp_path) == [path]
    assert records.clean_temp_files(tmp_path, "g0003-w001") == 1


def test_record_rejects_bad_files(tmp_path: Path) -> None:
    rec = sample_record()
    rec.full[1] = True  # a full-search flag without a policy target
    with pytest.raises(ValueError):
        rec.validate()
    bad = tmp_path / "x.npz"
    np.savez(bad, format=np.array("other"))
    with pytest.raises(ValueError):
        Record.load(bad)


def _replay_planes(rec: Record) -> np.ndarray:
    """Re-encodes the game's positions from its start FEN, book and moves."""
    board = chess.Board(rec.start_fen)
    for u in rec.meta["book"]:
        board.push_uci(u)
    pos = Position.from_board(board)
    out = np.zeros((len(rec), contract.NUM_PLANES, 8, 8), np.float32)
    for i, m in enumerate(rec.moves):
        pos.encode(out[i])
        if m >= 0:
            pos.push(int(m))
    return out


def test_selfplay_batches_games_and_writes_records(tiny_net: Path, tmp_path: Path) -> None:
    ev = Counting(OnnxEvaluator(str(tiny_net), threads=1))
    cfg = SelfPlayConfig(parallel=3, minibatch=4, full_visits=24, fast_visits=6,
                         full_share=0.4, max_plies=40, resign_threshold=-1.0, seed=1)
    worker = SelfPlayWorker(ev, cfg, tmp_path, generation=2, worker=5, net_name="tiny")
    stats = worker.run(4)
    # one network call serves several games: calls carry more rows than one game may send
    assert stats.nn_calls == len(ev.sizes) and stats.nn_positions == sum(ev.sizes)
    assert stats.max_games_per_call >= 2 and max(ev.sizes) > cfg.minibatch
    files = records.list_records(tmp_path, generation=2, worker=5)
    assert [records.parse_name(p.name) for p in files] == [(2, 5, i) for i in range(4)]
    assert stats.games == 4 and sum(stats.results.values()) == 4
    total_full = 0
    for p in files:
        rec = Record.load(p)
        assert rec.meta["generation"] == 2 and rec.meta["worker"] == 5
        assert len(rec) == rec.meta["plies"] - len(rec.meta["book"])
        assert np.array_equal(rec.planes(), _replay_planes(rec))
        assert np.allclose(rec.wdl.sum(1), 1.0)
        sizes = np.diff(rec.policy_ptr)
        assert np.array_equal(sizes > 0, rec.full)  # only full searches carry policy targets
        for i in np.flatnonzero(rec.full):
            idx, prob = rec.policy(int(i))
            assert abs(prob.sum() - 1.0) < 1e-5 and (idx >= 0).all()
        total_full += int(rec.full.sum())
        game = chess.pgn.read_game(open(p.with_suffix(".pgn")))
        assert game is not None and game.headers["Result"] == rec.meta["result"]
        assert len(list(game.mainline_moves())) == rec.meta["plies"]
    positions = stats.positions
    assert 0 < total_full < positions  # the playout cap split happened both ways
    # a second worker with the same id continues the numbering instead of overwriting
    again = SelfPlayWorker(ev, cfg, tmp_path, generation=2, worker=5)
    assert again.counter == 4


def test_resignation_and_false_resign_measurement(tmp_path: Path) -> None:
    base = dict(parallel=2, minibatch=4, full_visits=8, fast_visits=4, max_plies=30,
                resign_threshold=-0.8, resign_plies=2, resign_earliest=0, openings=None)
    stats = SelfPlayWorker(Confident(), SelfPlayConfig(**base, resign_playout=0.0),  # type: ignore[arg-type]
                           tmp_path / "a").run(2)
    assert stats.terminations == {"resignation": 2} and stats.resigned == 2
    stats = SelfPlayWorker(Confident(), SelfPlayConfig(**base, resign_playout=1.0),  # type: ignore[arg-type]
                           tmp_path / "b").run(2)
    assert stats.resigned == 0 and stats.playout_games == 2
    # every game would have resigned, then was drawn at the length limit: all false
    assert stats.would_resign == 2 and stats.false_resign == 2 and stats.false_resign_rate == 1.0


def test_resign_ply_replays_the_rule_per_side() -> None:
    from trainer.play.selfplay import resign_ply

    # side 0 (even positions) is low at 0, 2, 4; side 1 never; the run of 3 ends at position 4
    values = [-0.99, 0.5, -0.99, 0.9, -0.99, 0.9, 0.0]
    assert resign_ply(values, -0.95, 3, 0) == 4
    assert resign_ply(values, -0.95, 2, 0) == 2
    assert resign_ply(values, -0.95, 2, 3) == 4  # not before ``earliest``
    assert resign_ply(values, -0.995, 1, 0) is None
    # the other side's value between two low ones does not break the run; a high own one does
    assert resign_ply([-0.99, 0.0, 0.0, 0.0, -0.99, 0.0, -0.99], -0.95, 2, 0) == 6


def test_stop_abandons_unfinished_games(tiny_net: Path, tmp_path: Path) -> None:
    ev = OnnxEvaluator(str(tiny_net), threads=1)
    calls = iter(range(10**6))
    cfg = SelfPlayConfig(parallel=2, minibatch=4, full_visits=16, fast_visits=4, max_plies=200)
    stats = SelfPlayWorker(ev, cfg, tmp_path).run(2, should_stop=lambda: next(calls) >= 5)
    assert stats.games == 0 and records.list_records(tmp_path) == []


def test_endgame_curriculum_and_mate_test() -> None:
    from engine.evaluator import UniformEvaluator
    from trainer.play.endgames import curriculum, mate_test

    fens = curriculum(40, seed=3, strong_to_move=True)
    for fen in fens:
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_game_over() and len(board.piece_map()) == 3
        assert chess.popcount(board.occupied_co[board.turn]) == 2  # the strong side moves
    mate_in_one = "k7/8/1K6/8/8/8/8/7R w - - 0 1"
    stats = mate_test(UniformEvaluator(), [mate_in_one] * 2, visits=64, max_moves=3)
    assert stats.games == 2 and stats.mates == 2 and stats.mate_plies == [1, 1]


def test_pick_move_with_unvisited_children() -> None:
    import random

    from engine.mcts import UNKNOWN
    from engine.search import MoveStats
    from trainer.play.selfplay import pick_move

    only = [MoveStats(1, 1.0, 0, 0.0, 0.0, 0.0, UNKNOWN, 0, -1)]  # a forced move, one visit
    assert pick_move(only, 1.0, random.Random(0)) is only[0]
    two = [MoveStats(1, 0.5, 30, 0.1, 0.0, 0.0, UNKNOWN, 0, 1),
           MoveStats(2, 0.5, 10, 0.0, 0.0, 0.0, UNKNOWN, 0, 2)]
    picks = {pick_move(two, 1.0, random.Random(s)).move for s in range(40)}
    assert picks == {1, 2} and pick_move(two, 0.0, random.Random(0)).move == 1


def test_tablebase_rescoring(tmp_path: Path) -> None:
    from engine.evaluator import UniformEvaluator

    syzygy = Path(__file__).resolve().parents[2] / "shared" / "data" / "syzygy" / "regular"
    if not syzygy.is_dir():
        pytest.skip("no Syzygy tables in the shared data")
    fen = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1"  # a KQvK win for white
    cfg = SelfPlayConfig(parallel=2, minibatch=4, full_visits=8, fast_visits=4, max_plies=12,
                         resign_threshold=-1.0, start_fens=[fen], syzygy=str(syzygy))
    SelfPlayWorker(UniformEvaluator(), cfg, tmp_path).run(2)
    tables = chess.syzygy.open_tablebase(str(syzygy))
    onehot = {2: [1.0, 0.0, 0.0], 0: [0.0, 1.0, 0.0], -2: [0.0, 0.0, 1.0]}
    for p in records.list_records(tmp_path):
        rec = Record.load(p)
        board = chess.Board(fen)
        assert rec.wdl[0].tolist() == [1.0, 0.0, 0.0]  # white to move wins, whatever happened
        for i, m in enumerate(rec.moves):  # every position is covered: the tables' verdict
            assert rec.wdl[i].tolist() == onehot[tables.probe_wdl(board)]
            board.push(chess.Move(int(m) & 63, (int(m) >> 6) & 63))
        assert rec.meta["rescored"] == len(rec)


@pytest.mark.parametrize("root,forced", [("gumbel", 0.0), ("puct", 2.0)])
def test_selfplay_root_rules_write_full_policy_targets(tiny_net: Path, tmp_path: Path,
                                                       root: str, forced: float) -> None:
    """Gumbel searches record the improved policy over every legal move (a full distribution,
    not visit counts); forced playouts record the pruned visits. Both stay legal and sum to 1."""
    ev = Counting(OnnxEvaluator(str(tiny_net), threads=1))
    cfg = SelfPlayConfig(parallel=2, minibatch=4, full_visits=16, fast_visits=4, full_share=1.0,
                         max_plies=36, resign_threshold=-1.0, root=root, forced_playouts=forced,
                         gumbel_considered=8, seed=3)
    stats = SelfPlayWorker(ev, cfg, tmp_path, generation=1).run(2)
    assert stats.games == 2
    for p in records.list_records(tmp_path):
        rec = Record.load(p)
        board = chess.Board(rec.start_fen)
        for u in rec.meta["book"]:
            board.push_uci(u)
        for i, move in enumerate(rec.moves):
            idx, prob = rec.policy(i)
            legal = {contract.move_index(board, m) for m in board.legal_moves}
            if board.legal_moves.count() > 1:
                assert rec.full[i] and abs(prob.sum() - 1.0) < 1e-5
                assert set(idx.tolist()) <= legal
                if root == "gumbel":  # the improved policy covers every legal move
                    assert set(idx.tolist()) == legal and (prob > 0).all()
            board.push(chess.Move(int(move) & 63, (int(move) >> 6) & 63,
                                  ((int(move) >> 12) & 7) or None))


def test_onnx_import_reproduces_the_net(bundled_net: Path, tmp_path: Path) -> None:
    import torch

    from trainer.learn.onnx_import import model_from_onnx
    from trainer.data.pgn_data import unpack_planes

    model = model_from_onnx(bundled_net)
    assert model.cfg.frozen_bn
    rec = sample_record(8)
    x = unpack_planes(rec.bits, rec.aux)
    ref = OnnxEvaluator(str(bundled_net), threads=1).evaluate(x)
    # Training mode too computes what the file computes: the batch norms stay frozen.
    for train in (False, True):
        model.train(train)
        with torch.no_grad():
            out = model(torch.from_numpy(x))
        assert np.abs(out.policy.numpy() - ref.policy).max() < 1e-3
        assert np.abs(out.wdl.numpy() - ref.wdl).max() < 1e-4
    import onnx

    proto = onnx.load(str(bundled_net))
    del proto.metadata_props[:]
    foreign = tmp_path / "foreign.onnx"
    onnx.save(proto, str(foreign))
    with pytest.raises(ValueError, match="metadata"):
        model_from_onnx(foreign)


def test_torch_evaluator_computes_what_onnxruntime_does(bundled_net: Path, tmp_path: Path) -> None:
    """`selfplay --backend torch-cuda` runs the net through torch (the GPU machine's onnxruntime
    has no CUDA provider); on the CPU the same path must give onnxruntime's outputs, and the
    command must play and write records with it."""
    from engine.evaluator import NetError
    from trainer.__main__ import main
    from trainer.data.pgn_data import unpack_planes
    from trainer.learn.torch_eval import TorchEvaluator

    rec = sample_record(8)
    x = unpack_planes(rec.bits, rec.aux)
    ref = OnnxEvaluator(str(bundled_net), threads=1).evaluate(x)
    ev = TorchEvaluator(str(bundled_net), device="cpu", threads=1)
    out = ev.evaluate(x)
    assert ev.has_mlh and out.mlh is not None and ref.mlh is not None
    assert out.policy.shape == ref.policy.shape and out.policy.dtype == np.float32
    assert np.abs(out.policy - ref.policy).max() < 1e-3
    assert np.abs(out.wdl - ref.wdl).max() < 1e-4
    assert np.abs(out.mlh - ref.mlh).max() < 1e-2
    with pytest.raises(NetError, match="does not exist"):
        TorchEvaluator(str(tmp_path / "missing.onnx"), device="cpu")
    with pytest.raises(NetError, match="precision"):
        TorchEvaluator(str(bundled_net), device="cpu", precision="int4")
    # half precision (bf16 here; fp16 on a GPU): roundings of the same function, floats out
    half = TorchEvaluator(str(bundled_net), device="cpu", threads=1, precision="bf16").evaluate(x)
    assert half.policy.dtype == np.float32 and half.wdl.dtype == np.float32
    assert np.abs(half.wdl - ref.wdl).max() < 0.05
    assert (half.policy.argmax(1) == ref.policy.argmax(1)).mean() >= 0.75
    assert np.abs(half.policy - ref.policy).max() > 0  # it did run in another precision
    assert main(["selfplay", "--net", str(bundled_net), "--out", str(tmp_path / "g"),
                 "--backend", "torch-cpu", "--threads", "1", "--games", "2", "--parallel", "2",
                 "--full-visits", "8", "--fast-visits", "4", "--max-plies", "24",
                 "--resign-threshold", "-1"]) == 0
    files = records.list_records(tmp_path / "g")
    assert len(files) == 2 and all(len(Record.load(p)) > 0 for p in files)
    # a net that is not there, or half precision on onnxruntime: a message, not a traceback
    for argv in (["--net", str(tmp_path / "missing.onnx"), "--backend", "torch-cpu"],
                 ["--net", str(bundled_net), "--precision", "fp16"]):
        with pytest.raises(SystemExit, match="selfplay: .*(does not exist|torch backend)"):
            main(["selfplay", "--out", str(tmp_path / "h"), "--games", "1", *argv])


class FixedLogits:
    """The same pseudo-random logits for every position (std 2) and an even value: the search's
    visits follow the priors, so the priors' temperature shows in the policy targets."""

    name = "fixed-logits"

    def __init__(self) -> None:
        self.logits = np.random.default_rng(5).normal(0.0, 2.0, contract.POLICY_SIZE).astype(
            np.float32)

    def evaluate(self, planes: np.ndarray) -> NetOutput:
        b = len(planes)
        wdl = np.tile(np.array([0.3, 0.4, 0.3], np.float32), (b, 1))
        return NetOutput(np.tile(self.logits, (b, 1)), wdl, None)


def test_selfplay_policy_temperature_sharpens_targets(tmp_path: Path) -> None:
    """--policy-temperature reaches every search: at 0.5 the visit targets are far more peaked
    than at 3.0 over the same kind of games."""
    peaks = {}
    for temp in (0.5, 3.0):
        cfg = SelfPlayConfig(parallel=2, minibatch=4, full_visits=48, fast_visits=8,
                             full_share=1.0, max_plies=10, resign_threshold=-1.0,
                             dirichlet_epsilon=0.0, policy_temperature=temp, openings=None,
                             seed=11)
        out = tmp_path / str(temp)
        assert SelfPlayWorker(FixedLogits(), cfg, out, generation=1).run(2).games == 2  # type: ignore[arg-type]
        recs = [Record.load(p) for p in records.list_records(out)]
        tops = [rec.policy(i)[1].max() for rec in recs for i in range(len(rec))]
        peaks[temp] = float(np.mean(tops))
    assert peaks[0.5] > peaks[3.0] + 0.2, peaks


def test_selfplay_cli_passes_policy_temperature() -> None:
    import argparse

    from trainer.cli_rl import _add_selfplay_args, _selfplay_config

    p = argparse.ArgumentParser()
    _add_selfplay_args(p)
    assert _selfplay_config(p.parse_args([])).policy_temperature == SelfPlayConfig().policy_temperature
    assert _selfplay_config(p.parse_args(["--policy-temperature", "1.0"])).policy_temperature == 1.0
