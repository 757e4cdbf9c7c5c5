"""MuZero mode: model shapes, trajectories from records, the unrolled loss, training resume,
the two-graph export, and the latent search (toy models with known dynamics, root masking,
UCI games)."""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest
import torch

from engine import contract
from engine.board import Position, move_to_uci
from engine.evaluator import NetError, NetOutput, OnnxEvaluator, OnnxMuZero, RecurrentOutput
from engine.latent_search import LatentSearch
from engine.mcts import ROOT
from engine.search import SearchParams
from trainer.muzero.data import REWARD_NONE, REWARD_WIN, TrajectoryData
from trainer.muzero.export import export_muzero, recurrent_path, verify
from trainer.muzero.model import (ACTION_PLANES, Inference, MuZeroNet, action_planes_table,
                                  get_config)
from trainer.muzero.train import MuZeroTrainConfig, MuZeroTrainer, scale_gradient, unrolled_loss
from trainer.data.records import Record, wdl_onehot

REPO = Path(__file__).resolve().parents[1]
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def _selfplay_record(moves: list[str]) -> Record:
    """A self-play-style record of the game ``moves`` from the start (the last one is stored)."""
    board = chess.Board()
    planes, played, turns, pols = [], [], [], []
    for uci in moves:
        planes.append(contract.encode(board))
        m = chess.Move.from_uci(uci)
        played.append(m.from_square | (m.to_square << 6) | ((m.promotion or 0) << 12))
        turns.append(board.turn)
        pols.append(([contract.move_index(board, m)], [1.0]))
        board.push(m)
    outcome = board.outcome(claim_draw=True)
    winner = outcome.winner if outcome is not None else None
    wdl = [wdl_onehot(winner, t) for t in turns]
    n = len(moves)
    return Record.build(np.stack(planes), played, wdl, [0.0] * n, [0.0] * n,
                        list(range(n, 0, -1)), pols, chess.STARTING_FEN, {"kind": "selfplay"})


def _sf_record(games: list[list[str]], fen_only_at: int) -> Record:
    """An sf-games-style record: positions of several games one after another, FENs in the
    meta, ``moves`` holding some other legal move (Stockfish's best, not the one played)."""
    boards: list[chess.Board] = []
    for game in games:
        b = chess.Board()
        for uci in game:
            boards.append(b.copy())
            b.push_uci(uci)
    boards[fen_only_at] = chess.Board(boards[fen_only_at].fen())
    planes = np.stack([contract.encode(b) for b in boards])
    hints = []
    for b in boards:
        m = sorted(b.legal_moves, key=lambda x: x.uci())[0]
        hints.append(m.from_square | (m.to_square << 6))
    n = len(boards)
    wdl = [[0.3, 0.4, 0.3]] * n
    pols = [([contract.move_index(b, next(iter(b.legal_moves)))], [1.0]) for b in boards]
    return Record.build(planes, hints, wdl, [0.0] * n, [0.4] * n, [-1] * n, pols,
                        chess.STARTING_FEN, {"kind": "sf-games", "fens": [b.fen() for b in boards]})


@pytest.fixture
def records(tmp_path: Path) -> list[Path]:
    a = tmp_path / "g0000-w000-000000.npz"
    _selfplay_record(FOOLS_MATE).save(a)
    b = tmp_path / "sf-000000.npz"
    _sf_record([["e2e4", "e7e5", "g1f3", "b8c6"], ["d2d4", "d7d5", "c2c4"]], 5).save(b)
    return [a, b]


# ------------------------------------------------------------------------ model


def test_model_shapes_and_action_planes() -> None:
    net = MuZeroNet(get_config("tiny")).eval()
    x = torch.zeros(3, contract.NUM_PLANES, 8, 8)
    init = net.initial_inference(x)
    assert init.state.shape == (3, 16, 8, 8) and init.policy.shape == (3, 1858)
    assert init.wdl.shape == (3, 3) and init.reward is None
    assert float(init.state.detach().min()) >= 0 and float(init.state.detach().max()) <= 1 + 1e-6
    rec = net.recurrent_inference(init.state, torch.tensor([0, 5, 1857]))
    assert rec.state.shape == init.state.shape and rec.reward is not None
    assert rec.reward.shape == (3, 3) and rec.policy.shape == (3, 1858)
    table = action_planes_table()
    assert table.shape == (1858, ACTION_PLANES, 8, 8)
    e2e4 = contract.MOVE_INDEX["e2e4"]
    assert table[e2e4, 0, 1, 4] == 1 and table[e2e4, 1, 3, 4] == 1 and table[e2e4].sum() == 2
    promo = contract.MOVE_INDEX["a7a8r"]
    assert table[promo, 3].sum() == 64 and table[promo, 2].sum() == 0
    # every action is a distinct input to g
    flat = table.reshape(1858, -1)
    assert len(np.unique(flat, axis=0)) == 1858


# ------------------------------------------------------------------------- data


def test_trajectories_link_consecutive_positions_only(records: list[Path]) -> None:
    data = TrajectoryData(records)
    # self-play: 4 plies, the last move mates (stored as an end reward, not a next row)
    assert list(data.follows[:4]) == [True, True, True, False]
    assert data.end_reward[3] == REWARD_WIN
    assert data.actions[3] == contract.move_index(
        chess.Board("rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"),
        chess.Move.from_uci("d8h4"))
    # sf-games: two games (4 + 3 positions) with a fen-only position inside the second game;
    # the boundary between the games is not a move, the fen-only position still follows
    sf = data.follows[4:]
    assert list(sf) == [True, True, True, False, True, True, False]
    board = chess.Board()
    board.push_uci("e2e4")
    assert data.actions[5] == contract.move_index(board, chess.Move.from_uci("e7e5"))


def test_sample_masks_and_absorbing_step(records: list[Path]) -> None:
    data = TrajectoryData(records)
    b = data.sample(0, 5, np.random.default_rng(0), starts=np.array([1, 8]))
    # from row 1 of Fool's mate: f2f3 e7e5 | g2g4, d8h4 (mate: absorbing), then nothing
    assert list(b.has_reward[0]) == [True, True, True, False, False]
    assert list(b.reward[0, :3]) == [REWARD_NONE, REWARD_NONE, REWARD_WIN]
    assert list(b.has_value[0]) == [True, True, True, True, False, False]
    assert np.allclose(b.value[0, 3], [0, 1, 0])  # the absorbing state's value is zero
    assert list(b.has_policy[0]) == [True, True, True, False, False, False]
    assert b.rows[0, :3].tolist() == [1, 2, 3] and b.rows[0, 3] == -1
    # row 8 (second sf game) has two real successors, then its record ends
    assert list(b.has_reward[1]) == [True, True, False, False, False]
    assert b.rows[1, :3].tolist() == [8, 9, 10]
    assert np.array_equal(b.planes[1], data.planes(np.array([8]))[0])


# ------------------------------------------------------------------------- loss


def test_scale_gradient_halves_the_gradient() -> None:
    x = torch.ones(3, requires_grad=True)
    (scale_gradient(x, 0.5) * 2).sum().backward()
    assert x.grad is not None and torch.allclose(x.grad, torch.full((3,), 1.0))


def test_unrolled_loss_on_a_fixed_batch(records: list[Path]) -> None:
    torch.manual_seed(0)
    data = TrajectoryData(records)
    batch = data.sample(16, 5, np.random.default_rng(1))
    net = MuZeroNet(get_config("tiny"))
    cfg = MuZeroTrainConfig(unroll=5)
    loss, m = unrolled_loss(net, batch, cfg, torch.device("cpu"))
    # the total is step 0's terms plus 1/K of each later step's three terms
    manual = m["policy_loss_0"] + m["value_loss_0"] + sum(
        (m[f"policy_loss_{k}"] + m[f"value_loss_{k}"] + m[f"reward_loss_{k}"]) / 5
        for k in range(1, 6))
    assert loss.item() == pytest.approx(manual, rel=1e-5)
    assert m["policy_loss_0"] == pytest.approx(np.log(1858), rel=0.1)  # near uniform at init
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    first = loss.item()
    for _ in range(40):
        loss, m = unrolled_loss(net, batch, cfg, torch.device("cpu"))
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < 0.5 * first  # the model fits a fixed batch through the unroll


def test_training_resumes_exactly(records: list[Path], tmp_path: Path) -> None:
    data = TrajectoryData(records)
    cfg = MuZeroTrainConfig(batch_size=8, total_steps=4, warmup=1, checkpoint_every=2,
                            log_every=2, threads=1, unroll=3)
    straight = MuZeroTrainer.create("tiny", cfg, tmp_path / "a")
    straight.train(data, 4, progress=False)
    part = MuZeroTrainer.create("tiny", cfg, tmp_path / "b")
    part.train(data, 2, progress=False)
    resumed = MuZeroTrainer.create("tiny", cfg, tmp_path / "b")
    assert resumed.step == 2
    resumed.train(data, 4, progress=False)
    for (name, a), (_, b) in zip(straight.model.state_dict().items(),
                                 resumed.model.state_dict().items()):
        assert torch.allclose(a, b, atol=1e-6), name
    assert (tmp_path / "b" / "train_log.jsonl").read_text().count("\n") >= 2


def _alphazero_onnx(tmp_path: Path) -> Path:
    """A small AlphaZero net (flattened value head, as the lc0 presets) with trained-looking
    batch norms, exported by the trainer."""
    from trainer.learn.config import NetConfig
    from trainer.learn.export import export_onnx
    from trainer.learn.model import Net

    torch.manual_seed(3)
    net = Net(NetConfig(blocks=2, filters=16, se_ratio=4, policy_channels=16, value_channels=4,
                        value_hidden=16))
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)  # type: ignore[union-attr]
            m.running_var.uniform_(0.5, 2.0)  # type: ignore[union-attr]
    path = tmp_path / "az.onnx"
    export_onnx(net.eval(), path)
    return path


def _starts_as(model: MuZeroNet, az: Path) -> Inference:
    """The model's initial inference on two positions, checked against the AlphaZero file's."""
    planes = np.stack([contract.encode(chess.Board()),
                       contract.encode(chess.Board("8/8/4k3/8/2P5/8/4K3/8 b - - 0 1"))])
    want = OnnxEvaluator(str(az), threads=1).evaluate(planes)
    with torch.no_grad():
        got = model.initial_inference(torch.from_numpy(planes))
    np.testing.assert_allclose(got.policy.numpy(), want.policy, atol=1e-4)
    np.testing.assert_allclose(torch.softmax(got.wdl, 1).numpy(), want.wdl, atol=1e-5)
    return got


def test_muzero_from_an_alphazero_net_starts_as_that_net(tmp_path: Path) -> None:
    """h and f come from the AlphaZero net, so the initial inference gives its policy and WDL
    (read by onnxruntime from its file); only g is new."""
    az = _alphazero_onnx(tmp_path)
    model = MuZeroTrainer.fresh_model(str(az)).eval()
    assert not model.cfg.scale_states and model.cfg.pred_blocks == 0
    got = _starts_as(model, az)
    # g mirrors its state rank for rank (the next position is seen from the other side)
    assert model.cfg.flip_dynamics
    action = torch.tensor([contract.MOVE_INDEX["e2e4"]] * 2)
    with torch.no_grad():
        flipped = model.dynamics(got.state, action)[0]
        model.cfg = dataclasses.replace(model.cfg, flip_dynamics=False)
        plain = model.dynamics(got.state, action)[0]
    assert torch.equal(flipped, plain.flip(2)) and not torch.equal(flipped, plain)
    model.cfg = dataclasses.replace(model.cfg, flip_dynamics=True)
    export_muzero(model, tmp_path / "mz.onnx", {})  # verified against torch, the flip included
    assert OnnxMuZero.load(str(tmp_path / "mz.onnx"), threads=1) is not None


@pytest.mark.parametrize("k", [0, 1])
def test_the_alphazero_tower_splits_between_h_and_f(tmp_path: Path, k: int) -> None:
    """repr_blocks=k: h keeps the stem and the first k blocks, f the rest before the heads, and
    the initial inference is still the AlphaZero net's, in torch and in the exported file."""
    from trainer.learn.onnx_import import model_from_onnx
    from trainer.muzero.model import from_alphazero

    az = _alphazero_onnx(tmp_path)
    model = from_alphazero(model_from_onnx(str(az)), dyn_blocks=1, repr_blocks=k).eval()
    assert (model.cfg.repr_blocks, model.cfg.pred_blocks, model.cfg.dyn_blocks) == (k, 2 - k, 1)
    got = _starts_as(model, az)
    export_muzero(model, tmp_path / "mz.onnx", {})
    assert OnnxMuZero.load(str(tmp_path / "mz.onnx"), threads=1) is not None
    with pytest.raises(ValueError, match="outside"):
        from_alphazero(model_from_onnx(str(az)), repr_blocks=3)


@pytest.mark.parametrize("weight", ["consistency", "distill"])
def test_dynamics_alone_learns_consistency_on_a_frozen_alphazero_net(
        records: list[Path], tmp_path: Path, weight: str) -> None:
    """--train-only dyn_ reward_ with a consistency weight (and a distillation one): h and f
    (weights and batch-norm statistics) stay the AlphaZero net's, g moves, and g's states come
    nearer h's (and f's outputs on them nearer f's on h's)."""
    data = TrajectoryData(records)
    cfg = MuZeroTrainConfig(batch_size=16, total_steps=60, warmup=1, lr=3e-3, threads=1,
                            unroll=3, train_only=["dyn_", "reward_"], checkpoint_every=1000,
                            log_every=1000, consistency_weight=1.0,
                            distill_weight=1.0 if weight == "distill" else 0.0)
    t = MuZeroTrainer.create(str(_alphazero_onnx(tmp_path)), cfg, tmp_path / "mz")
    before = {k: v.clone() for k, v in t.model.state_dict().items()}
    batch = t.sample(data, np.random.default_rng(0))
    assert batch.step_planes is not None and batch.step_planes.shape[:2] == (16, 3)
    t.model.train()
    _, m0 = unrolled_loss(t.model, batch, cfg, torch.device("cpu"))
    t.train(data, 60, progress=False)
    t.model.train()
    _, m1 = unrolled_loss(t.model, batch, cfg, torch.device("cpu"))
    after = t.model.state_dict()
    for k, v in before.items():
        if not k.startswith(("dyn_", "reward_")):
            assert torch.equal(v, after[k]), k
    assert any(not torch.equal(v, after[k]) for k, v in before.items() if k.startswith("dyn_"))
    if weight == "consistency":
        assert m1["consistency_1"] < 0.5 * m0["consistency_1"], (m0, m1)
    else:
        assert m1["distill_1"] < 0.5 * m0["distill_1"], (m0, m1)


# ----------------------------------------------------------------------- export


def test_export_equivalence_and_loading(tmp_path: Path) -> None:
    torch.manual_seed(3)
    net = MuZeroNet(get_config("tiny"))
    path = tmp_path / "mz.onnx"
    res = export_muzero(net, path, {"steps": 7})
    assert res["max_abs_diff_initial"] <= 1e-3 and res["max_abs_diff_recurrent"] <= 1e-3
    assert recurrent_path(path).is_file()
    assert max(verify(net, path, recurrent_path(path), batch=5, seed=9)) <= 1e-3
    model = OnnxMuZero.load(str(path), threads=1)
    assert model.metadata["mode"] == "muzero" and model.metadata["steps"] == "7"
    planes = np.stack([contract.encode(chess.Board())])
    out, state = model.initial(planes)
    with torch.no_grad():
        ref = net.eval().initial_inference(torch.from_numpy(planes))
        step = net.recurrent_inference(ref.state, torch.tensor([42]))
    assert np.allclose(state, ref.state.numpy(), atol=1e-4)
    assert np.allclose(out.policy, ref.policy.numpy(), atol=1e-3)
    nxt = model.recurrent(state, np.array([42]))
    assert np.allclose(nxt.state, step.state.numpy(), atol=1e-4)
    assert np.allclose(nxt.reward, torch.softmax(step.reward, 1).numpy(), atol=1e-4)
    # the initial graph alone is a contract net; a contract net is not a MuZero net
    assert OnnxEvaluator(str(path), threads=1).evaluate(planes).policy.shape == (1, 1858)
    recurrent_path(path).unlink()
    with pytest.raises(NetError, match="does not exist"):
        OnnxMuZero.load(str(path), threads=1)


def test_export_rejects_a_mismatch_and_keeps_old_files(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    net = MuZeroNet(get_config("tiny"))
    path = tmp_path / "mz.onnx"
    export_muzero(net, path)
    before = path.read_bytes()
    monkeypatch.setattr("trainer.muzero.export.verify", lambda *a, **k: (0.0, 0.5))
    with pytest.raises(RuntimeError, match="differs from torch"):
        export_muzero(MuZeroNet(get_config("tiny")), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mz.onnx", "mz.recurrent.onnx"]


# ----------------------------------------------------------------- latent search


@dataclass
class ToyModel:
    """A model whose dynamics are known exactly. State channel 0 holds the depth (plies from
    the root), channel 1 the last action, channel 2 the first action. The policy is uniform.
    Playing ``win_action`` at the root wins the game at once; after ``good_action`` at the root
    the opponent stands at ``good_value`` in every state below; everything else is even."""

    win_action: int = -1
    good_action: int = -1
    good_value: float = -0.8
    peaked_policy: int = -1
    name: str = "toy"
    calls: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)

    def _net(self, state: np.ndarray) -> NetOutput:
        b = len(state)
        policy = np.zeros((b, 1858), np.float32)
        if self.peaked_policy >= 0:
            policy[:, self.peaked_policy] = 30.0
        wdl = np.tile(np.array([0.25, 0.5, 0.25], np.float32), (b, 1))
        first = state[:, 2, 0, 0].astype(int)
        good = (first == self.good_action) & (self.good_action >= 0)
        # the same game value at every depth below the move, seen from the side to move
        sign = np.where(state[:, 0, 0, 0] % 2 == 1, 1.0, -1.0)
        v = self.good_value * sign[good]
        wdl[good] = np.stack([(1 + v) / 2, np.zeros_like(v), (1 - v) / 2], axis=1)
        return NetOutput(policy, wdl, None)

    def initial(self, planes: np.ndarray) -> tuple[NetOutput, np.ndarray]:
        state = np.full((len(planes), 3, 8, 8), -1.0, np.float32)
        state[:, 0] = 0.0
        return self._net(state), state

    def recurrent(self, state: np.ndarray, actions: np.ndarray) -> RecurrentOutput:
        self.calls.append((state.copy(), actions.copy()))
        nxt = state.copy()
        nxt[:, 0] += 1
        nxt[:, 1] = actions[:, None, None]
        root = state[:, 0, 0, 0] == 0
        nxt[root, 2] = actions[root, None, None]
        reward = np.tile(np.array([0.0, 1.0, 0.0], np.float32), (len(state), 1))
        reward[root & (actions == self.win_action)] = [0.98, 0.02, 0.0]
        return RecurrentOutput(nxt, reward, self._net(nxt))


def _search(model: ToyModel, board: chess.Board, nodes: int,
            root_filter: list[int] | None = None) -> LatentSearch:
    s = LatentSearch(model, SearchParams(minibatch_size=8))
    s.set_position(Position.from_board(board), [], root_filter)
    s.run_worker(lambda: False, nodes)
    return s


def _index(board: chess.Board, uci: str) -> int:
    return contract.move_index(board, chess.Move.from_uci(uci))


def test_latent_search_follows_the_known_dynamics() -> None:
    board = chess.Board()
    model = ToyModel(good_action=_index(board, "b1c3"))
    s = _search(model, board, 400)
    assert s.root_visits() == 400
    best = s.ranked_moves()[0]
    assert move_to_uci(best.move) == "b1c3" and best.q == pytest.approx(0.8, abs=0.05)
    # every stored state is its parent's stepped by the action on the edge: walk the tree
    assert s._states is not None
    seen = 0
    stack = [(ROOT, 0, -1)]
    while stack:
        node, depth, first = stack.pop()
        st = s._states[node]
        assert st[0, 0, 0] == depth and (depth == 0 or st[2, 0, 0] == first)
        moves, _, visits, *_rest, ids = s.tree.children(node)
        if depth > 0 and visits.sum():
            assert len(moves) == 1858  # inside the tree: every action of the policy
        for mv, v, c in zip(moves, visits, ids):
            if c >= 0 and v > 0:
                action = _index(board, move_to_uci(int(mv))) if depth == 0 else int(mv)
                assert s._states[c][1, 0, 0] == action
                stack.append((int(c), depth + 1, action if depth == 0 else first))
                seen += 1
    assert seen > 300 and s.stats.seldepth >= 2


def test_latent_search_takes_a_predicted_win_and_absorbs_it() -> None:
    board = chess.Board()
    model = ToyModel(win_action=_index(board, "g2g4"))
    s = _search(model, board, 300)
    best = s.ranked_moves()[0]
    assert move_to_uci(best.move) == "g2g4"
    assert best.q > 0.9 and best.visits > 100  # the reward, backed up at every visit
    assert s.describe()["absorbing"] == 1
    # below the game's end nothing is evaluated: no recurrent call starts from that state
    win_state_calls = [a for st, a in model.calls if (st[:, 2, 0, 0] == model.win_action).any()]
    assert not win_state_calls
    assert s.pv(best) == [best.move]


def test_root_is_masked_to_legal_moves() -> None:
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    illegal = contract.MOVE_INDEX["e2e4"]  # no pawn there: not a legal move
    s = _search(ToyModel(peaked_policy=illegal), board, 60)
    moves, priors, *_ = s.tree.children(ROOT)
    legal = {m.uci() for m in board.legal_moves}
    assert {move_to_uci(int(m)) for m in moves} == legal
    assert priors.sum() == pytest.approx(1.0, abs=1e-4)
    assert move_to_uci(s.ranked_moves()[0].move) in legal
    # inside the tree the learned policy is followed even where no board would allow it
    child = int(s.ranked_moves()[0].node)
    inner, inner_priors, *_ = s.tree.children(child)
    assert int(inner[0]) == illegal and inner_priors[0] > 0.99
    # searchmoves restrict the root further
    only = [m for m in moves if move_to_uci(int(m)) in ("e1g1", "a1a8")]
    s2 = _search(ToyModel(), board, 20, root_filter=[int(m) for m in only])
    assert {move_to_uci(int(m)) for m in s2.tree.children(ROOT)[0]} == {"e1g1", "a1a8"}


# ------------------------------------------------------------------------- UCI


def test_muzero_net_plays_a_legal_game_over_uci(tmp_path: Path, engine_cmd: list[str]) -> None:
    torch.manual_seed(5)
    path = tmp_path / "mz.onnx"
    export_muzero(MuZeroNet(get_config("tiny")), path)
    eng = chess.engine.SimpleEngine.popen_uci(engine_cmd, cwd=REPO, timeout=30)
    try:
        eng.configure({"WeightsFile": str(path)})
        board = chess.Board()
        rng = random.Random(0)
        while not board.is_game_over(claim_draw=True) and board.ply() < 400:
            if board.ply() % 2:  # a random opponent ends the game sooner than a self-game
                board.push(rng.choice(list(board.legal_moves)))
                continue
            info: dict = {}
            res = eng.play(board, chess.engine.Limit(nodes=24), info=chess.engine.INFO_ALL)
            info = res.info
            assert res.move in board.legal_moves
            assert "score" in info and "pv" in info and info["nodes"] >= 24
            board.push(res.move)
        assert board.is_game_over(claim_draw=True) or board.ply() == 400
    finally:
        eng.quit()


# ------------------------------------------------------------------------ loop


def test_loop_in_muzero_mode(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    from trainer.learn.export import read_metadata
    from trainer.data.records import list_records

    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "trainer", "loop", "--mode", "muzero", "--dir", str(run),
           "--init", "tiny", "--generations", "1", "--games", "2", "--minibatch", "4",
           "--full-visits", "8", "--max-plies", "30", "--steps", "3", "--batch-size", "8",
           "--warmup", "1", "--threads", "1", "--train-threads", "1", "--eval-games", "2",
           "--eval-nodes", "8"]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    games = list_records(run / "games")
    assert len(games) == 2
    rec = Record.load(games[0])
    assert rec.meta["mode"] == "muzero" and rec.full.all() and len(rec) > 0
    net = run / "nets" / "gen-0001.onnx"
    assert read_metadata(net)["mode"] == "muzero" and recurrent_path(net).is_file()
    hist = json.loads((run / "history" / "gen-0001.json").read_text())
    assert hist["export"]["engine_loads"] and hist["train"]["step"] == 3
    ev = hist["evaluate"]["previous"]
    assert ev["games"] == 2 and ev["wins"] + ev["draws"] + ev["losses"] == 2
    assert all(n == 0 for side in ev["failures"].values() for n in side.values())


def test_latent_search_with_two_workers() -> None:
    import threading

    board = chess.Board()
    model = ToyModel(good_action=_index(board, "d2d4"))
    s = LatentSearch(model, SearchParams(minibatch_size=4))
    s.set_position(Position.from_board(board), [])
    workers = [threading.Thread(target=s.run_worker, args=(lambda: False, 300)) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert s.root_visits() == 300 and s._inflight() == 0
    assert move_to_uci(s.ranked_moves()[0].move) == "d2d4"


def test_bundled_muzero_net_plays_stockfish_to_the_end(engine_cmd: list[str]) -> None:
    """The shipped MuZero net, through python-chess's UCI client, against Stockfish at its
    weakest: a whole game (to mate or a draw by the rules), every move legal."""
    import shutil

    net = REPO / "nets" / "zerosum-muzero.onnx"
    sf = shutil.which("stockfish") or "/usr/games/stockfish"
    if not Path(sf).is_file():
        pytest.skip("no stockfish")
    ours = chess.engine.SimpleEngine.popen_uci(engine_cmd, cwd=REPO, timeout=30)
    theirs = chess.engine.SimpleEngine.popen_uci(sf, timeout=30)
    try:
        ours.configure({"WeightsFile": str(net), "Threads": 1, "NNThreads": 1})
        theirs.configure({"Skill Level": 0, "Threads": 1})
        board = chess.Board()
        while not board.is_game_over(claim_draw=True) and board.ply() < 400:
            eng, limit = ((ours, chess.engine.Limit(nodes=32)) if board.turn == chess.WHITE
                          else (theirs, chess.engine.Limit(depth=1)))
            move = eng.play(board, limit).move
            assert move in board.legal_moves, f"{move} in {board.fen()}"
            board.push(move)
        assert board.is_game_over(claim_draw=True), "400 plies without an end"
    finally:
        ours.quit()
        theirs.quit()
