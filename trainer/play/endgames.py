"""Endgame curricula: random KQvK / KRvK placements, and mating tests against a random defender.

Why: a net learning from nothing meets checkmate only by chance in full games; from a lone-king
ending every self-play game is about mating, the search sees mates near the leaves, and the value
head learns quickly which positions are won - a warm start, and a cheap check that the whole
self-play -> train loop learns at all (benchmarks/learn_endgames.py).

``random_position`` draws a legal placement (kings apart, the side not to move not in check, game
not over); ``mate_test`` lets the net (with a given number of visits per move) play the strong
side against a defender that moves at random and counts mates delivered within ``max_moves``.
Games are played many at once with one network call per iteration, as in self-play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import chess
import numpy as np

from engine import contract
from engine.batch import NNCache
from engine.board import Position
from engine.evaluator import Evaluator
from engine.mcts import ROOT
from engine.search import Search, SearchParams
from trainer.play.selfplay import evaluate_together

KINDS = {"KQK": chess.QUEEN, "KRK": chess.ROOK}


def random_position(rng: random.Random, kind: str = "KQK", strong: chess.Color | None = None,
                    turn: chess.Color | None = None, strong_to_move: bool = False) -> chess.Board:
    """A random legal ``kind`` placement (``strong`` has the extra piece; ``turn`` moves, or the
    strong side with ``strong_to_move``; None: random) that is not already over."""
    piece = KINDS[kind]
    while True:
        s = rng.choice([chess.WHITE, chess.BLACK]) if strong is None else strong
        t = rng.choice([chess.WHITE, chess.BLACK]) if turn is None else turn
        t = s if strong_to_move else t
        sq = rng.sample(range(64), 3)
        board = chess.Board(None)
        board.set_piece_at(sq[0], chess.Piece(chess.KING, s))
        board.set_piece_at(sq[1], chess.Piece(piece, s))
        board.set_piece_at(sq[2], chess.Piece(chess.KING, not s))
        board.turn = t
        if board.is_valid() and not board.is_game_over():
            return board


def curriculum(n: int, kinds: Sequence[str] = ("KQK", "KRK"), seed: int = 0,
               strong_to_move: bool = False) -> list[str]:
    """``n`` FENs, the kinds in turn, colours and (unless ``strong_to_move``) the side to move
    at random."""
    rng = random.Random(seed)
    return [random_position(rng, kinds[i % len(kinds)], strong_to_move=strong_to_move).fen()
            for i in range(n)]


@dataclass
class MateStats:
    games: int = 0
    mates: int = 0
    draws: int = 0
    mate_plies: list[int] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.mates / self.games if self.games else 0.0

    def summary(self) -> dict[str, Any]:
        return {"games": self.games, "mates": self.mates, "rate": self.rate,
                "draws_or_unfinished": self.games - self.mates,
                "mean_mate_moves": (float(np.mean(self.mate_plies)) + 1) / 2
                if self.mate_plies else None}


@dataclass
class _Duel:
    pos: Position
    moves: list[int]
    strong: int
    search: Search
    batch: Any
    plies: int = 0
    gathered: int = 0


def mate_test(evaluator: Evaluator, fens: Sequence[str], visits: int = 32, max_moves: int = 50,
              parallel: int = 32, minibatch: int = 8, seed: int = 0) -> MateStats:
    """The net (``visits`` per move; 1 = its policy's top move) plays the strong side of each
    FEN against a random defender; mates within ``max_moves`` of the strong side count."""
    rng = random.Random(seed)
    cache = NNCache(100_000)
    params = SearchParams(minibatch_size=minibatch, max_collisions=minibatch, max_nodes=50_000)
    buf = np.zeros(256, np.int32)
    stats = MateStats()
    planes = np.zeros((parallel * minibatch, contract.NUM_PLANES, 8, 8), np.float32)
    queue = list(fens)
    active: list[_Duel] = []

    def start(fen: str) -> _Duel | None:
        board = chess.Board(fen)
        strong = int(chess.popcount(board.occupied_co[chess.WHITE]) > 1)
        pos = Position.from_board(board)
        d = _Duel(pos, [], strong, Search(evaluator, params, cache=cache), None)
        d.batch = d.search.new_batch()
        return d if advance(d) else None

    def advance(d: _Duel) -> bool:
        """Random defender moves until the strong side is to move; False when the game ended."""
        while True:
            n = d.pos.legal_moves(buf)
            if n == 0 or d.pos.halfmove_clock() >= 100 or d.pos.insufficient_material() \
                    or d.pos.repetitions() >= 2 or d.plies >= 2 * max_moves:
                stats.games += 1
                if n == 0 and d.pos.in_check() and d.pos.turn() != d.strong:
                    stats.mates += 1
                    stats.mate_plies.append(d.plies)
                return False
            if d.pos.turn() == d.strong:
                d.search.set_position(d.pos, d.moves)
                return True
            m = int(buf[rng.randrange(n)])
            d.pos.push(m)
            d.moves.append(m)
            d.plies += 1

    while queue or active:
        while queue and len(active) < parallel:
            d = start(queue.pop(0))
            if d is not None:
                active.append(d)
        lefts = []
        for d in active:
            v, inflight = d.search.tree.node_stats(ROOT)[:2]
            lefts.append(visits - int(v) - int(inflight))
        evaluate_together(evaluator, active, planes, lefts)
        keep = []
        for d in active:
            if int(d.search.tree.node_stats(ROOT)[0]) < visits and not d.search.stats.full:
                keep.append(d)
                continue
            m = d.search.ranked_moves()[0].move
            d.pos.push(m)
            d.moves.append(m)
            d.plies += 1
            if advance(d):
                keep.append(d)
        active = keep
    return stats


def write_fens(path: str | Path, fens: Sequence[str]) -> None:
    from trainer.data.files import atomic_write

    data = ("\n".join(fens) + "\n").encode()
    atomic_write(path, lambda f: f.write(data))


def read_fens(path: str | Path) -> list[str]:
    """FENs one a line (blank lines and # comments skipped; EPD operations dropped)."""
    out = []
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            fields = line.split()
            out.append(" ".join(fields[:6]) if len(fields) >= 6 else chess.Board(
                " ".join(fields[:4]) + " 0 1").fen())
    return out

