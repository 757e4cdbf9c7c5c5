"""Stockfish-labelled positions as a warm start, in the self-play record format.

For each position Stockfish analyses the top ``multipv`` moves; the policy target is the softmax
of their centipawn scores over ``temperature_cp`` (mates as +/-10000 minus the distance, so a
mate takes all the mass), and the value target is Stockfish's own win/draw/loss estimate
(``UCI_ShowWDL``), stored both as the "result" and as the root Q/D. Moves-left is unknown (-1).

Why the same record format: the learner then trains on labels and self-play games alike (a
labels directory is passed to the loop as ``--extra-data``, counting as older than its games).
Positions come from PGN games (a random ply, with the game's history for the input planes), a FEN
file, or random lone-king endgames.
"""

from __future__ import annotations

import io
import random
import shutil
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import chess
import chess.pgn
import numpy as np

from engine import contract
from engine.board import Position
from engine.board_ref import from_chess_move
from trainer.data.records import Record
from trainer.data.sfuci import Analysis, StockfishAnalyser


def find_stockfish(path: str | None = None) -> str:
    """The Stockfish binary: ``path``, else on PATH, else Debian's /usr/games/stockfish."""
    for cand in (path, shutil.which("stockfish"), "/usr/games/stockfish"):
        if cand and Path(cand).is_file():
            return cand
    raise SystemExit("Stockfish not found: apt-get install stockfish, or pass --stockfish PATH")


def positions_from_pgn(paths: Sequence[str], n: int, seed: int = 0,
                       min_ply: int = 6) -> list[chess.Board]:
    """Up to ``n`` boards, each at a random ply (>= ``min_ply``) of a different game, games read
    in a shuffled order; the move stack is kept (history planes)."""
    rng = random.Random(seed)
    chunks: list[str] = []
    for p in paths:
        text = Path(p).read_text(encoding="utf-8-sig", errors="replace")
        chunks.extend("[Event " + c if not c.startswith("[Event") else c
                      for c in text.split("\n[Event ") if c.strip())
    rng.shuffle(chunks)
    out: list[chess.Board] = []
    for chunk in chunks:
        if len(out) >= n:
            break
        game = chess.pgn.read_game(io.StringIO(chunk))
        if game is None or game.errors:
            continue
        moves = list(game.mainline_moves())
        if len(moves) <= min_ply:
            continue
        board = game.board()
        for m in moves[: rng.randrange(min_ply, len(moves))]:
            board.push(m)
        if not board.is_game_over():
            out.append(board)
    return out


def softmax_cp(cps: Sequence[float], temperature_cp: float) -> np.ndarray:
    z = np.asarray(cps, np.float64) / temperature_cp
    p = np.exp(z - z.max())
    return p / p.sum()


Label = tuple[chess.Board, list[int], list[float], list[float], int]


def label_position(engine: StockfishAnalyser, board: chess.Board, multipv: int,
                   temperature_cp: float, nodes: int | None = None, depth: int | None = None
                   ) -> tuple[list[int], list[float], list[float], int] | None:
    """(policy indices, probabilities, wdl, best move as an engine int) or None."""
    res = engine.analyse(board, multipv, nodes=nodes, depth=depth)
    if res is None:
        return None
    moves, cps, wdl = res
    idx = [contract.move_index(board, m) for m in moves]
    return idx, softmax_cp(cps, temperature_cp).tolist(), wdl, from_chess_move(moves[0])


def opening_boards(path: str | Path, n: int, seed: int = 0) -> list[chess.Board]:
    """``n`` opening lines drawn at random (with replacement) from a PGN book, each played out
    on a board (move stack kept)."""
    rng = random.Random(seed)
    text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    chunks = [c for c in text.split("\n[Event ") if c.strip()]
    out: list[chess.Board] = []
    while len(out) < n and chunks:
        chunk = rng.choice(chunks)
        game = chess.pgn.read_game(io.StringIO(chunk if chunk.startswith("[Event") else "[Event " + chunk))
        if game is None or game.errors:
            continue
        board = game.end().board()
        if not board.is_game_over():
            out.append(board)
    return out


def play_and_label(stockfish: str, starts: Sequence[chess.Board], nodes: int = 8000,
                   multipv: int = 5, temperature_cp: float = 60.0,
                   play_temperature_cp: float = 40.0, random_move_p: float = 0.03,
                   max_plies: int = 220, adjudicate_cp: float = 700.0, adjudicate_plies: int = 6,
                   label_opening: bool = True, fen_only_p: float = 0.1,
                   side_p: float = 0.0, playout_p: float = 0.0, seed: int | str = 0,
                   threads: int = 1, hash_mb: int = 16,
                   progress: bool = True, engine: StockfishAnalyser | None = None
                   ) -> Iterator[Label]:
    """Games played from ``starts`` with every position labelled (the policy and WDL targets
    of :func:`label_position`).

    Why games rather than isolated positions: the net must judge middlegames and endgames
    that arise in play, not only the openings of a PGN collection. Moves are sampled from the
    softmax of Stockfish's MultiPV scores at ``play_temperature_cp`` (varied, mostly sound
    games); with probability ``random_move_p`` a uniformly random legal move is played instead
    -- a blunder -- so the value head sees hanging pieces and lopsided material, which a search
    will reach in its leaves. A game stops at its end, at ``max_plies``, or once one side has
    been ahead by ``adjudicate_cp`` for ``adjudicate_plies`` plies (further positions would
    teach little).

    The net must also judge positions whose history it cannot see: ``label_opening`` labels
    the book line's own positions too (from the start position, with its empty history), and
    a share ``fen_only_p`` of positions is stored without its move stack, the way a GUI's
    ``position fen`` arrives (lc0's fen-only history).

    Side positions (KataGo's, for the same reason): with probability ``side_p`` a game position
    also gets a uniformly random legal move played on a copy, and that position is labelled
    beside the game and not played on. A search's tree is full of positions after bad moves, and
    a random move in the game itself gets few labels after it, since the game soon stops at the
    adjudication. Measured: every campaign net undervalued the side to move after its
    opponent's random move by 0.13-0.25 in W-L (``benchmarks/offpath_value.py``). They draw on
    their own random stream, so ``side_p=0`` gives the same games and labels as before.

    Played-out games: a share ``playout_p`` of games is not adjudicated and goes on to its end
    (or ``max_plies``), so the net also sees how a won position is won. Adjudicated games never
    show it, and c12 drew 23 of its 200 games against Stockfish 2000 from a lead of
    three points held for 6 plies (``benchmarks/match_material.py``). Its own stream too:
    ``playout_p=0`` changes nothing.

    ``engine`` reuses a running Stockfish (left open); else one is started and closed here."""
    rng = random.Random(seed)
    side_rng = random.Random(f"side-{seed}")
    playout_rng = random.Random(f"playout-{seed}")

    def one(board: chess.Board, res: Analysis, r: random.Random = rng) -> Label:
        moves, cps, wdl = res
        idx = [contract.move_index(board, m) for m in moves]
        stored = chess.Board(board.fen(), chess960=board.chess960) \
            if r.random() < fen_only_p else board.copy()
        return (stored, idx, softmax_cp(cps, temperature_cp).tolist(), wdl,
                from_chess_move(moves[0]))

    own = engine is None
    if engine is None:
        engine = StockfishAnalyser(stockfish, threads=threads, hash_mb=hash_mb)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(desc="sf-games", unit="pos", dynamic_ncols=True)
    try:
        for start in starts:
            if label_opening:
                replay = start.root()
                for m in start.move_stack:
                    res = engine.analyse(replay, multipv, nodes=nodes)
                    if res is not None:
                        yield one(replay, res)
                        if bar is not None:
                            bar.update(1)
                    replay.push(m)
            board = start.copy()
            lopsided = 0
            adjudicate = not (playout_p > 0 and playout_rng.random() < playout_p)
            while not over(board) and board.ply() - start.ply() < max_plies:
                res = engine.analyse(board, multipv, nodes=nodes)
                if res is None:
                    break
                moves, cps, _ = res
                yield one(board, res)
                if bar is not None:
                    bar.update(1)
                if side_p > 0 and side_rng.random() < side_p:
                    side = board.copy()
                    side.push(side_rng.choice(list(board.legal_moves)))
                    side_res = None if over(side) else engine.analyse(side, multipv, nodes=nodes)
                    if side_res is not None:
                        yield one(side, side_res, side_rng)
                        if bar is not None:
                            bar.update(1)
                lopsided = lopsided + 1 if abs(cps[0]) >= adjudicate_cp else 0
                if adjudicate and lopsided >= adjudicate_plies:
                    break
                if rng.random() < random_move_p:
                    move = rng.choice(list(board.legal_moves))
                else:
                    p = softmax_cp(cps, play_temperature_cp)
                    move = moves[int(rng.choices(range(len(moves)), weights=p.tolist())[0])]
                board.push(move)
    finally:
        if bar is not None:
            bar.close()
        if own:
            engine.close()


def over(board: chess.Board) -> bool:
    """The game has ended, or a draw by repetition or the 50-move rule is there to claim.

    Why not ``is_game_over(claim_draw=True)``: it also tries every legal move for a threefold
    claim, about 1.8 ms a position, more than Stockfish's search at 2,000 nodes; a repetition
    one move later ends the game here at the next ply instead."""
    return board.is_game_over() or board.is_repetition(3) or board.halfmove_clock >= 100


def label(boards: Iterable[chess.Board], stockfish: str, depth: int | None = 10,
          nodes: int | None = None, multipv: int = 8, temperature_cp: float = 100.0,
          threads: int = 1, hash_mb: int = 16, progress: bool = True) -> Iterator[Label]:
    """Labels of the boards, one tuple per position Stockfish could analyse."""
    engine = StockfishAnalyser(stockfish, threads=threads, hash_mb=hash_mb)
    try:
        items = list(boards)
        it: Iterable[chess.Board] = items
        if progress:
            from tqdm import tqdm
            it = tqdm(items, desc="sf-label", unit="pos", dynamic_ncols=True)
        for board in it:
            res = label_position(engine, board, multipv, temperature_cp, nodes=nodes,
                                 depth=depth)
            if res is not None:
                yield (board, *res)
    finally:
        engine.close()


def to_record(labels: Sequence[tuple[chess.Board, list[int], list[float], list[float], int]],
              meta: dict[str, object]) -> Record:
    """One record of labelled positions (each with its own history)."""
    planes = np.zeros((len(labels), contract.NUM_PLANES, 8, 8), np.float32)
    for i, (board, *_rest) in enumerate(labels):
        Position.from_board(board).encode(planes[i])
    wdl = np.array([lab[3] for lab in labels], np.float32)
    return Record.build(planes, [lab[4] for lab in labels], wdl,
                        wdl[:, 0] - wdl[:, 2], wdl[:, 1], [-1] * len(labels),
                        [(lab[1], lab[2]) for lab in labels], chess.STARTING_FEN,
                        {**meta, "fens": [lab[0].fen() for lab in labels]})


def write_labels(out_dir: str | Path, boards: Sequence[chess.Board], chunk: int = 256,
                 **kwargs: object) -> list[Path]:
    """Labels ``boards`` and writes records ``sf-<n>.npz`` of ``chunk`` positions into
    ``out_dir``, numbering after the files already there."""
    meta = {"kind": "sf-label", **{k: v for k, v in kwargs.items() if k != "progress"}}
    return write_records(out_dir, label(boards, **kwargs), meta, chunk)  # type: ignore[arg-type]


def write_records(out_dir: str | Path, labels: Iterable[Label], meta: dict[str, object],
                  chunk: int = 256) -> list[Path]:
    """Writes ``labels`` as records ``sf-<n>.npz`` of ``chunk`` positions into ``out_dir``,
    numbering after the files already there. Each file is written atomically as soon as it is
    full, so an interrupted run keeps every finished chunk."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    existing = [int(p.stem[3:]) for p in out.glob("sf-*.npz") if p.stem[3:].isdigit()]
    counter = max(existing, default=-1) + 1
    written: list[Path] = []
    buf: list[Label] = []
    for lab in labels:
        buf.append(lab)
        if len(buf) >= chunk:
            written.append(_flush(out, counter, buf, meta))
            counter += 1
            buf = []
    if buf:
        written.append(_flush(out, counter, buf, meta))
    return written


def _flush(out: Path, counter: int, buf: list[Label],
           meta: dict[str, object]) -> Path:
    path = out / f"sf-{counter:06d}.npz"
    to_record(buf, meta).save(path)
    return path
