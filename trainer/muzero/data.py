"""Trajectories for the unrolled loss, cut from the record files (trainer/data/records.py).

A MuZero sample is a position (the planes h sees) and the next K actions actually played, with
the targets of the K positions they lead to. Records hold positions and targets; which
positions follow one another by which move is worked out here, per kind of record:

* self-play (no ``fens`` in the meta): one game per record, positions are consecutive plies from
  the start FEN after the book moves, ``moves[i]`` is the move played (-1 after a resignation);
* Stockfish-labelled games (``sf-games``; ``fens`` in the meta): positions are in game order but
  a record (a chunk of 256) may hold the end of one game and the start of the next, continue a
  game from the previous file, or hold a position stored without history (fen-only). ``moves``
  is Stockfish's best move, not necessarily the one played. So position j+1 follows j only when
  some legal move of j's FEN gives j+1's FEN (piece placement, side to move, castling, en
  passant); that move is the action. Files are read in name order, so a game that runs over a
  file boundary stays one trajectory. Isolated labels (``sf-label``) have no such neighbours and
  give one-step samples (h and f only).

A move that ends the game (mate, stalemate, draw rules) is known in self-play records, whose
last move is stored; the unroll then takes one more step into the absorbing state with the
reward as target (win for the mover after a mate, zero otherwise) and a value of zero. Past the
end of a trajectory the steps are masked out of the loss.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import chess
import numpy as np
import numpy.typing as npt

from engine import contract
from engine.board_ref import to_chess_move
from trainer.data.pgn_data import unpack_planes
from trainer.data.records import Record, list_records

REWARD_WIN, REWARD_NONE, REWARD_LOSS = 0, 1, 2
"""Reward classes for the player who made the move (ordered like WDL)."""
ABSORBING_WDL = np.array([0.0, 1.0, 0.0], np.float32)
"""Value target of a state after the game's end: zero (W - L = 0)."""


@dataclass
class TrajectoryBatch:
    """B samples unrolled K steps. Index 0 of the K+1 axes is the root position."""

    planes: npt.NDArray[np.float32]  # [B,112,8,8] input of h
    actions: npt.NDArray[np.int64]  # [B,K] policy indices fed to g (any index where masked)
    policy: npt.NDArray[np.float32]  # [B,K+1,1858]
    has_policy: npt.NDArray[np.bool_]  # [B,K+1]
    value: npt.NDArray[np.float32]  # [B,K+1,3] WDL target for the side to move
    has_value: npt.NDArray[np.bool_]  # [B,K+1]
    reward: npt.NDArray[np.int64]  # [B,K] reward class of the step's move
    has_reward: npt.NDArray[np.bool_]  # [B,K]
    rows: npt.NDArray[np.int64]  # [B,K+1] dataset rows of the real positions (-1: none)
    step_planes: npt.NDArray[np.float32] | None = None
    """[B,K,112,8,8] planes of the positions at steps 1..K (zeros where none), for the
    consistency loss; filled by :meth:`TrajectoryData.step_planes` when it is asked for."""


def _key(fen: str) -> str:
    return " ".join(fen.split()[:4])


def _engine_move(board: chess.Board, move: int) -> chess.Move | None:
    if move < 0:
        return None
    m = to_chess_move(move)
    return m if board.is_legal(m) else None


def _connecting_move(board: chess.Board, hint: int, next_fen: str) -> chess.Move | None:
    """The legal move of ``board`` leading to ``next_fen``'s position, trying ``hint`` first."""
    target = _key(next_fen)
    first = _engine_move(board, hint)
    for m in ([first] if first else []) + list(board.legal_moves):
        board.push(m)
        hit = _key(board.fen()) == target
        board.pop()
        if hit:
            return m
    return None


def _end_reward(board: chess.Board) -> int:
    """Reward class of the move just played into ``board`` if the game is over, else -1."""
    outcome = board.outcome(claim_draw=True)
    if outcome is None:
        return -1
    return REWARD_WIN if outcome.winner is not None else REWARD_NONE


class TrajectoryData:
    """All positions of some record files, with the actions linking them."""

    def __init__(self, paths: Sequence[str | os.PathLike[str]]) -> None:
        if not paths:
            raise ValueError("no record files given")
        self.paths = [Path(p) for p in paths]
        recs = [Record.load(p) for p in self.paths]
        self._arrays: dict[str, npt.NDArray[Any]] = {}
        cat = lambda name: np.concatenate([getattr(r, name) for r in recs])  # noqa: E731
        for name in ("bits", "aux", "wdl", "root_q", "root_d", "full", "moves"):
            self._arrays[name] = cat(name)
        ptrs, base = [], 0
        for r in recs:
            ptrs.append(r.policy_ptr[:-1] + base)
            base += int(r.policy_ptr[-1])
        self.policy_ptr = np.concatenate(ptrs + [np.array([base], np.int64)]).astype(np.int64)
        self.policy_idx = cat("policy_idx").astype(np.int64)
        self.policy_prob = cat("policy_prob")
        n = len(self._arrays["moves"])
        self.actions = np.full(n, -1, np.int64)  # policy index of the move from row i
        self.follows = np.zeros(n, bool)  # row i+1 is the position after actions[i]
        self.end_reward = np.full(n, -1, np.int64)  # reward class when actions[i] ends the game
        row = 0
        prev_fen: tuple[str, int] | None = None  # (fen, row) of the last sf position
        for rec in recs:
            fens = rec.meta.get("fens")
            if fens is not None:
                self._link_fens(rec, fens, row, prev_fen)
                prev_fen = (fens[-1], row + len(rec) - 1)
            else:
                self._link_game(rec, row)
                prev_fen = None
            row += len(rec)

    def __len__(self) -> int:
        return len(self.actions)

    def _link_fens(self, rec: Record, fens: list[str], row: int,
                   prev: tuple[str, int] | None) -> None:
        pairs = [(fens[i], row + i, fens[i + 1], int(rec.moves[i])) for i in range(len(fens) - 1)]
        if prev is not None:
            pairs.insert(0, (prev[0], prev[1], fens[0], int(self._arrays["moves"][prev[1]])))
        for fen, j, nxt, hint in pairs:
            board = chess.Board(fen)
            m = _connecting_move(board, hint, nxt)
            if m is not None:
                self.actions[j] = contract.move_index(board, m)
                self.follows[j] = True

    def _link_game(self, rec: Record, row: int) -> None:
        board = chess.Board(rec.start_fen)
        for uci in rec.meta.get("book", []):
            board.push_uci(uci)
        for i, mv in enumerate(rec.moves):
            m = _engine_move(board, int(mv))
            if m is None:
                break  # a resignation (-1) ends the game
            self.actions[row + i] = contract.move_index(board, m)
            board.push(m)
            if i + 1 < len(rec):
                self.follows[row + i] = True
            else:
                self.end_reward[row + i] = _end_reward(board)

    # ------------------------------------------------------------------ samples

    def planes(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        return unpack_planes(self._arrays["bits"][rows], self._arrays["aux"][rows])

    def step_planes(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """[B,K,112,8,8]: the planes of ``rows[:, 1:]`` (a batch's), zeros where no position."""
        after = rows[:, 1:]
        out = np.zeros((*after.shape, contract.NUM_PLANES, 8, 8), np.float32)
        real = after >= 0
        if real.any():
            out[real] = self.planes(after[real])
        return out

    def value_targets(self, rows: npt.NDArray[np.int64], q_weight: float) -> npt.NDArray[np.float32]:
        """The AlphaZero trainer's value target: game result blended with the root's WDL."""
        a = self._arrays
        q, d = a["root_q"][rows], a["root_d"][rows]
        root = np.stack([(1 + q - d) / 2, d, (1 - q - d) / 2], axis=-1).clip(0, 1)
        root /= np.maximum(root.sum(-1, keepdims=True), 1e-9)
        return ((1 - q_weight) * a["wdl"][rows] + q_weight * root).astype(np.float32)

    def trajectory_starts(self, depth: int) -> npt.NDArray[np.int64]:
        """Rows from which ``depth`` real moves follow (for measuring the unroll)."""
        ok = np.ones(len(self), bool)
        for k in range(depth):
            shifted = np.zeros(len(self), bool)
            shifted[: len(self) - k] = self.follows[k:]
            ok &= shifted
        return np.flatnonzero(ok)

    def sample(self, batch_size: int, unroll: int, rng: np.random.Generator,
               q_weight: float = 0.0, starts: npt.NDArray[np.int64] | None = None) -> TrajectoryBatch:
        """``batch_size`` uniform start rows (or ``starts``) unrolled ``unroll`` steps."""
        n = len(self)
        if starts is None:
            starts = rng.integers(0, n, batch_size)
        b, k1 = len(starts), unroll + 1
        rows = np.full((b, k1), -1, np.int64)
        actions = rng.integers(0, contract.POLICY_SIZE, (b, unroll))
        reward = np.full((b, unroll), REWARD_NONE, np.int64)
        has_reward = np.zeros((b, unroll), bool)
        value = np.zeros((b, k1, 3), np.float32)
        has_value = np.zeros((b, k1), bool)
        rows[:, 0] = starts
        alive = np.ones(b, bool)
        for k in range(1, k1):
            prev = rows[:, k - 1]
            cont = alive & (prev >= 0)
            step = np.where(cont, prev, 0)
            follows = cont & self.follows[step]
            ends = cont & ~self.follows[step] & (self.end_reward[step] >= 0)
            moved = follows | ends
            actions[moved, k - 1] = self.actions[step[moved]]
            has_reward[:, k - 1] = moved
            reward[ends, k - 1] = self.end_reward[step[ends]]
            rows[follows, k] = step[follows] + 1
            value[ends, k] = ABSORBING_WDL
            has_value[ends, k] = True
            alive = follows
        real = rows >= 0
        value[real] = self.value_targets(rows[real], q_weight)
        has_value |= real
        policy = np.zeros((b, k1, contract.POLICY_SIZE), np.float32)
        has_policy = np.zeros((b, k1), bool)
        ptr, full = self.policy_ptr, self._arrays["full"]
        for i, j in zip(*np.nonzero(real)):
            r = rows[i, j]
            if full[r]:
                s, e = ptr[r], ptr[r + 1]
                policy[i, j, self.policy_idx[s:e]] = self.policy_prob[s:e]
                has_policy[i, j] = True
        return TrajectoryBatch(self.planes(starts), actions, policy, has_policy, value,
                               has_value, reward, has_reward, rows)


def record_files(dirs: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """The record files of ``dirs`` in order (oldest directory first, names in order)."""
    out: list[Path] = []
    for d in dirs:
        out.extend(list_records(d))
    return out


def split_heldout(paths: Sequence[Path], share: float) -> tuple[list[Path], list[Path]]:
    """(training files, held-out files): the last ``share`` of the files (at least one when
    ``share`` > 0) are held out, so no held-out game is trained on, except a game running over
    the boundary file."""
    if not 0 <= share < 1:
        raise ValueError(f"held-out share must be in [0, 1), got {share}")
    held = int(round(len(paths) * share))
    if share > 0:
        held = max(1, held)
    if held >= len(paths) and held > 0:
        raise ValueError(f"{len(paths)} record files: too few to hold {share:.0%} out")
    cut = len(paths) - held
    return list(paths[:cut]), list(paths[cut:])
