"""Training records: one versioned ``.npz`` per self-play game (or per batch of labelled
positions), written atomically, with the game's PGN beside it.

Why planes and not FEN + moves: positions are stored as their bit-packed input planes (the same
packing as :mod:`trainer.data.pgn_data`, ~850 bytes a position before compression), so the learner
never re-plays games and a record can also hold unrelated positions (Stockfish labels, endgame
curricula). The start FEN and the moves are stored as well, for the PGN and for re-checking.

File format (``format``/``version`` as 0-d arrays; N positions, M sparse policy entries):

=================  ==============  ==========================================================
``bits``           uint8 [N,104,8] planes 0..103, packed little-endian per rank (pgn_data)
``aux``            uint16 [N,8]    planes 104..111 (constant per plane)
``moves``          int32 [N]       move played from the position (engine int), -1 if none
``wdl``            float32 [N,3]   value target from the game: result for the side to move
                                   (one-hot win/draw/loss; a distribution for labels)
``root_q``         float32 [N]     search root's W-L for the side to move
``root_d``         float32 [N]     search root's draw probability
``plies_left``     int16 [N]       plies to the end of the game, -1 if unknown
``full``           bool [N]        whether the move had a full search (policy target present)
``policy_ptr``     int32 [N+1]     CSR offsets into ``policy_idx``/``policy_prob``
``policy_idx``     int16 [M]       1858-policy indices of the visited moves
``policy_prob``    float32 [M]     their share of the visits (sums to 1 per full position)
``start_fen``      str             the game's start position
``meta``           str             JSON: generation, worker, game, net, result, termination...
=================  ==============  ==========================================================
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol, Sequence

import chess
import chess.pgn
import numpy as np
import numpy.typing as npt

from engine import contract
from trainer.data.files import atomic_write, load_tagged_npz, save_tagged_npz
from trainer.data.pgn_data import pack_planes, unpack_planes

FORMAT = "zerosum-record"
VERSION = 1
NAME_RE = re.compile(r"^g(\d{4,})-w(\d{3,})-(\d{6,})\.npz$")


@dataclass
class Record:
    """The positions of one game (or one batch of labelled positions) and their targets."""

    bits: npt.NDArray[np.uint8]
    aux: npt.NDArray[np.uint16]
    moves: npt.NDArray[np.int32]
    wdl: npt.NDArray[np.float32]
    root_q: npt.NDArray[np.float32]
    root_d: npt.NDArray[np.float32]
    plies_left: npt.NDArray[np.int16]
    full: npt.NDArray[np.bool_]
    policy_ptr: npt.NDArray[np.int32]
    policy_idx: npt.NDArray[np.int16]
    policy_prob: npt.NDArray[np.float32]
    start_fen: str = chess.STARTING_FEN
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.moves)

    def planes(self, idx: npt.ArrayLike | None = None) -> npt.NDArray[np.float32]:
        """Float32 input planes [n,112,8,8] (all positions, or those at ``idx``)."""
        if idx is None:
            return unpack_planes(self.bits, self.aux)
        i = np.asarray(idx)
        return unpack_planes(self.bits[i], self.aux[i])

    def policy(self, i: int) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.float32]]:
        """The sparse policy target of position ``i`` (empty for fast-search positions)."""
        a, b = int(self.policy_ptr[i]), int(self.policy_ptr[i + 1])
        return self.policy_idx[a:b], self.policy_prob[a:b]

    def dense_policy(self) -> npt.NDArray[np.float32]:
        """[N,1858] policy targets, zero rows where there is none."""
        out = np.zeros((len(self), contract.POLICY_SIZE), np.float32)
        rows = np.repeat(np.arange(len(self)), np.diff(self.policy_ptr))
        out[rows, self.policy_idx.astype(np.int64)] = self.policy_prob
        return out

    @classmethod
    def build(cls, planes: npt.NDArray[np.float32], moves: Sequence[int],
              wdl: npt.ArrayLike, root_q: npt.ArrayLike, root_d: npt.ArrayLike,
              plies_left: npt.ArrayLike,
              policies: Sequence[tuple[Sequence[int], Sequence[float]] | None],
              start_fen: str = chess.STARTING_FEN, meta: dict[str, Any] | None = None) -> "Record":
        """A record from per-position lists; ``policies[i]`` is (indices, probabilities) for a
        full search, None for a fast one."""
        bits, aux = pack_planes(planes)
        ptr = [0]
        idx: list[int] = []
        prob: list[float] = []
        for p in policies:
            if p is not None:
                idx.extend(int(i) for i in p[0])
                prob.extend(float(x) for x in p[1])
            ptr.append(len(idx))
        return cls(bits=bits, aux=aux, moves=np.asarray(moves, np.int32).reshape(-1),
                   wdl=np.asarray(wdl, np.float32).reshape(-1, 3),
                   root_q=np.asarray(root_q, np.float32), root_d=np.asarray(root_d, np.float32),
                   plies_left=np.asarray(plies_left, np.int16),
                   full=np.array([p is not None for p in policies], bool),
                   policy_ptr=np.asarray(ptr, np.int32), policy_idx=np.asarray(idx, np.int16),
                   policy_prob=np.asarray(prob, np.float32), start_fen=start_fen,
                   meta=dict(meta or {}))

    def validate(self) -> None:
        """Raises ValueError when the arrays disagree in length or the targets are malformed."""
        n = len(self.moves)
        for name in ("bits", "aux", "wdl", "root_q", "root_d", "plies_left", "full"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"record field {name} has {len(getattr(self, name))} rows, "
                                 f"expected {n}")
        if len(self.policy_ptr) != n + 1 or self.policy_ptr[-1] != len(self.policy_idx):
            raise ValueError("record policy offsets do not match its entries")
        if len(self.policy_idx) and (self.policy_idx.min() < 0
                                     or self.policy_idx.max() >= contract.POLICY_SIZE):
            raise ValueError("record policy index out of range")
        has = np.diff(self.policy_ptr) > 0
        if not np.array_equal(has, self.full):
            raise ValueError("record: policy targets must be present exactly on full searches")

    def save(self, path: str | os.PathLike[str], pgn: str | None = None) -> None:
        """Writes the PGN (if any) and then the record, each atomically; the .npz appearing is
        what makes the game count as finished."""
        self.validate()
        path = Path(path)
        if pgn is not None:
            atomic_write(path.with_suffix(".pgn"), lambda f: f.write(pgn.encode()))
        arrays = {f.name: getattr(self, f.name) for f in fields(self)
                  if f.name not in ("start_fen", "meta")}
        save_tagged_npz(path, FORMAT, VERSION, dict(
            arrays, start_fen=np.array(self.start_fen), meta=np.array(json.dumps(self.meta))))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Record":
        z = load_tagged_npz(path, FORMAT, VERSION)
        arrays = {f.name: z[f.name] for f in fields(cls) if f.name not in ("start_fen", "meta")}
        rec = cls(**arrays, start_fen=str(z["start_fen"]), meta=json.loads(str(z["meta"])))
        rec.validate()
        return rec


def wdl_onehot(winner: chess.Color | None, turn: chess.Color) -> list[float]:
    """Game result as (win, draw, loss) for the side ``turn``; ``winner`` None for a draw."""
    if winner is None:
        return [0.0, 1.0, 0.0]
    return [1.0, 0.0, 0.0] if winner == turn else [0.0, 0.0, 1.0]


def game_pgn(start_fen: str, uci_moves: Sequence[str], result: str,
             headers: dict[str, str] | None = None) -> str:
    """The PGN text of a game from ``start_fen`` (a FEN header when it is not the start)."""
    board = chess.Board(start_fen)
    game = chess.pgn.Game()
    for k, v in (headers or {}).items():
        game.headers[k] = str(v)
    if start_fen != chess.STARTING_FEN:
        game.setup(board)
    node: chess.pgn.GameNode = game
    for u in uci_moves:
        node = node.add_variation(chess.Move.from_uci(u))
    game.headers["Result"] = result
    return str(game) + "\n\n"


# ----------------------------------------------------------------- file names


def record_name(generation: int, worker: int, counter: int) -> str:
    """``g0003-w001-000042.npz``: sorts by generation; unique per (generation, worker, game)."""
    return f"g{generation:04d}-w{worker:03d}-{counter:06d}.npz"


def parse_name(name: str) -> tuple[int, int, int] | None:
    """(generation, worker, counter) of a record file name, None for other files."""
    m = NAME_RE.match(name)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def list_records(directory: str | os.PathLike[str], generation: int | None = None,
                 worker: int | None = None) -> list[Path]:
    """Finished record files in ``directory`` in name order (oldest generation first); temp
    files of unfinished writes start with a dot and are never listed."""
    d = Path(directory)
    if not d.is_dir():
        return []
    out = []
    for p in d.iterdir():
        key = parse_name(p.name) if not p.name.startswith(".") else None
        if key is None and generation is None and worker is None and p.suffix == ".npz" \
                and not p.name.startswith("."):
            out.append((p.name, p))  # other record files (labels, curricula): listed too
            continue
        if key is None:
            continue
        if generation is not None and key[0] != generation:
            continue
        if worker is not None and key[1] != worker:
            continue
        out.append((p.name, p))
    return [p for _, p in sorted(out)]


def next_counter(directory: str | os.PathLike[str], generation: int, worker: int) -> int:
    """The next unused game counter of (generation, worker): one past the largest finished.

    Finished files are the only state, so a worker killed at any moment restarts without
    reusing a name (no duplicate) and without skipping a finished game (no loss)."""
    keys = [parse_name(p.name) for p in list_records(directory, generation, worker)]
    return max((k[2] for k in keys if k), default=-1) + 1


def clean_temp_files(directory: str | os.PathLike[str], prefix: str) -> int:
    """Removes temp files left by a killed writer whose target name starts with ``prefix``
    (one worker's own: another worker may be writing at this moment)."""
    d = Path(directory)
    removed = 0
    if d.is_dir():
        for p in d.iterdir():
            if p.name.startswith("." + prefix) and p.name.endswith(".tmp"):
                p.unlink(missing_ok=True)
                removed += 1
    return removed


# ------------------------------------------------------------------ game sinks


class GameSink(Protocol):
    """Where a self-play worker's finished games go: a records directory it writes itself (the
    single-machine loop), or the learner that writes them for it (trainer/dist)."""

    def next_counter(self, generation: int, worker: int) -> int:
        """The worker's first game number: one past its last finished game."""
        ...

    def put(self, name: str, record: Record, pgn: str) -> None:
        """Stores one finished game under its record name (``record_name``)."""
        ...


class RecordDir:
    """A records directory as a :class:`GameSink`: every game written atomically, at once."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def next_counter(self, generation: int, worker: int) -> int:
        clean_temp_files(self.directory, record_name(generation, worker, 0)[:11])
        return next_counter(self.directory, generation, worker)

    def put(self, name: str, record: Record, pgn: str) -> None:
        record.save(self.directory / name, pgn)
