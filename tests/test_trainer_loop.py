"""Replay window, training from records, and the loop: killed with SIGKILL during self-play,
resumed by the same command, then finished end to end (export, match, the engine plays)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import chess
import chess.engine
import numpy as np
import pytest
import torch

from trainer.data import records
from trainer.learn.config import get_config
from trainer.data.records import Record
from trainer.data.replay import ReplayWindow
from trainer.learn.train import TrainConfig, Trainer, lr_at

from test_selfplay import sample_record

REPO = Path(__file__).resolve().parents[1]


def write_games(d: Path, sizes: list[int], generation: int = 1) -> list[Path]:
    paths = []
    for i, n in enumerate(sizes):
        p = d / records.record_name(generation, 0, i)
        sample_record(n, seed=i).save(p)
        paths.append(p)
    return paths


def test_replay_window_bounds_and_stats(tmp_path: Path) -> None:
    write_games(tmp_path, [6, 6, 6])
    w = ReplayWindow([tmp_path], window=10)
    assert w.refresh() == 10
    assert w.games == 2  # the newest game whole, 4 positions of the one before
    newest = Record.load(tmp_path / records.record_name(1, 0, 2))
    assert np.array_equal(w._arrays["bits"][-6:], newest.bits)
    b = w.sample(8, np.random.default_rng(0))
    assert b.planes.shape == (8, 112, 8, 8)
    assert np.allclose(b.policy[b.has_policy].sum(1), 1.0) and not b.policy[~b.has_policy].any()
    s = w.stats()
    assert s["positions"] == 10 and s["games"] == 2 and s["games_white_win"] == 1.0
    write_games(tmp_path, [3], generation=2)  # a new generation pushes old positions out
    assert w.refresh() == 10 and w.games == 3
    big = ReplayWindow([tmp_path], window=100, dedup=True)
    big.refresh()
    # all sample games start from the same position: dedup keeps one copy of it
    assert len(big) == 21 and big.num_positions < 21


def test_lr_schedule() -> None:
    cfg = TrainConfig(lr=1.0, warmup=10, total_steps=110, lr_floor=0.0)
    assert lr_at(0, cfg) == pytest.approx(0.1) and lr_at(9, cfg) == pytest.approx(1.0)
    assert lr_at(60, cfg) == pytest.approx(0.5) and lr_at(110, cfg) == pytest.approx(0.0)
    step = TrainConfig(lr=1.0, warmup=0, total_steps=100, schedule="step")
    assert lr_at(10, step) == 1.0 and lr_at(60, step) == pytest.approx(0.1)


def test_train_from_records_and_exact_resume(tmp_path: Path) -> None:
    data = tmp_path / "games"
    data.mkdir()
    write_games(data, [8, 8, 8, 8])
    w = ReplayWindow([data], window=1000)
    w.refresh()
    cfg = TrainConfig(batch_size=16, warmup=2, total_steps=6, log_every=2, checkpoint_every=3,
                      keep=2, threads=1)
    straight = Trainer.create("tiny", cfg, tmp_path / "a")
    m = straight.train(w, 6, progress=False)
    assert np.isfinite(m["loss"]) and 0 <= m["value_acc"] <= 1 and "policy_top1" in m
    log = [json.loads(x) for x in (tmp_path / "a" / "train_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [2, 4, 6] and all("policy_loss" in r for r in log)
    assert list((tmp_path / "a" / "tb").iterdir())  # TensorBoard events
    # interrupted after 3 steps (its checkpoint), then resumed: the same weights at step 6
    first = Trainer.create("tiny", cfg, tmp_path / "b")
    first.train(w, 4, progress=False)  # step 4 is lost: the checkpoint is at 3
    resumed = Trainer.create("tiny", cfg, tmp_path / "b")
    assert resumed.step == 3
    resumed.train(w, 6, progress=False)
    a, b = straight.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    ckpts = sorted(p.name for p in (tmp_path / "b" / "checkpoints").iterdir())
    assert ckpts == ["ckpt-00000003.pt", "ckpt-00000006.pt"]
    assert resumed.model.cfg == get_config("tiny")


LOOP_ARGS = ["--recipe", "none", "--init", "tiny", "--generations", "1", "--games", "6",
             "--parallel", "2", "--minibatch", "4", "--full-visits", "32", "--fast-visits", "8",
             "--max-plies", "60", "--steps", "4", "--batch-size", "32", "--warmup", "2",
             "--threads", "1", "--train-threads", "1", "--eval-games", "2", "--eval-nodes", "8"]


def loop_cmd(run: Path) -> list[str]:
    """The loop with an anchor mixed in and held-out figures, both of sample records."""
    extra = ["--mix-data", str(run.parent / "anchor"), "--mix-share", "0.25",
             "--heldout", str(run.parent / "heldout")]
    return [sys.executable, "-m", "trainer.cli_rl", "loop", "--dir", str(run), *LOOP_ARGS, *extra]


@pytest.fixture(scope="module")
def killed_and_resumed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Runs the loop, SIGKILLs it as soon as self-play has written a game, runs it again."""
    run = tmp_path_factory.mktemp("loop") / "run"
    games = run / "games"
    write_games(run.parent / "anchor", [7, 7])
    write_games(run.parent / "heldout", [5])
    proc = subprocess.Popen(loop_cmd(run), cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    try:
        while not records.list_records(games) and time.monotonic() < deadline:
            assert proc.poll() is None, "the loop ended before it could be killed"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    at_kill = len(records.list_records(games))
    state = json.loads((run / "state.json").read_text())
    done = subprocess.run(loop_cmd(run), cwd=REPO, capture_output=True, text=True, timeout=300)
    return {"run": run, "at_kill": at_kill, "state_at_kill": state, "done": done}


def test_loop_resumes_after_kill_without_losing_or_duplicating_games(
        killed_and_resumed: dict[str, object]) -> None:
    run = killed_and_resumed["run"]
    done = killed_and_resumed["done"]
    assert isinstance(run, Path) and isinstance(done, subprocess.CompletedProcess)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert killed_and_resumed["state_at_kill"]["phase"] == "selfplay"  # type: ignore[index]
    assert 1 <= int(killed_and_resumed["at_kill"]) < 6  # type: ignore[call-overload]
    files = records.list_records(run / "games")
    assert [records.parse_name(p.name) for p in files] == [(1, 0, i) for i in range(6)]
    assert all(p.with_suffix(".pgn").exists() for p in files)
    assert not [p for p in (run / "games").iterdir() if p.name.startswith(".")]
    ids = [Record.load(p).meta["game"] for p in files]
    assert ids == list(range(6))
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == 2 and state["phase"] == "selfplay" and state["step"] == 4


def test_loop_end_to_end_exports_a_net_the_engine_plays(
        killed_and_resumed: dict[str, object]) -> None:
    run = killed_and_resumed["run"]
    assert isinstance(run, Path)
    net = run / "nets" / "gen-0001.onnx"
    hist = json.loads((run / "history" / "gen-0001.json").read_text())
    assert hist["export"]["engine_loads"] and hist["train"]["step"] == 4
    assert hist["train"]["window"]["mixed"] == {"share": 0.25, "positions": 14, "files": 2}
    held = hist["heldout"]
    assert held["positions"] == 5 and held["policy_positions"] == 3  # sample records: every other
    assert 0 <= held["policy_top1"] <= 1
    assert (run / "plots" / "heldout.png").exists()
    ev = hist["evaluate"]["previous"]
    assert ev["games"] == 2 and ev["wins"] + ev["draws"] + ev["losses"] == 2
    assert (run / "plots" / "losses.png").exists() and (run / "plots" / "elo.png").exists()
    from trainer.learn.export import read_metadata

    meta = read_metadata(net)
    assert meta["steps"] == "4" and "architecture" in meta and "date" in meta
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, str(REPO / "uci_main.py")],
                                                 cwd=str(REPO))
    try:
        engine.configure({"WeightsFile": str(net)})
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(nodes=16))
        assert result.move is not None and board.is_legal(result.move)
    finally:
        engine.quit()


def test_sf_label_writes_records(tmp_path: Path) -> None:
    from trainer.play.endgames import curriculum
    from trainer.data.sflabel import write_labels
    from trainer.arena.match import stockfish_path

    sf = stockfish_path()
    if sf is None:
        pytest.skip("Stockfish is not installed")
    boards = [chess.Board(f) for f in curriculum(3, seed=5)]
    boards.append(chess.Board())
    boards[-1].push_san("e4")  # a position with history
    paths = write_labels(tmp_path, boards, chunk=3, stockfish=sf, depth=6, multipv=4,
                         progress=False)
    assert [p.name for p in paths] == ["sf-000000.npz", "sf-000001.npz"]
    recs = [Record.load(p) for p in paths]
    assert sum(len(r) for r in recs) == 4 and all(r.full.all() for r in recs)
    for r in recs:
        assert np.allclose(r.wdl.sum(1), 1.0, atol=1e-3) and (r.plies_left == -1).all()
        for i in range(len(r)):
            idx, prob = r.policy(i)
            assert 1 <= len(idx) <= 4 and abs(prob.sum() - 1) < 1e-5
    w = ReplayWindow([tmp_path], 100)
    assert w.refresh() == 4


def test_sf_games_label_every_position(tmp_path: Path, shared_data: Path) -> None:
    """Stockfish-played games: each position labelled, consecutive plies, the move played is
    one of the MultiPV moves (no random moves), lopsided games adjudicated unless played out;
    records written."""
    from trainer.arena.match import stockfish_path
    from engine import contract
    from engine.board_ref import to_chess_move
    from trainer.data.sflabel import opening_boards, play_and_label, write_records

    sf = stockfish_path()
    if sf is None:
        pytest.skip("Stockfish is not installed")
    starts = opening_boards(shared_data / "openings" / "8moves_v3.pgn", 1, seed=3)
    assert len(starts) == 1 and starts[0].ply() == 16
    labels = list(play_and_label(sf, starts, nodes=400, multipv=3, random_move_p=0.0,
                                 max_plies=6, adjudicate_cp=1e9, label_opening=False,
                                 fen_only_p=0.0, progress=False))
    assert len(labels) == 6
    for k, (board, idx, prob, wdl, best) in enumerate(labels):
        assert board.ply() == 16 + k and 1 <= len(idx) <= 3
        assert abs(sum(prob) - 1) < 1e-6 and abs(sum(wdl) - 1) < 1e-3
        if k + 1 < len(labels):
            played = labels[k + 1][0].move_stack[-1]
            assert contract.move_index(board, played) in idx
    # a won ending stops after adjudicate_plies plies at >= adjudicate_cp
    won = [chess.Board("4k3/8/8/8/8/8/8/QQ2K3 w - - 0 1")]
    short = list(play_and_label(sf, won, nodes=400, multipv=2, adjudicate_cp=500,
                                adjudicate_plies=2, progress=False))
    assert len(short) == 2
    # ... unless the game is one of the share played out: then Stockfish mates
    played = list(play_and_label(sf, won, nodes=400, multipv=2, adjudicate_cp=500,
                                 adjudicate_plies=2, random_move_p=0.0, playout_p=1.0,
                                 progress=False))
    assert len(played) > 2
    last, best = played[-1][0].copy(), played[-1][4]  # the position before the game's end
    last.push(to_chess_move(best))
    assert last.is_checkmate()
    # the book line's own positions, from the start position; fen-only boards have no history
    opening = list(play_and_label(sf, starts, nodes=200, multipv=2, max_plies=0,
                                  fen_only_p=0.0, progress=False))
    assert [b.ply() for b, *_ in opening] == list(range(16))
    assert opening[0][0] == chess.Board() and opening[5][0].move_stack == starts[0].move_stack[:5]
    bare = list(play_and_label(sf, starts, nodes=200, multipv=2, max_plies=3,
                               label_opening=False, fen_only_p=1.0, progress=False))
    assert len(bare) == 3 and all(not b.move_stack for b, *_ in bare)
    # side positions: a random move's position labelled after its game position, not played on
    sided = list(play_and_label(sf, starts, nodes=200, multipv=3, random_move_p=0.0,
                                max_plies=4, adjudicate_cp=1e9, label_opening=False,
                                fen_only_p=0.0, side_p=1.0, seed=5, progress=False))
    game, side = sided[0::2], sided[1::2]
    assert len(game) == len(side) == 4
    assert [b.ply() for b, *_ in game] == [16, 17, 18, 19]
    for (g, *_), (s, s_idx, *_) in zip(game, side):
        assert s.ply() == g.ply() + 1 and s.move_stack[:-1] == g.move_stack
        assert s.move_stack[-1] in g.legal_moves and 1 <= len(s_idx) <= 3
    assert any(s.move_stack[-1] != n.move_stack[-1] for (s, *_), (n, *_)
               in zip(side, game[1:]))  # the side move is random, not the move the game played
    paths = write_records(tmp_path, labels + short, {"kind": "test"}, chunk=5)
    assert [p.name for p in paths] == ["sf-000000.npz", "sf-000001.npz"]
    assert sum(len(Record.load(p)) for p in paths) == 8
    # `train --export` trains on them and says in the net's metadata what it learned from
    from trainer.cli_rl import main as cli_main
    from trainer.learn.export import read_metadata

    net = tmp_path / "net.onnx"
    assert cli_main(["train", "--data", str(tmp_path), "--out", str(tmp_path / "run"), "--init",
                     "tiny", "--steps", "2", "--batch-size", "4", "--export", str(net)]) == 0
    meta = read_metadata(net)
    assert "(test)" in meta["training"] and meta["init"] == "tiny" and meta["steps"] == "2"


def test_the_pipe_analyser_agrees_with_python_chess(shared_data: Path) -> None:
    """trainer.data.sfuci reads Stockfish's MultiPV lines itself (for speed); on the same positions in
    the same order at a node limit it gives python-chess's moves, scores (mates as 10000 minus
    the distance) and WDL; a finished game gives None; a dead engine is an error, not a hang."""
    import chess.engine
    from trainer.arena.match import stockfish_path
    from trainer.data.sflabel import positions_from_pgn
    from trainer.data.sfuci import StockfishAnalyser

    sf = stockfish_path()
    if sf is None:
        pytest.skip("Stockfish is not installed")
    games = shared_data / "pgn" / "python-chess_kasparov-deep-blue-1997.pgn"
    boards = positions_from_pgn([str(games)], 6, seed=1, min_ply=10)
    boards += [chess.Board("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"),  # mate in 1
               chess.Board("7k/8/8/8/8/8/1r6/K7 w - - 0 1")]  # one legal move
    ref = chess.engine.SimpleEngine.popen_uci(sf)
    try:
        ref.configure({"UCI_ShowWDL": True, "Threads": 1, "Hash": 16})
        expected = []
        for b in boards:
            infos = ref.analyse(b, chess.engine.Limit(nodes=1500), multipv=4)
            expected.append(([i["pv"][0] for i in infos],
                             [float(i["score"].relative.score(mate_score=10_000)) for i in infos],
                             [x / 1000 for x in infos[0]["wdl"].relative]))
    finally:
        ref.quit()
    with StockfishAnalyser(sf) as a:
        got = [a.analyse(b, 4, nodes=1500) for b in boards]
        assert a.analyse(chess.Board("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1"), 4, nodes=100) is None
    assert got == expected
    assert got[-2] is not None and got[-2][1][0] == 9999.0 and got[-2][2] == [1.0, 0.0, 0.0]
    assert got[-1] is not None and len(got[-1][0]) == 1
    a = StockfishAnalyser(sf)
    a.proc.kill()
    a.proc.wait()
    with pytest.raises(RuntimeError, match="Stockfish exited"):
        a.analyse(chess.Board(), 2, nodes=100)
    a.close()


@pytest.mark.parametrize("eval_previous", [True, False])
def test_evaluation_opponents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              eval_previous: bool) -> None:
    """--no-eval-previous plays generation 0 only; the gate always needs the previous net."""
    import trainer.loop as loop_mod
    from trainer.__main__ import build_parser
    from trainer.cli_rl import loop_config

    played: list[str] = []

    def fake_evaluate(new: Path, other: Path, cfg: object, pgn: Path) -> dict[str, object]:
        played.append(other.name)
        return {"wins": 1, "draws": 0, "losses": 0, "score": 1.0, "elo": 0.0, "error": 0.0}

    monkeypatch.setattr(loop_mod, "evaluate", fake_evaluate)
    monkeypatch.setattr(loop_mod, "make_plots", lambda run: None)
    cfg = loop_mod.LoopConfig(run_dir=str(tmp_path), eval_games=2, eval_previous=eval_previous)
    lp = loop_mod.Loop(cfg)
    lp.state = {"best": "nets/gen-0001.onnx"}
    lp.phase_evaluate(2)
    assert played == (["gen-0001.onnx", "gen-0000.onnx"] if eval_previous else ["gen-0000.onnx"])
    assert lp.state["best"] == "nets/gen-0002.onnx"
    args = ["loop", "--dir", str(tmp_path), "--no-eval-previous", "--gate", "0.55"]
    with pytest.raises(SystemExit, match="gate"):
        loop_config(build_parser().parse_args(args))


def test_an_interrupted_evaluation_is_not_recorded(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A match cut short by a second Ctrl-C leaves the generation in its evaluate phase: no
    history, no promotion, so the next run resumes the match instead of moving on."""
    import trainer.loop as loop_mod

    def cut_short(new: Path, other: Path, cfg: object, pgn: Path) -> dict[str, object]:
        return {"games": 3, "wins": 3, "draws": 0, "losses": 0, "score": 1.0, "elo": 800.0,
                "error": 0.0, "interrupted": True}

    monkeypatch.setattr(loop_mod, "evaluate", cut_short)
    monkeypatch.setattr(loop_mod, "make_plots", lambda run: None)
    lp = loop_mod.Loop(loop_mod.LoopConfig(run_dir=str(tmp_path), eval_games=100))
    lp.state = {"generation": 2, "phase": "evaluate", "best": "nets/gen-0001.onnx"}
    assert lp.run_phase() is False
    assert lp.state == {"generation": 2, "phase": "evaluate", "best": "nets/gen-0001.onnx"}
    assert "evaluate" not in lp.history(2)


def test_train_target_follows_the_previous_generation(tmp_path: Path) -> None:
    """A run resumed with another --steps trains the next generations by the new amount; the
    step count already reached is kept (not recomputed as generation * steps)."""
    from trainer.loop import Loop, LoopConfig

    lp = Loop(LoopConfig(run_dir=str(tmp_path), steps=300))
    assert lp.train_target(1) == 300
    assert lp.train_target(3) == 900  # no history: as if every generation had trained 300
    lp.save_history(6, "train", {"step": 600})  # six generations of 100 steps
    assert lp.train_target(7) == 900
    assert Loop(LoopConfig(run_dir=str(tmp_path), steps=100)).train_target(7) == 700


def test_evaluation_resumes_with_the_games_it_finished(
        tmp_path: Path, bundled_net: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop killed mid-match keeps the finished games (PATH.partial) and plays the rest."""
    import shutil

    import chess.pgn

    import trainer.loop as loop_mod
    import trainer.arena.match as match_mod

    new, old = tmp_path / "gen-0001.onnx", tmp_path / "gen-0000.onnx"
    shutil.copy(bundled_net, new)
    shutil.copy(bundled_net, old)
    pgn = tmp_path / "eval" / "gen-0001-vs-reference.pgn"
    cfg = loop_mod.LoopConfig(run_dir=str(tmp_path), eval_games=2, eval_nodes=4,
                              eval_concurrency=1)
    first = loop_mod.evaluate(new, old, cfg, pgn)
    assert first["games"] == 2 and first["interrupted"] is False
    # As if killed after two games: only the .partial holds them.
    pgn.rename(pgn.with_name(pgn.name + ".partial"))
    resumed_with: list[int] = []
    real = match_mod.play_match

    def spy(*args: object, **kw: object) -> object:
        resumed_with.append(len(kw["previous"]))  # type: ignore[arg-type]
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(match_mod, "play_match", spy)
    cfg.eval_games = 4
    second = loop_mod.evaluate(new, old, cfg, pgn)
    assert resumed_with == [2]
    assert second["games"] == 4
    with open(pgn, encoding="utf-8") as f:
        rounds = []
        while (g := chess.pgn.read_game(f)) is not None:
            rounds.append(int(g.headers["Round"]))
    assert rounds == [1, 2, 3, 4]


def test_mixed_window_draws_its_share_from_the_anchor(tmp_path: Path) -> None:
    """Each batch holds round(share * size) anchor rows, whatever the windows' sizes."""
    from trainer.data.replay import MixedWindow

    selfplay, anchor = tmp_path / "games", tmp_path / "sf"
    selfplay.mkdir()
    anchor.mkdir()
    write_games(selfplay, [40])
    rec = sample_record(6, seed=3)
    rec.root_q[:] = 5.0  # a value no self-play record holds: marks the anchor's rows
    rec.save(anchor / "sf-000000.npz")
    w = MixedWindow(ReplayWindow([selfplay], 30), ReplayWindow([anchor], 1 << 40), 0.25)
    assert w.refresh() == 30 and len(w.mix) == 6
    for seed in range(5):
        b = w.sample(16, np.random.default_rng(seed))
        assert b.planes.shape == (16, 112, 8, 8) and len(b.wdl) == 16
        assert list(b.root_q == 5.0) == [False] * 12 + [True] * 4
    assert w.stats()["mixed"] == {"share": 0.25, "positions": 6, "files": 1}
    with pytest.raises(ValueError, match="strictly between"):
        MixedWindow(ReplayWindow([selfplay], 30), ReplayWindow([anchor], 10), 1.0)
    empty = MixedWindow(ReplayWindow([selfplay], 30), ReplayWindow([tmp_path / "none"], 10), 0.5)
    with pytest.raises(ValueError, match="no records to mix in"):
        empty.refresh()


def test_a_value_only_anchor_teaches_no_policy(tmp_path: Path) -> None:
    """--mix-targets value: the anchor rows lose their policy targets, so the policy loss and
    its gradient are the self-play rows' alone, while the value loss still counts them."""
    from trainer.learn.model import Net
    from trainer.data.replay import Batch, mix_metadata, training_window
    from trainer.learn.train import compute_losses

    selfplay, anchor = tmp_path / "games", tmp_path / "sf"
    write_games(selfplay, [40])
    anchor.mkdir()
    sample_record(8, seed=4).save(anchor / "sf-000000.npz")  # half its rows with a policy
    both = training_window([selfplay], 30, mix_data=[anchor], mix_share=0.25)
    value = training_window([selfplay], 30, mix_data=[anchor], mix_share=0.25,
                            mix_targets="value")
    both.refresh(), value.refresh()
    b, v = (w.sample(16, np.random.default_rng(1)) for w in (both, value))
    assert b.has_policy[12:].any() and not v.has_policy[12:].any()
    assert (v.has_policy[:12] == b.has_policy[:12]).all() and (v.policy == b.policy).all()
    assert value.stats()["mixed"]["targets"] == "value" and "targets" not in both.stats()["mixed"]
    assert mix_metadata([str(anchor)], 0.25, "value")["mixed"]["targets"] == "value"
    with pytest.raises(ValueError, match="one of both, value"):
        training_window([selfplay], 30, mix_data=[anchor], mix_share=0.25, mix_targets="policy")

    torch.manual_seed(0)
    model = Net(get_config("tiny")).eval()
    cfg = TrainConfig(q_weight=0.5)
    main_rows = int(v.has_policy.sum())
    _, m_value = compute_losses(model, v, cfg, torch.device("cpu"))
    _, m_both = compute_losses(model, b, cfg, torch.device("cpu"))
    assert m_value["policy_positions"] == main_rows < m_both["policy_positions"]
    assert m_value["value_loss"] == pytest.approx(m_both["value_loss"])
    # the policy loss is the mean over the self-play rows only
    alone = Batch(**{k: getattr(v, k)[:12] for k in Batch.__dataclass_fields__})
    _, m_alone = compute_losses(model, alone, cfg, torch.device("cpu"))
    assert m_value["policy_loss"] == pytest.approx(m_alone["policy_loss"], rel=1e-5)


def test_policy_power_sharpens_a_stockfish_target_to_a_lower_temperature(
        tmp_path: Path) -> None:
    """--policy-power k trains on the target ** k, renormalised: for a Stockfish label (the
    softmax of its MultiPV scores at 60 cp) that is the softmax at 60/k cp."""
    from trainer.__main__ import build_parser
    from trainer.cli_rl import _train_config
    from trainer.data.replay import Batch, training_window
    from trainer.data.sflabel import softmax_cp
    from trainer.learn.model import Net
    from trainer.learn.train import compute_losses

    cps = [35.0, 20.0, -10.0, -80.0, -300.0]
    sharp = softmax_cp(cps, 60.0) ** 2
    assert sharp / sharp.sum() == pytest.approx(softmax_cp(cps, 30.0))

    write_games(tmp_path / "games", [40])
    window = training_window([tmp_path / "games"], 30)
    window.refresh()
    b = window.sample(16, np.random.default_rng(2))
    assert b.has_policy.sum() > 0
    p2 = b.policy.astype(np.float64) ** 2
    sums = p2.sum(1, keepdims=True)
    p2 = np.divide(p2, sums, out=np.zeros_like(p2), where=sums > 0).astype(np.float32)
    squared = Batch(**{**{k: getattr(b, k) for k in Batch.__dataclass_fields__}, "policy": p2})
    torch.manual_seed(0)
    model = Net(get_config("tiny")).eval()
    dev = torch.device("cpu")
    _, m_power = compute_losses(model, b, TrainConfig(policy_power=2.0), dev)
    _, m_plain = compute_losses(model, b, TrainConfig(), dev)
    _, m_by_hand = compute_losses(model, squared, TrainConfig(), dev)
    assert m_power["policy_loss"] == pytest.approx(m_by_hand["policy_loss"], rel=1e-5)
    assert abs(m_power["policy_loss"] - m_plain["policy_loss"]) > 1e-3
    assert m_power["value_loss"] == pytest.approx(m_plain["value_loss"])

    parse = build_parser().parse_args
    args = ["train", "--data", str(tmp_path / "games"), "--out", str(tmp_path / "o")]
    assert _train_config(parse([*args, "--policy-power", "2"]), 10).policy_power == 2.0
    with pytest.raises(SystemExit, match="--policy-power must be above 0"):
        _train_config(parse([*args, "--policy-power", "0"]), 10)


@pytest.mark.parametrize("args, message", [
    (["--mix-share", "0.3"], "needs --mix-data"),
    (["--mix-data", "x", "--mix-share", "1.5"], "strictly between"),
    (["--mix-data", "x"], "strictly between"),
    (["--mix-targets", "value"], "needs --mix-data"),
    (["--mix-data", "x", "--mix-share", "0.3", "--mode", "muzero"], "MuZero"),
    (["--policy-power", "2", "--mode", "muzero"], "MuZero"),
])
def test_loop_rejects_a_bad_mix(tmp_path: Path, args: list[str], message: str) -> None:
    from trainer.__main__ import build_parser
    from trainer.cli_rl import loop_config

    with pytest.raises(SystemExit, match=message):
        loop_config(build_parser().parse_args(["loop", "--dir", str(tmp_path), *args]))
    sf, h1, h2 = (str(tmp_path / n) for n in ("sf", "h1", "h2"))
    ok = ["loop", "--dir", str(tmp_path), "--mix-data", sf, "--mix-share", "0.3",
          "--heldout", h1, h2]
    with pytest.raises(SystemExit, match="--mix-data: no record files"):
        loop_config(build_parser().parse_args(ok))
    write_games(Path(sf), [3])
    write_games(Path(h1), [3])
    with pytest.raises(SystemExit, match="--heldout: no record files"):
        loop_config(build_parser().parse_args([*ok[:-3], "--heldout", str(tmp_path / "h3")]))
    cfg = loop_config(build_parser().parse_args(ok))  # h2 empty: h1 holds records
    assert cfg.mix_data == [sf] and cfg.mix_share == 0.3 and cfg.heldout == [h1, h2]
    assert cfg.mix_targets == "both"
    assert loop_config(build_parser().parse_args([*ok, "--mix-targets", "value"])).mix_targets \
        == "value"


def test_heldout_agreement_of_a_net_with_its_own_labels(tmp_path: Path, bundled_net: Path) -> None:
    """Labelled with the net's own value and best move, the net agrees exactly; labelled with
    the opposite value, its MAE is twice its mean value size."""
    from engine.evaluator import OnnxEvaluator
    from trainer.arena.heldout import agreement, record_files

    rec = sample_record(8, seed=1)
    out = OnnxEvaluator(str(bundled_net), threads=1).evaluate(rec.planes())
    q = out.wdl[:, 0] - out.wdl[:, 2]
    best = [[int(np.argmax(out.policy[i]))] for i in range(len(rec))]
    own = Record.build(rec.planes(), list(rec.moves), rec.wdl, q, rec.root_d,
                       rec.plies_left, [(b, [1.0]) for b in best])
    own.save(tmp_path / "own" / "sf-000000.npz")
    opposite = Record.build(rec.planes(), list(rec.moves), rec.wdl, -q, rec.root_d,
                            rec.plies_left, [(b, [1.0]) for b in best])
    opposite.save(tmp_path / "opposite" / "sf-000000.npz")
    a = agreement(bundled_net, record_files([tmp_path / "own"]), threads=1)
    assert a["positions"] == 8 and a["policy_top1"] == 1.0
    assert a["value_mae"] < 1e-5 and a["value_corr"] > 0.999
    # the policy's sharpness: the top probability is the largest softmax entry, and a
    # distribution over 1858 entries has entropy between 0 and log(1858)
    z = out.policy.astype(np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    assert a["policy_top_p"] == pytest.approx(float(p.max(axis=1).mean()), rel=1e-6)
    assert 0.0 < a["policy_entropy"] < np.log(1858)
    b = agreement(bundled_net, record_files([tmp_path / "opposite" / "sf-000000.npz"]), threads=1)
    assert b["value_mae"] == pytest.approx(2 * b["mean_abs_value"], abs=1e-5)
    with pytest.raises(ValueError, match="no record files"):
        record_files([tmp_path / "nothing"])


def test_a_loop_resumed_with_other_settings_keeps_the_old_config(tmp_path: Path) -> None:
    """config.json is what runs from here on; the settings it replaced stay beside it."""
    from trainer.loop import Loop, LoopConfig

    (tmp_path / "state.json").write_text(json.dumps({"generation": 13, "phase": "selfplay"}))
    first = LoopConfig(run_dir=str(tmp_path), steps=300)
    (tmp_path / "config.json").write_text(json.dumps(asdict(first)))
    Loop(first).initialise()  # same settings: nothing moves
    assert not list(tmp_path.glob("config-*.json"))
    # a run begun before a setting existed resumes at its default, and is refused another value
    older = asdict(first)
    del older["train"]["policy_power"]
    (tmp_path / "config.json").write_text(json.dumps(older))
    Loop(first, change_config=False).initialise()
    assert not list(tmp_path.glob("config-*.json"))
    sharper = LoopConfig(run_dir=str(tmp_path), steps=300,
                         train=TrainConfig(policy_power=2.0))
    with pytest.raises(SystemExit, match="policy_power"):
        Loop(sharper, change_config=False).initialise()
    Loop(LoopConfig(run_dir=str(tmp_path), steps=300, mix_data=["sf"], mix_share=0.25)).initialise()
    old = json.loads((tmp_path / "config-before-gen-0013.json").read_text())
    new = json.loads((tmp_path / "config.json").read_text())
    assert old["mix_share"] == 0.0 and new["mix_share"] == 0.25 and new["mix_data"] == ["sf"]


def test_evaluation_at_a_clock(tmp_path: Path, bundled_net: Path) -> None:
    """--eval-tc plays the generation's match at a time control instead of fixed nodes (the
    PGN says which), and the CLI refuses a clock it cannot parse before any work starts."""
    import shutil

    import chess.pgn

    import trainer.loop as loop_mod
    from trainer.__main__ import build_parser
    from trainer.cli_rl import loop_config

    new, old = tmp_path / "gen-0001.onnx", tmp_path / "gen-0000.onnx"
    shutil.copy(bundled_net, new)
    shutil.copy(bundled_net, old)
    pgn = tmp_path / "eval" / "gen-0001-vs-reference.pgn"
    cfg = loop_config(build_parser().parse_args(
        ["loop", "--dir", str(tmp_path), "--eval-games", "2", "--eval-tc", "3+0.05"]))
    cfg.selfplay.max_plies = 24  # the ply count includes the 16-ply book line: 8 engine moves
    res = loop_mod.evaluate(new, old, cfg, pgn)
    assert res["tc"] == "3+0.05" and res["nodes"] is None and res["games"] == 2
    assert res["failures"] == {n: {"crash": 0, "time loss": 0, "illegal move": 0}
                               for n in ("zerosum-gen-0001", "zerosum-gen-0000")}
    with open(pgn, encoding="utf-8") as f:
        games = list(iter(lambda: chess.pgn.read_game(f), None))
    assert [g.headers["TimeControl"] for g in games] == ["3+0.05", "3+0.05"]
    for g in games:  # the engines played on the clock after the book line
        clocks = [c for n in g.mainline() if (c := n.clock()) is not None]
        assert len(clocks) >= 4 and all(0.0 < c <= 3.05 for c in clocks)
    with pytest.raises(SystemExit, match="--eval-tc"):
        loop_config(build_parser().parse_args(["loop", "--dir", str(tmp_path),
                                               "--eval-tc", "10 minutes"]))


def test_export_ema_averages_the_trained_net_with_the_previous(tmp_path: Path) -> None:
    """``--export-ema 0.25``: generation 1's net is 0.25 x the trained weights + 0.75 x
    generation 0's, the trained net is kept beside it, and training goes on from the trained
    weights (the checkpoint), not from the mean."""
    from test_average import weights_of as weights
    from trainer.learn.export import export_onnx
    from trainer.loop import Loop, LoopConfig

    cfg = LoopConfig(run_dir=str(tmp_path), init="tiny", steps=3, export_ema=0.25,
                     train=TrainConfig(batch_size=16, warmup=1, threads=1))
    lp = Loop(cfg)
    lp.progress = False
    lp.initialise()
    write_games(tmp_path / "games", [6, 6])
    assert lp.phase_train(1) and lp.phase_export(1)
    g0, g1 = weights(lp.net_path(0)), weights(lp.net_path(1))
    trained = weights(tmp_path / "nets" / "trained" / "gen-0001.onnx")
    floats = [n for n in g1 if np.issubdtype(g1[n].dtype, np.floating)]
    assert any(not np.allclose(g0[n], trained[n]) for n in floats)  # training moved the net
    for n in floats:
        assert np.allclose(g1[n], 0.25 * trained[n] + 0.75 * g0[n], atol=1e-6), n
    ema = json.loads((tmp_path / "history" / "gen-0001.json").read_text())["export"]["ema"]
    assert ema["weight"] == 0.25 and ema["previous"] == "gen-0000.onnx"
    ckpt = torch.load(sorted((tmp_path / "checkpoints").glob("ckpt-*.pt"))[-1],
                      weights_only=False)
    assert ckpt["step"] == 3
    again = tmp_path / "from-checkpoint.onnx"  # the checkpoint holds the trained weights
    export_onnx(lp.trainer().model, again, {})
    resumed = weights(again)
    assert all(np.allclose(resumed[n], trained[n], atol=1e-6) for n in floats)


def test_train_only_moves_the_named_parameters_alone(tmp_path: Path) -> None:
    """``--train-only policy_``: the policy head's weights change, the trunk and the value head
    stay to the last bit (frozen, not merely slowed); an unknown prefix is refused."""
    write_games(tmp_path / "games", [6, 6])
    cfg = TrainConfig(batch_size=16, warmup=1, threads=1, lr=1e-2, train_only=["policy_"])
    t = Trainer.create("tiny", cfg, tmp_path / "out")
    before = {n: p.detach().clone() for n, p in t.model.named_parameters()}
    w = ReplayWindow([tmp_path / "games"], window=100)
    w.refresh()
    t.train(w, 3, progress=False)
    after = dict(t.model.named_parameters())
    moved = {n for n in before if not torch.equal(before[n], after[n].detach())}
    assert moved and all(n.startswith("policy_") for n in moved)
    assert any(n.startswith("policy_out") for n in moved)
    with pytest.raises(ValueError, match="no parameter"):
        Trainer.create("tiny", TrainConfig(train_only=["nonesuch"]), tmp_path / "out2")


def test_loop_plays_its_generations_in_int8(tmp_path: Path) -> None:
    """``loop --precision int8``: self-play runs the current net's int8 copy, made beside it;
    the net the loop exports and evaluates is the fp32 one."""
    from engine.evaluator import file_sha256, int8_path
    from trainer.__main__ import build_parser
    from trainer.cli_rl import loop_config
    from trainer.learn.export import read_metadata
    from trainer.loop import Loop

    cfg = loop_config(build_parser().parse_args(
        ["loop", "--dir", str(tmp_path), "--init", "tiny", "--games", "2", "--parallel", "2",
         "--full-visits", "8", "--fast-visits", "4", "--max-plies", "12", "--threads", "1",
         "--resign-threshold", "-1", "--precision", "int8"]))
    assert cfg.precision == "int8"
    lp = Loop(cfg)
    lp.progress = False
    lp.initialise()
    assert lp.phase_selfplay(1)
    q = int8_path(lp.net_path(0))
    assert read_metadata(q)["precision"] == "int8"
    assert read_metadata(q)["source_sha256"] == file_sha256(lp.net_path(0))
    assert len(records.list_records(tmp_path / "games", generation=1)) == 2
    with pytest.raises(SystemExit, match="MuZero"):
        loop_config(build_parser().parse_args(["loop", "--dir", str(tmp_path / "m"),
                                               "--mode", "muzero", "--precision", "int8"]))


def test_bf16_training_runs_the_forward_in_bfloat16_and_keeps_fp32_weights(
        tmp_path: Path) -> None:
    """``precision="bf16"``: the loss is computed from a bfloat16 forward pass (it differs from
    fp32's in the low bits, not more), the weights and the optimizer state stay float32, training
    moves the net, and an unknown precision is refused when the trainer is made."""
    write_games(tmp_path / "games", [8, 8])
    w = ReplayWindow([tmp_path / "games"], window=100)
    w.refresh()
    batch = w.sample(16, np.random.default_rng(0))
    losses = {}
    for p in ("fp32", "bf16"):
        torch.manual_seed(0)
        t = Trainer.create("tiny", TrainConfig(batch_size=16, threads=1, precision=p),
                           tmp_path / p)
        with t.autocast():
            losses[p] = t.loss(batch)[0].item()
    assert losses["bf16"] != losses["fp32"]
    assert losses["bf16"] == pytest.approx(losses["fp32"], rel=0.02)
    t = Trainer.create("tiny", TrainConfig(batch_size=16, warmup=1, threads=1, lr=1e-2,
                                           precision="bf16"), tmp_path / "run")
    before = {n: p.detach().clone() for n, p in t.model.named_parameters()}
    m = t.train(w, 3, progress=False)
    assert np.isfinite(m["loss"])
    assert all(p.dtype == torch.float32 for p in t.model.parameters())
    assert any(not torch.equal(before[n], p.detach()) for n, p in t.model.named_parameters())
    assert all(v.dtype == torch.float32 for s in t.optimizer.state.values()
               for v in s.values() if torch.is_tensor(v) and v.is_floating_point())
    with pytest.raises(ValueError, match="unknown training precision"):
        Trainer.create("tiny", TrainConfig(precision="fp8"), tmp_path / "bad")
    assert not (tmp_path / "bad").exists()
