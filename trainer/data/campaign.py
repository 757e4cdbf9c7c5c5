"""Stockfish-labelled data at volume: a campaign of seeded batches, labelled in the background by
several worker processes, resumable after any kill.

Why batches: a campaign runs for hours or days on machines that come and go. The work is cut into
numbered batches of games; batch ``b``'s openings and moves follow from ``(seed, b)`` alone, and
each worker clears Stockfish's hash (``ucinewgame``) before a batch, so a batch labelled twice
gives the same records. A worker claims a batch with an atomic ``mkdir``; the batch's record files
appear in ``data/`` and only then ``done/B.json``. A kill loses the unfinished batches only: the
next run (the same command) removes their files and labels them again. A lock keeps a second run
off the same directory.

Where the positions come from, per game (``CampaignConfig``): a line of the packaged book with
0..``random_plies`` uniformly random plies after it (the book's 2,000 lines alone repeat), a share
``chess960_p`` of Chess960 starts, and a share ``ending_p`` of endings: a book position after
play, its pieces thinned to a few besides the pawns, stored without history.

Layout of DIR: ``config.json`` (the campaign; a resumed run must match it), ``data/`` (records,
``bNNNNNN-KKK.npz``, read by ``trainer train --data DIR/data``), ``claims/``, ``done/``,
``progress.jsonl`` (a line each report: batches, positions, positions/min), ``lock``.
"""

from __future__ import annotations

import dataclasses
import fcntl
import io
import json
import multiprocessing as mp
import os
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from trainer.data.files import atomic_write
from trainer.data.books import DEFAULT_OPENINGS
from trainer.data.sflabel import Label, over, play_and_label, write_records
from trainer.data.sfuci import StockfishAnalyser


@dataclass(frozen=True)
class CampaignConfig:
    """What a campaign's batches are made of; a batch depends on nothing else."""

    nodes: int = 3000  # not 1,000: twice the positions, but a teacher at 38.8% top-1 (teacher_gap)
    multipv: int = 5
    games_per_batch: int = 32
    random_plies: int = 4
    chess960_p: float = 0.1
    ending_p: float = 0.1
    ending_pieces: tuple[int, int] = (1, 4)  # pieces (not kings or pawns) left on the board
    max_plies: int = 220
    random_move_p: float = 0.03
    fen_only_p: float = 0.1
    side_p: float = 0.0  # positions labelled beside the game after a random move (play_and_label)
    playout_p: float = 0.0  # games played to their end, not adjudicated (play_and_label)
    seed: int = 0
    openings: str = ""  # a PGN book of start lines; empty: the packaged one

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["ending_pieces"] = list(self.ending_pieces)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CampaignConfig:
        return cls(**{**d, "ending_pieces": tuple(d["ending_pieces"])})


def _book_lines(path: str) -> list[list[chess.Move]]:
    text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    lines = []
    for chunk in text.split("\n[Event "):
        if not chunk.strip():
            continue
        game = chess.pgn.read_game(io.StringIO(chunk if chunk.startswith("[Event")
                                               else "[Event " + chunk))
        if game is not None and not game.errors:
            lines.append(list(game.mainline_moves()))
    if not lines:
        raise SystemExit(f"no opening lines in {path}")
    return lines


def _random_plies(board: chess.Board, n: int, rng: random.Random) -> None:
    for _ in range(n):
        moves = list(board.legal_moves)
        if not moves or over(board):
            return
        board.push(rng.choice(moves))


def _ending(board: chess.Board, lo: int, hi: int, rng: random.Random) -> chess.Board | None:
    """``board``'s kings and pawns with ``lo..hi`` of its other pieces, the same side to move,
    no castling, no history; None if that is not a legal position with moves to play."""
    out = chess.Board(None)
    out.turn = board.turn
    pieces = [(sq, p) for sq, p in board.piece_map().items()
              if p.piece_type not in (chess.KING, chess.PAWN)]
    rng.shuffle(pieces)
    keep = pieces[: rng.randint(lo, hi)]
    for sq, p in board.piece_map().items():
        if p.piece_type in (chess.KING, chess.PAWN):
            out.set_piece_at(sq, p)
    for sq, p in keep:
        out.set_piece_at(sq, p)
    if not out.is_valid() or over(out):
        return None
    return out


def batch_starts(cfg: CampaignConfig, batch: int,
                 book: list[list[chess.Move]]) -> list[chess.Board]:
    """The start positions of batch ``batch``, a function of ``cfg`` and ``batch`` only."""
    rng = random.Random(f"campaign-{cfg.seed}-{batch}")
    starts: list[chess.Board] = []
    while len(starts) < cfg.games_per_batch:
        u = rng.random()
        if u < cfg.chess960_p:
            board = chess.Board.from_chess960_pos(rng.randrange(960))
            _random_plies(board, rng.randint(0, cfg.random_plies), rng)
        else:
            board = chess.Board()
            for m in rng.choice(book):
                board.push(m)
            _random_plies(board, rng.randint(0, cfg.random_plies), rng)
            if u < cfg.chess960_p + cfg.ending_p:
                _random_plies(board, rng.randint(10, 30), rng)
                ending = _ending(board, *cfg.ending_pieces, rng)
                if ending is None:
                    continue
                board = ending
        if not over(board):
            starts.append(board)
    return starts


def label_batch(cfg: CampaignConfig, batch: int, book: list[list[chess.Move]],
                engine: StockfishAnalyser) -> list[Label]:
    """Every labelled position of batch ``batch``'s games."""
    engine.new_game()
    return list(play_and_label("", batch_starts(cfg, batch, book), nodes=cfg.nodes,
                               multipv=cfg.multipv, max_plies=cfg.max_plies,
                               random_move_p=cfg.random_move_p, fen_only_p=cfg.fen_only_p,
                               side_p=cfg.side_p, playout_p=cfg.playout_p,
                               seed=f"campaign-play-{cfg.seed}-{batch}", progress=False,
                               engine=engine))


def _batch_files(data: Path, batch: int) -> list[Path]:
    return sorted(data.glob(f"b{batch:06d}-*.npz"))


def _write_batch(root: Path, cfg: CampaignConfig, batch: int, labels: list[Label],
                 seconds: float) -> None:
    data = root / "data"
    tmp = data / f".b{batch:06d}"
    shutil.rmtree(tmp, ignore_errors=True)
    paths = write_records(tmp, labels, {"kind": "sf-campaign", "batch": batch,
                                        **cfg.to_json()}, chunk=1024)
    for i, p in enumerate(paths):  # each rename is atomic; done/ says when all are there
        os.replace(p, data / f"b{batch:06d}-{i:03d}.npz")
    tmp.rmdir()
    info = {"batch": batch, "positions": len(labels), "files": len(paths),
            "seconds": round(seconds, 2), "finished": time.time()}
    atomic_write(root / "done" / f"{batch}.json", lambda f: f.write(json.dumps(info).encode()))


def _worker(root: str, cfg_json: dict[str, Any], stockfish: str, batches: int | None,
            deadline: float | None) -> None:
    cfg = CampaignConfig.from_json(cfg_json)
    book = _book_lines(cfg.openings or str(DEFAULT_OPENINGS))
    base = Path(root)
    with StockfishAnalyser(stockfish) as engine:
        batch = 0
        while batches is None or batch < batches:
            if deadline is not None and time.time() >= deadline:
                return
            try:
                (base / "claims" / str(batch)).mkdir()
            except FileExistsError:
                batch += 1
                continue
            t0 = time.time()
            labels = label_batch(cfg, batch, book, engine)
            _write_batch(base, cfg, batch, labels, time.time() - t0)
            batch += 1


def summary(root: str | Path) -> dict[str, Any]:
    """Batches and positions finished so far."""
    done = Path(root) / "done"
    infos = [json.loads(p.read_text()) for p in done.glob("*.json")] if done.is_dir() else []
    return {"batches": len(infos), "positions": sum(int(i["positions"]) for i in infos)}


def _recover(root: Path) -> int:
    """Forgets the claims of batches that never finished (their worker was killed) and removes
    their files; returns how many."""
    n = 0
    for claim in (root / "claims").iterdir():
        if not (root / "done" / f"{claim.name}.json").exists():
            batch = int(claim.name)
            for p in _batch_files(root / "data", batch):
                p.unlink()
            shutil.rmtree(root / "data" / f".b{batch:06d}", ignore_errors=True)
            claim.rmdir()
            n += 1
    return n


def run(root: str | Path, cfg: CampaignConfig, stockfish: str, workers: int = 2,
        batches: int | None = None, minutes: float | None = None, report_s: float = 60.0,
        log: Any = None) -> dict[str, Any]:
    """Labels batches 0.. (up to ``batches``, or until ``minutes`` have passed: no batch starts
    after that) with ``workers`` processes; returns :func:`summary`."""
    if log is None:
        def log(line: str) -> None:
            print(line, flush=True)
    base = Path(root)
    for sub in ("data", "claims", "done"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    lock = open(base / "lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise SystemExit(f"{base} is being labelled by another run (its lock is held)")
    try:
        cfg_path = base / "config.json"
        if cfg_path.exists():
            old = CampaignConfig.from_json(json.loads(cfg_path.read_text()))
            if old != cfg:
                changed = {k: (v, getattr(cfg, k)) for k, v in dataclasses.asdict(old).items()
                           if getattr(cfg, k) != v}
                raise SystemExit(f"{base} is a campaign with other settings {changed} "
                                 "(old, new): its batches would not follow from their seeds")
        else:
            atomic_write(cfg_path, lambda f: f.write(json.dumps(cfg.to_json(), indent=1).encode()))
        lost = _recover(base)
        if lost:
            log(f"sf-campaign: {lost} unfinished batches will be labelled again")
        deadline = time.time() + minutes * 60 if minutes else None
        procs = [mp.Process(target=_worker, args=(str(base), cfg.to_json(), stockfish, batches,
                                                  deadline), daemon=True)
                 for _ in range(workers)]
        for p in procs:
            p.start()
        last_t, last = time.time(), summary(base)
        while any(p.is_alive() for p in procs):
            for p in procs:
                p.join(timeout=max(0.1, report_s / len(procs)))
            now, cur = time.time(), summary(base)
            if now - last_t >= report_s or not any(p.is_alive() for p in procs):
                rate = (cur["positions"] - last["positions"]) / max(now - last_t, 1e-9) * 60
                line = {**cur, "per_min": round(rate), "time": round(now)}
                log(f"sf-campaign: {cur['batches']} batches, {cur['positions']:,} positions, "
                    f"{rate:,.0f} a minute")
                with open(base / "progress.jsonl", "a") as f:
                    f.write(json.dumps(line) + "\n")
                last_t, last = now, cur
        bad = [p.exitcode for p in procs if p.exitcode]
        if bad:
            raise SystemExit(f"sf-campaign: workers failed (exit codes {bad}); "
                             "the same command resumes")
        return summary(base)
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


def _main(a: Any) -> int:
    from trainer.data.sflabel import find_stockfish

    cfg = CampaignConfig(nodes=a.nodes, multipv=a.multipv, games_per_batch=a.games_per_batch,
                         random_plies=a.random_plies, chess960_p=a.chess960_p,
                         ending_p=a.ending_p, side_p=a.side_p, playout_p=a.playout_p,
                         seed=a.seed, openings=a.openings)
    out = run(a.dir, cfg, find_stockfish(a.stockfish), workers=a.workers,
              batches=a.batches or None, minutes=a.minutes or None, report_s=a.report_s)
    print(json.dumps(out))
    return 0


def add_parser(sub: Any) -> None:
    import argparse

    d = CampaignConfig()
    p = sub.add_parser("sf-campaign", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                       help="Stockfish-labelled games at volume: seeded batches, several "
                            "workers, resumable (the same command goes on)",
                       description="Label Stockfish's games in the background into DIR/data "
                                   "(train with --data DIR/data). Killed? Run the same command.")
    p.add_argument("--dir", required=True, help="campaign directory")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="Stockfish processes (one core each)")
    p.add_argument("--minutes", type=float, default=0, help="start no batch after this (0: no limit)")
    p.add_argument("--batches", type=int, default=0, help="label batches 0..N-1 (0: no limit)")
    p.add_argument("--stockfish", help="Stockfish binary (default: on PATH)")
    p.add_argument("--report-s", type=float, default=60.0, help="seconds between rate reports")
    g = p.add_argument_group("the campaign (fixed once it starts)")
    g.add_argument("--seed", type=int, default=d.seed)
    g.add_argument("--nodes", type=int, default=d.nodes, help="Stockfish nodes per position")
    g.add_argument("--multipv", type=int, default=d.multipv)
    g.add_argument("--games-per-batch", type=int, default=d.games_per_batch)
    g.add_argument("--random-plies", type=int, default=d.random_plies,
                   help="at most this many random plies after the book line")
    g.add_argument("--chess960-p", type=float, default=d.chess960_p, help="share of 960 starts")
    g.add_argument("--ending-p", type=float, default=d.ending_p, help="share of endings")
    g.add_argument("--side-p", type=float, default=d.side_p,
                   help="chance that a game position also has a random move's position "
                        "labelled beside it (not played on)")
    g.add_argument("--playout-p", type=float, default=d.playout_p,
                   help="share of games played to their end instead of stopping once one side "
                        "has led by 700 cp for 6 plies")
    g.add_argument("--openings", default=d.openings,
                   help="PGN book of start lines (default: the packaged book)")
    p.set_defaults(func=_main)
