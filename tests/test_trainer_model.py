"""Trainer: model shapes and gradients, checkpoints, ONNX export, PGN data."""

from __future__ import annotations

import json
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

import onnxruntime as ort  # noqa: E402
import torch  # noqa: E402

from engine import contract  # noqa: E402
from engine.evaluator import BUNDLED_NET_FILE  # noqa: E402
from trainer.learn import checkpoint as ckpt  # noqa: E402
from trainer.learn.config import PRESETS, NetConfig, get_config  # noqa: E402
from trainer.learn.export import export_onnx, read_metadata, random_planes  # noqa: E402
from trainer.learn.model import Net, policy_map  # noqa: E402
from trainer.data.pgn_data import PositionData, unpack_legal  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
KASPAROV = SHARED / "pgn" / "python-chess_kasparov-deep-blue-1997.pgn"


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


def _planes(batch: int, seed: int = 0) -> torch.Tensor:
    return torch.from_numpy(random_planes(batch, seed))


def _train_a_little(model: Net, steps: int = 3) -> torch.optim.Optimizer:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for i in range(steps):
        out = model.heads(_planes(8, i))
        loss = torch.nn.functional.cross_entropy(out.policy, torch.arange(8) * 100)
        loss = loss + torch.nn.functional.cross_entropy(out.wdl, torch.arange(8) % 3)
        if out.mlh is not None:
            loss = loss + (out.mlh - 30.0).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    return opt


def test_presets() -> None:
    assert {"tiny", "small", "lc0-6x64", "lc0-10x128", "lc0-20x256"} <= set(PRESETS)
    assert get_config("small").blocks == 6 and get_config("small").filters == 64
    cfg = get_config("tiny")
    assert NetConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError):
        get_config("nope")


def test_policy_map_is_a_permutation_into_73_planes() -> None:
    m = policy_map()
    assert len(m) == contract.POLICY_SIZE == len(set(m))
    assert min(m) >= 0 and max(m) < 73 * 64
    # each entry's conv square is its from-square
    assert all(idx % 64 == chess.parse_square(mv[:2]) for idx, mv in zip(m, contract.MOVES))


@pytest.mark.parametrize("name", ["tiny", "small"])
def test_output_shapes(name: str) -> None:
    model = Net(get_config(name))
    for mode in (model.train, model.eval):
        mode()
        out = model(_planes(5))
        assert out.policy.shape == (5, contract.POLICY_SIZE)
        assert out.wdl.shape == (5, 3)
        assert torch.allclose(out.wdl.sum(1), torch.ones(5), atol=1e-5)
        assert (out.wdl >= 0).all()
        assert out.mlh is not None and out.mlh.shape == (5, 1) and (out.mlh >= 0).all()
        logits = model.heads(_planes(5))
        assert torch.allclose(torch.softmax(logits.wdl, 1), out.wdl, atol=1e-6)


def test_no_moves_left_head() -> None:
    model = Net(NetConfig(blocks=1, filters=8, policy_channels=8, value_channels=4, value_hidden=8,
                          moves_left=False))
    assert model(_planes(2)).mlh is None


@pytest.mark.parametrize("head_pool", [False, True])
def test_gradients_reach_every_parameter(head_pool: bool) -> None:
    model = Net(NetConfig(**{**get_config("tiny").to_dict(), "head_pool": head_pool})).train()
    out = model.heads(_planes(16))
    loss = torch.nn.functional.cross_entropy(out.policy, torch.randint(0, contract.POLICY_SIZE, (16,)))
    loss = loss + torch.nn.functional.cross_entropy(out.wdl, torch.randint(0, 3, (16,)))
    assert out.mlh is not None
    loss = loss + (out.mlh - 40.0).pow(2).mean()
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None, name
        assert torch.isfinite(p.grad).all(), name
        assert p.grad.abs().sum() > 0, name


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    model = Net(get_config("tiny"))
    opt = _train_a_little(model)
    path = tmp_path / "ck.pt"
    ckpt.save_checkpoint(path, model, 3, opt, {"note": "hi", "positions": 24})
    assert [p.name for p in tmp_path.iterdir()] == ["ck.pt"]

    loaded, state = ckpt.load_model(path)
    loaded.eval()
    x = _planes(4, 9)
    with torch.no_grad():
        a, b = model(x), loaded(x)
    for u, v in zip(a, b):
        assert torch.equal(u, v)
    assert state["step"] == 3 and state["metadata"] == {"note": "hi", "positions": 24}
    assert state["config"] == get_config("tiny").to_dict()

    opt2 = torch.optim.AdamW(loaded.parameters(), lr=1e-3)
    ckpt.restore_optimizer(opt2, state)
    s1, s2 = opt.state_dict(), opt2.state_dict()
    assert s1["param_groups"] == s2["param_groups"]
    assert s1["state"].keys() == s2["state"].keys()
    for k in s1["state"]:
        for name, t in s1["state"][k].items():
            assert torch.equal(t, s2["state"][k][name]), (k, name)


def test_checkpoint_crash_keeps_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = Net(get_config("tiny"))
    path = tmp_path / "ck.pt"
    ckpt.save_checkpoint(path, model, 1)
    before = path.read_bytes()

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    _train_a_little(model)
    monkeypatch.setattr(ckpt.torch, "save", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        ckpt.save_checkpoint(path, model, 2)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["ck.pt"]
    assert ckpt.load_checkpoint(path)["step"] == 1


def test_checkpoint_rejects_foreign_files(tmp_path: Path) -> None:
    path = tmp_path / "x.pt"
    torch.save({"hello": 1}, path)
    with pytest.raises(ValueError):
        ckpt.load_checkpoint(path)


@pytest.mark.parametrize("moves_left", [True, False])
def test_export_matches_torch(tmp_path: Path, moves_left: bool) -> None:
    cfg = NetConfig(**{**get_config("tiny").to_dict(), "moves_left": moves_left})
    model = Net(cfg)
    _train_a_little(model)  # non-trivial batch-norm statistics
    path = tmp_path / "net.onnx"
    diff = export_onnx(model, path, {"steps": 3, "positions": 24})
    assert diff < 1e-4
    assert [p.name for p in tmp_path.iterdir()] == ["net.onnx"]

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (inp,) = sess.get_inputs()
    assert inp.name == contract.INPUT_NAME and inp.shape[1:] == [112, 8, 8]
    assert isinstance(inp.shape[0], str)  # dynamic batch
    names = [contract.POLICY_NAME, contract.WDL_NAME] + ([contract.MLH_NAME] if moves_left else [])
    assert [o.name for o in sess.get_outputs()] == names

    model.eval()
    for batch in (1, 7):
        x = random_planes(batch, seed=batch)
        got = sess.run(names, {contract.INPUT_NAME: x})
        with torch.no_grad():
            ref = model(torch.from_numpy(x))
        assert got[0].shape == (batch, contract.POLICY_SIZE)
        assert got[1].shape == (batch, 3)
        np.testing.assert_allclose(got[1].sum(1), 1.0, atol=1e-5)
        assert np.abs(got[0] - ref.policy.numpy()).max() < 1e-4
        assert np.abs(got[1] - ref.wdl.numpy()).max() < 1e-4
        if moves_left:
            assert ref.mlh is not None and got[2].shape == (batch, 1)
            assert np.abs(got[2] - ref.mlh.numpy()).max() < 1e-4

    meta = read_metadata(path)
    assert meta["contract_version"] == str(contract.CONTRACT_VERSION)
    assert meta["steps"] == "3" and meta["positions"] == "24"
    assert "architecture" in meta and "date" in meta
    assert json.loads(meta["config"]) == cfg.to_dict()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_export_of_a_model_on_the_gpu(tmp_path: Path) -> None:
    # training with --device cuda exports the model where it lives; the check compares the fp32
    # CPU copy that was written (on the GPU, TF32 convolutions differ by ~0.05)
    model = Net(get_config("tiny"))
    _train_a_little(model)
    model = model.cuda().train()
    assert export_onnx(model, tmp_path / "net.onnx") < 1e-4
    assert next(model.parameters()).is_cuda and model.training


def test_export_refuses_bad_nets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trainer.learn.export as ex

    model = Net(get_config("tiny"))
    path = tmp_path / "net.onnx"
    path.write_bytes(b"old")
    monkeypatch.setattr(ex, "verify", lambda *a, **k: 0.5)
    with pytest.raises(RuntimeError):
        export_onnx(model, path)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["net.onnx"]


@pytest.fixture(scope="module")
def kasparov_data() -> PositionData:
    if not KASPAROV.exists():
        pytest.skip(f"{KASPAROV} not found")
    return PositionData.from_pgn([KASPAROV], progress=False)


def test_pgn_data_round_trip(kasparov_data: PositionData, tmp_path: Path) -> None:
    data = kasparov_data
    path = tmp_path / "d.npz"
    data.save(path)
    data = PositionData.load(path)
    with open(KASPAROV) as f:
        games = [g for g in iter(lambda: chess.pgn.read_game(f), None)]
    assert data.num_games == len(games) == 6
    assert len(data) == sum(len(list(g.mainline_moves())) for g in games)

    rng = np.random.default_rng(1)
    checked = 0
    start = 0
    for gi, game in enumerate(games):
        moves = list(game.mainline_moves())
        winner = {"1-0": chess.WHITE, "0-1": chess.BLACK, "1/2-1/2": None}[game.headers["Result"]]
        sample = set(rng.choice(len(moves), size=min(12, len(moves)), replace=False).tolist())
        sample |= {0, len(moves) - 1}
        board = game.board()
        for ply, move in enumerate(moves):
            if ply in sample:
                i = start + ply
                assert data.game[i] == gi and data.ply[i] == ply
                np.testing.assert_array_equal(data.planes([i])[0], contract.encode(board))
                np.testing.assert_array_equal(data.planes(i), contract.encode(board))
                assert data.policy[i] == contract.move_index(board, move)
                expected = 1 if winner is None else (0 if winner == board.turn else 2)
                assert data.wdl[i] == expected
                assert data.plies_left[i] == len(moves) - ply
                legal = np.flatnonzero(unpack_legal(data.legal[[i]])[0])
                assert sorted(legal.tolist()) == sorted(contract.legal_move_indices(board)[1].tolist())
                checked += 1
            board.push(move)
        start += len(moves)
    assert checked > 50


def test_pgn_data_skips_bad_games(tmp_path: Path) -> None:
    pgn = tmp_path / "g.pgn"
    pgn.write_text(
        '[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
        '[Result "*"]\n\n1. d4 d5 *\n\n'
        '[Result "0-1"]\n\n1. e4 e5 2. Ke3 Nf6 0-1\n\n'  # illegal king move
        '[Result "1/2-1/2"]\n\n1/2-1/2\n\n'
    )
    data = PositionData.from_pgn([pgn], progress=False)
    assert data.num_games == 1 and len(data) == 7
    assert data.wdl.tolist() == [0, 2, 0, 2, 0, 2, 0]
    assert data.plies_left.tolist() == [7, 6, 5, 4, 3, 2, 1]


def test_pgn_train_command(tmp_path: Path) -> None:
    if not KASPAROV.exists():
        pytest.skip(f"{KASPAROV} not found")
    from trainer.__main__ import main

    out = tmp_path / "run"
    args = ["pgn-train", "--pgn", str(KASPAROV), "--out", str(out), "--config", "tiny", "--steps", "4",
            "--batch-size", "16", "--warmup", "2", "--eval-every", "2", "--holdout", "0.2", "--threads", "1"]
    assert main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["steps"] == 4 and summary["held_out_games"] == 1
    assert 0 <= summary["held_out"]["policy_top1"] <= 1
    assert len((out / "log.jsonl").read_text().splitlines()) == 2
    assert ckpt.load_checkpoint(out / "checkpoint.pt")["step"] == 4
    sess = ort.InferenceSession(str(out / "net.onnx"), providers=["CPUExecutionProvider"])
    assert sess.get_inputs()[0].name == contract.INPUT_NAME
    assert main(["export", str(out / "checkpoint.pt"), str(tmp_path / "again.onnx")]) == 0
    assert read_metadata(tmp_path / "again.onnx")["steps"] == "4"


SEED_NET = Path(__file__).resolve().parent / "data" / "zerosum-seed.onnx"


def test_bundled_seed_net_is_sane() -> None:
    if not SEED_NET.exists():
        pytest.skip("tests/data/zerosum-seed.onnx not there")
    sess = ort.InferenceSession(str(SEED_NET), providers=["CPUExecutionProvider"])
    assert sess.get_inputs()[0].name == contract.INPUT_NAME
    names = [o.name for o in sess.get_outputs()]
    assert names[:2] == [contract.POLICY_NAME, contract.WDL_NAME]
    assert read_metadata(SEED_NET)["contract_version"] == str(contract.CONTRACT_VERSION)
    board = chess.Board()
    moves, idx = contract.legal_move_indices(board)
    policy, wdl = sess.run(names[:2], {contract.INPUT_NAME: contract.encode(board)[None]})
    top = [moves[i].uci() for i in np.argsort(-policy[0][idx])[:4]]
    assert {"e2e4", "d2d4"} & set(top[:2]), top
    assert set(top) <= {"e2e4", "d2d4", "g1f3", "c2c4", "e2e3", "g2g3", "b2b3", "c2c3", "d2d3", "b1c3"}, top
    assert abs(wdl[0].sum() - 1) < 1e-5 and 0.2 < wdl[0][0] < 0.8
    # after 1. e4 the usual replies should lead
    board.push_san("e4")
    moves, idx = contract.legal_move_indices(board)
    (policy,) = sess.run([contract.POLICY_NAME], {contract.INPUT_NAME: contract.encode(board)[None]})
    top = [moves[i].uci() for i in np.argsort(-policy[0][idx])[:3]]
    assert {"e7e5", "c7c5", "e7e6", "c7c6", "d7d5", "g8f6", "d7d6", "g7g6"} >= set(top), top


BUNDLED_NET = Path(__file__).resolve().parents[1] / "nets" / BUNDLED_NET_FILE


def test_bundled_net_sees_material() -> None:
    """The engine's default net: its value head must tell a side a queen up from an even game,
    and its policy must take a hanging queen (what a search builds on)."""
    if not BUNDLED_NET.exists():
        pytest.skip(f"nets/{BUNDLED_NET_FILE} not built")
    sess = ort.InferenceSession(str(BUNDLED_NET), providers=["CPUExecutionProvider"])

    def run(fen: str) -> tuple[np.ndarray, np.ndarray, list[chess.Move], list[int]]:
        board = chess.Board(fen)
        moves, idx = contract.legal_move_indices(board)
        policy, wdl = sess.run([contract.POLICY_NAME, contract.WDL_NAME],
                               {contract.INPUT_NAME: contract.encode(board)[None]})
        return policy[0], wdl[0], moves, idx

    _, even, _, _ = run(chess.STARTING_FEN)
    assert abs(even[0] - even[2]) < 0.35, even
    # White is a queen up (Black's queen removed from the start position)
    _, up, _, _ = run("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert up[0] - up[2] > 0.6, up
    # Black to move, a queen down: the same judgement from the other side
    _, down, _, _ = run("rnb1kbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert down[2] - down[0] > 0.6, down
    # White's queen left en prise on d5 (to the e6 pawn and the d8 queen): take it
    policy, _, moves, idx = run("rnbqkbnr/ppp2ppp/4p3/3Q4/8/8/PPPP1PPP/RNB1KBNR b KQkq - 0 3")
    best = moves[int(np.argmax(policy[idx]))]
    assert best.to_square == chess.D5, best
