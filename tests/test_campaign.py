"""The labelling campaign: seeded batches, a resume that relabels only unfinished batches and gives
the same records, a lock against a second run, a refused change of settings, varied starts."""

from __future__ import annotations

import fcntl
import hashlib
import json
from pathlib import Path

import chess
import numpy as np
import pytest

from trainer.data.campaign import CampaignConfig, _book_lines, batch_starts, run
from trainer.data.books import DEFAULT_OPENINGS
from trainer.data.records import Record
from trainer.data.replay import ReplayWindow

CFG = CampaignConfig(nodes=100, games_per_batch=3, max_plies=12, seed=7)


@pytest.fixture(scope="module")
def stockfish() -> str:
    from trainer.arena.match import stockfish_path

    sf = stockfish_path()
    if sf is None:
        pytest.skip("Stockfish is not installed")
    return sf


def _digests(root: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / "data").glob("*.npz"))}


def test_campaign_batches_resume_to_the_same_records(tmp_path: Path, stockfish: str) -> None:
    logs: list[str] = []
    out = run(tmp_path, CFG, stockfish, workers=2, batches=3, report_s=0.5, log=logs.append)
    assert out["batches"] == 3 and out["positions"] > 0
    files = _digests(tmp_path)
    assert {n.split("-")[0] for n in files} == {"b000000", "b000001", "b000002"}
    window = ReplayWindow([tmp_path / "data"], 10**6)
    assert window.refresh() == out["positions"]
    assert any("positions" in line for line in logs)
    assert json.loads((tmp_path / "progress.jsonl").read_text().splitlines()[-1])["batches"] == 3

    # A worker killed inside batch 1: its claim stands, its files may be half there, no done.
    (tmp_path / "done" / "1.json").unlink()
    for p in (tmp_path / "data").glob("b000001-*.npz"):
        p.write_bytes(b"half written")
    again = run(tmp_path, CFG, stockfish, workers=1, batches=3, report_s=0.5, log=logs.append)
    assert again == out
    assert _digests(tmp_path) == files  # batch 1 relabelled from its seed: the same bytes
    assert any("1 unfinished" in line for line in logs)

    # Nothing left to do: no batch is labelled twice.
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "data").glob("*.npz")}
    run(tmp_path, CFG, stockfish, workers=2, batches=3, report_s=0.5, log=logs.append)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "data").glob("*.npz")} == before


def test_campaign_refuses_other_settings_and_a_second_run(tmp_path: Path, stockfish: str) -> None:
    run(tmp_path, CFG, stockfish, workers=1, batches=1, report_s=0.5, log=lambda s: None)
    with pytest.raises(SystemExit, match="other settings.*nodes"):
        run(tmp_path, CampaignConfig(**{**CFG.__dict__, "nodes": 200}), stockfish, workers=1,
            batches=2, log=lambda s: None)
    with open(tmp_path / "lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(SystemExit, match="another run"):
            run(tmp_path, CFG, stockfish, workers=1, batches=2, log=lambda s: None)
    assert len(list((tmp_path / "done").glob("*.json"))) == 1
    # A campaign begun before a setting existed (its config.json lacks the key) still resumes,
    # since the setting's default is what it was labelled with; the new value is refused.
    cfg_path = tmp_path / "config.json"
    old = json.loads(cfg_path.read_text())
    del old["side_p"], old["playout_p"]
    cfg_path.write_text(json.dumps(old))
    run(tmp_path, CFG, stockfish, workers=1, batches=1, report_s=0.5, log=lambda s: None)
    for key in ("side_p", "playout_p"):
        with pytest.raises(SystemExit, match=f"other settings.*{key}"):
            run(tmp_path, CampaignConfig(**{**CFG.__dict__, key: 0.2}), stockfish, workers=1,
                batches=2, log=lambda s: None)


def test_campaign_starts_vary() -> None:
    """Book lines with random plies, Chess960 starts and thinned endings, as the shares say."""
    book = _book_lines(str(DEFAULT_OPENINGS))
    cfg = CampaignConfig(games_per_batch=200, seed=3)
    starts = batch_starts(cfg, 0, book)
    assert batch_starts(cfg, 0, book)[5].fen() == starts[5].fen()
    assert batch_starts(cfg, 1, book)[5].fen() != starts[5].fen()
    n960 = sum(b.chess960 for b in starts)
    endings = [b for b in starts if not b.move_stack and not b.chess960]
    assert 8 <= n960 <= 35 and 8 <= len(endings) <= 35
    for b in endings:
        others = [p for p in b.piece_map().values() if p.piece_type not in (chess.KING, chess.PAWN)]
        assert 1 <= len(others) <= 4 and b.is_valid() and not b.castling_rights
    book_starts = [b for b in starts if b.move_stack and not b.chess960]
    assert len({b.fen() for b in book_starts}) == len(book_starts)


def test_campaign_labels_chess960(tmp_path: Path, stockfish: str) -> None:
    """Chess960 games are labelled in Stockfish's UCI_Chess960 mode: castling as king takes rook,
    every policy target a legal move of its position."""
    from engine import contract

    cfg = CampaignConfig(nodes=100, games_per_batch=2, max_plies=40, chess960_p=1.0,
                         ending_p=0.0, random_plies=0, seed=11)
    run(tmp_path, cfg, stockfish, workers=1, batches=1, report_s=0.5, log=lambda s: None)
    recs = [Record.load(p) for p in sorted((tmp_path / "data").glob("*.npz"))]
    fens = [f for r in recs for f in r.meta["fens"]]
    assert fens and all(chess.Board(f, chess960=True).is_valid() for f in fens)
    for r in recs:
        for i, fen in enumerate(r.meta["fens"]):
            board = chess.Board(fen, chess960=True)
            legal = {contract.move_index(board, m) for m in board.legal_moves}
            idx, prob = r.policy(i)
            assert set(idx.tolist()) <= legal and np.isclose(prob.sum(), 1.0, atol=1e-5)
