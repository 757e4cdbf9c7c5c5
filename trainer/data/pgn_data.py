"""PGN games -> training arrays, stored compactly in a versioned .npz.

Every position of every usable game where a move was played becomes one sample: its input planes
(:func:`engine.contract.encode` with the game so far as history), the played move's policy index,
the game result from the side to move's view, the plies left to the end of the game record, and
the mask of legal moves. Games without a result ("*"), with errors such as illegal moves
(python-chess's reader does not raise; it records them in ``game.errors`` and drops the rest of
the line), of a variant other than standard chess, or with no moves are skipped.

File format (``FORMAT``/``VERSION`` stored as 0-d arrays; N positions, G games):

===============  ================  ===========================================================
``bits``         uint8 [N,104,8]   planes 0..103 (pieces, repetitions); byte ``r`` of plane
                                   ``p`` is rank ``r``, bit ``f`` (little-endian bit order) is
                                   file ``f``: ``np.unpackbits(bits, -1, bitorder="little")``
                                   gives the [N,104,8,8] planes back
``aux``          uint16 [N,8]      planes 104..111, each constant over the board: the value
                                   (castling 0/1, black to move 0/1, rule-50 plies, 0, 1)
``policy``       int16 [N]         played move's index in the 1858 policy
``wdl``          int8 [N]          game result for the side to move: 0 win, 1 draw, 2 loss
``plies_left``   int16 [N]         plies from this position to the end of the game record
``ply``          int16 [N]         plies played before this position
``game``         int32 [N]         game number in this file (0..G-1), for held-out splits
``legal``        uint8 [N,233]     legal-move mask over the 1858 entries, bit-packed (little)
``files``        str [F]           source PGN file names
``game_file``    int16 [G]         which file each game came from
===============  ================  ===========================================================

About 1.1 kB per position instead of 28.7 kB as float32 planes; :func:`unpack_planes` restores
float32 planes per batch.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import chess
import chess.pgn
import numpy as np
import numpy.typing as npt

from engine import contract

FORMAT = "zerosum-pgn-data"
VERSION = 1
NUM_BITPLANES = contract.AUX_BASE  # 104
NUM_AUX = contract.NUM_PLANES - contract.AUX_BASE  # 8
LEGAL_BYTES = (contract.POLICY_SIZE + 7) // 8  # 233
RESULTS = {"1-0": chess.WHITE, "0-1": chess.BLACK, "1/2-1/2": None}


def pack_planes(planes: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint16]]:
    """[N,112,8,8] float planes -> (bits [N,104,8] uint8, aux [N,8] uint16)."""
    piece = planes[:, :NUM_BITPLANES]
    if not np.all((piece == 0) | (piece == 1)):
        raise ValueError("planes 0..103 must be 0/1")
    bits = np.packbits(piece.astype(np.uint8), axis=-1, bitorder="little")[..., 0]
    auxp = planes[:, NUM_BITPLANES:]
    aux = auxp[:, :, 0, 0]
    if not np.all(auxp == aux[:, :, None, None]) or aux.min() < 0 or aux.max() > 65535:
        raise ValueError("aux planes must be constant non-negative integers")
    return bits, aux.astype(np.uint16)


def unpack_planes(bits: npt.NDArray[np.uint8], aux: npt.NDArray[np.uint16]) -> npt.NDArray[np.float32]:
    """(bits [N,104,8], aux [N,8]) -> float32 planes [N,112,8,8], as contract.encode makes them.

    A single position (bits [104,8], aux [8]) gives [112,8,8].
    """
    out = np.empty(bits.shape[:-2] + (contract.NUM_PLANES, 8, 8), dtype=np.float32)
    out[..., :NUM_BITPLANES, :, :] = np.unpackbits(bits[..., None], axis=-1, bitorder="little")
    out[..., NUM_BITPLANES:, :, :] = aux[..., :, None, None]
    return out


def unpack_legal(legal: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """[N,233] packed -> [N,1858] bool legal-move mask."""
    return np.unpackbits(legal, axis=-1, count=contract.POLICY_SIZE, bitorder="little").astype(bool)


def result_class(result: chess.Color | None, turn: chess.Color) -> int:
    """0 win, 1 draw, 2 loss for the side ``turn``, given the winner (None: draw)."""
    if result is None:
        return 1
    return 0 if result == turn else 2


def usable(game: chess.pgn.Game) -> bool:
    """Whether a parsed game can be trained on."""
    return (
        not game.errors
        and game.headers.get("Result", "*") in RESULTS
        and game.headers.get("Variant", "Standard").lower() in ("standard", "chess", "")
        and game.next() is not None
    )


def read_games(paths: Iterable[str | os.PathLike[str]]) -> Iterator[tuple[int, chess.pgn.Game]]:
    """(file number, game) for every game of every file, usable or not."""
    for i, path in enumerate(paths):
        with open(path, encoding="utf-8-sig", errors="replace") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                yield i, game


@dataclass
class GameSamples:
    planes: npt.NDArray[np.float32]
    policy: npt.NDArray[np.int16]
    wdl: npt.NDArray[np.int8]
    plies_left: npt.NDArray[np.int16]
    legal: npt.NDArray[np.uint8]


def game_samples(game: chess.pgn.Game) -> GameSamples:
    """The samples of one (usable) game, one per move played."""
    winner = RESULTS[game.headers["Result"]]
    board = game.board()
    moves = list(game.mainline_moves())
    n = len(moves)
    planes = np.empty((n, contract.NUM_PLANES, 8, 8), dtype=np.float32)
    policy = np.empty(n, dtype=np.int16)
    wdl = np.empty(n, dtype=np.int8)
    legal = np.zeros((n, contract.POLICY_SIZE), dtype=np.uint8)
    for i, move in enumerate(moves):
        planes[i] = contract.encode(board)
        policy[i] = contract.move_index(board, move)
        wdl[i] = result_class(winner, board.turn)
        legal[i, contract.legal_move_indices(board)[1]] = 1
        board.push(move)
    plies_left = (n - np.arange(n)).astype(np.int16)
    return GameSamples(planes, policy, wdl, plies_left,
                       np.packbits(legal, axis=-1, bitorder="little"))


@dataclass
class PositionData:
    bits: npt.NDArray[np.uint8]
    aux: npt.NDArray[np.uint16]
    policy: npt.NDArray[np.int16]
    wdl: npt.NDArray[np.int8]
    plies_left: npt.NDArray[np.int16]
    ply: npt.NDArray[np.int16]
    game: npt.NDArray[np.int32]
    legal: npt.NDArray[np.uint8]
    files: npt.NDArray[np.str_]
    game_file: npt.NDArray[np.int16]

    def __len__(self) -> int:
        return len(self.policy)

    @property
    def num_games(self) -> int:
        return len(self.game_file)

    def planes(self, idx: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Float32 planes [len(idx),112,8,8] of the given positions."""
        idx = np.asarray(idx)
        return unpack_planes(self.bits[idx], self.aux[idx])

    @classmethod
    def from_pgn(cls, paths: Sequence[str | os.PathLike[str]], progress: bool = True) -> "PositionData":
        parts: dict[str, list[np.ndarray]] = {k: [] for k in
                                              ("bits", "aux", "policy", "wdl", "plies_left", "ply", "game", "legal")}
        game_file: list[int] = []
        skipped = 0
        games = read_games(paths)
        if progress:
            from tqdm import tqdm
            games = tqdm(games, desc="pgn", unit="game")
        for fileno, game in games:
            if not usable(game):
                skipped += 1
                continue
            s = game_samples(game)
            bits, aux = pack_planes(s.planes)
            n = len(s.policy)
            for k, v in (("bits", bits), ("aux", aux), ("policy", s.policy), ("wdl", s.wdl),
                         ("plies_left", s.plies_left), ("ply", np.arange(n, dtype=np.int16)),
                         ("game", np.full(n, len(game_file), dtype=np.int32)), ("legal", s.legal)):
                parts[k].append(v)
            game_file.append(fileno)
        if not game_file:
            raise ValueError("no usable games")
        if progress and skipped:
            print(f"skipped {skipped} unusable games")
        arrays = {k: np.concatenate(v) for k, v in parts.items()}
        return cls(**arrays, files=np.array([Path(p).name for p in paths]),
                   game_file=np.array(game_file, dtype=np.int16))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write a compressed .npz atomically."""
        from trainer.data.files import save_tagged_npz

        save_tagged_npz(path, FORMAT, VERSION, {f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "PositionData":
        from trainer.data.files import load_tagged_npz

        z = load_tagged_npz(path, FORMAT, VERSION)
        return cls(**{f.name: z[f.name] for f in fields(cls)})

    def split_games(self, holdout: float, seed: int = 0) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Position indices (train, held-out), holding out a ``holdout`` fraction of whole games."""
        rng = np.random.default_rng(seed)
        n_held = int(round(self.num_games * holdout))
        if holdout > 0:
            n_held = max(1, min(n_held, self.num_games - 1))
        held_games = rng.permutation(self.num_games)[:n_held]
        held = np.isin(self.game, held_games)
        return np.flatnonzero(~held), np.flatnonzero(held)
