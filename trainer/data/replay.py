"""The replay window: the most recent ``window`` positions over the record files, on disk.

Why on disk: the original design's bounded FIFO of positions lives in the data directory itself,
so self-play and learner need share nothing but files (they may be separate processes or
machines). ``refresh`` re-reads the directory listing, walks the records newest first until the
window is full (the oldest file may be cut), and keeps the loaded records in memory by file name
(records never change once written), so a refresh after a generation reads only the new games.

Sampling is uniform over the window's positions. ``dedup`` keeps only the most recent
occurrence of identical input planes (opening and curriculum positions repeat a lot).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import numpy.typing as npt

from engine import contract
from trainer.data.pgn_data import unpack_planes
from trainer.data.records import Record, list_records


@dataclass
class Batch:
    """A training batch as numpy arrays (the trainer makes tensors of them)."""

    planes: npt.NDArray[np.float32]  # [B,112,8,8]
    policy: npt.NDArray[np.float32]  # [B,1858] visit distribution (zero rows: no target)
    has_policy: npt.NDArray[np.bool_]  # [B]
    wdl: npt.NDArray[np.float32]  # [B,3] game result for the side to move
    root_q: npt.NDArray[np.float32]  # [B]
    root_d: npt.NDArray[np.float32]  # [B]
    plies_left: npt.NDArray[np.float32]  # [B], -1 unknown


class ReplayWindow:
    """Uniform samples from the newest ``window`` positions of the records in ``dirs`` (later
    directories count as newer; within one, file names order by generation)."""

    def __init__(self, dirs: Sequence[str | os.PathLike[str]], window: int,
                 dedup: bool = False) -> None:
        self.dirs = [Path(d) for d in dirs]
        self.window = int(window)
        self.dedup = dedup
        self._cache: dict[Path, Record] = {}
        self.files: list[Path] = []
        self._arrays: dict[str, npt.NDArray[Any]] = {}
        self.games = 0

    def __len__(self) -> int:
        return len(self._arrays.get("moves", ()))

    def refresh(self) -> int:
        """Re-reads the directories; returns the number of positions in the window."""
        paths: list[Path] = []
        for d in self.dirs:
            paths.extend(list_records(d))
        chosen: list[tuple[Record, int]] = []  # (record, first row kept), newest first
        total = 0
        for p in reversed(paths):
            if total >= self.window:
                break
            rec = self._cache.get(p)
            if rec is None:
                try:
                    rec = Record.load(p)
                except (OSError, ValueError) as exc:  # a foreign or damaged file: skip it
                    print(f"replay: skipping {p}: {exc}")
                    continue
                self._cache[p] = rec
            start = max(0, len(rec) - (self.window - total))
            chosen.append((rec, start))
            total += len(rec) - start
        kept = {id(r) for r, _ in chosen}
        self._cache = {p: r for p, r in self._cache.items() if id(r) in kept}
        self.files = [p for p in paths if p in self._cache]
        self.games = len(chosen)
        self._build(list(reversed(chosen)))
        return len(self)

    def _build(self, chosen: list[tuple[Record, int]]) -> None:
        """Concatenates the kept rows (oldest first), policies as CSR arrays."""
        if not chosen:
            self._arrays = {}
            return
        names = ("bits", "aux", "moves", "wdl", "root_q", "root_d", "plies_left", "full")
        parts: dict[str, list[npt.NDArray[Any]]] = {k: [] for k in names}
        ptr_parts, idx_parts, prob_parts, game_parts = [], [], [], []
        base = 0
        for g, (rec, start) in enumerate(chosen):
            for k in names:
                parts[k].append(getattr(rec, k)[start:])
            a, b = int(rec.policy_ptr[start]), int(rec.policy_ptr[-1])
            ptr_parts.append(rec.policy_ptr[start:-1] - a + base)
            idx_parts.append(rec.policy_idx[a:b])
            prob_parts.append(rec.policy_prob[a:b])
            game_parts.append(np.full(len(rec) - start, g, np.int32))
            base += b - a
        arrays = {k: np.concatenate(v) for k, v in parts.items()}
        arrays["policy_ptr"] = np.concatenate(ptr_parts + [np.array([base], np.int32)])
        arrays["policy_idx"] = np.concatenate(idx_parts)
        arrays["policy_prob"] = np.concatenate(prob_parts)
        arrays["game"] = np.concatenate(game_parts)
        rows = np.arange(len(arrays["moves"]))
        if self.dedup:
            rows = self._unique_rows(arrays["bits"], arrays["aux"])
        self._rows = rows
        self._arrays = arrays

    @staticmethod
    def _unique_rows(bits: npt.NDArray[np.uint8], aux: npt.NDArray[np.uint16]) -> npt.NDArray[np.int64]:
        """Row numbers keeping the last occurrence of each distinct input."""
        keys = np.concatenate([bits.reshape(len(bits), -1), aux.view(np.uint8).reshape(len(aux), -1)],
                              axis=1)
        keys = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).ravel()
        _, first_of_reversed = np.unique(keys[::-1], return_index=True)
        return np.sort(len(keys) - 1 - first_of_reversed)

    @property
    def num_positions(self) -> int:
        """Positions sampled from (after dedup)."""
        return len(self._rows) if self._arrays else 0

    def batch(self, rows: npt.NDArray[np.int64]) -> Batch:
        """The training batch of window rows ``rows``."""
        a = self._arrays
        ptr = a["policy_ptr"]
        policy = np.zeros((len(rows), contract.POLICY_SIZE), np.float32)
        for i, r in enumerate(rows):
            s, e = ptr[r], ptr[r + 1]
            policy[i, a["policy_idx"][s:e].astype(np.int64)] = a["policy_prob"][s:e]
        return Batch(planes=unpack_planes(a["bits"][rows], a["aux"][rows]), policy=policy,
                     has_policy=a["full"][rows].copy(), wdl=a["wdl"][rows].copy(),
                     root_q=a["root_q"][rows].copy(), root_d=a["root_d"][rows].copy(),
                     plies_left=a["plies_left"][rows].astype(np.float32))

    def sample(self, batch_size: int, rng: np.random.Generator) -> Batch:
        """A uniform sample (with replacement across calls, without within one batch)."""
        if not self._arrays:
            raise ValueError("the replay window is empty (no records yet)")
        n = len(self._rows)
        pick = rng.choice(n, size=min(batch_size, n), replace=False) if n >= batch_size \
            else rng.integers(0, n, batch_size)
        return self.batch(self._rows[np.sort(pick)])

    def stats(self) -> dict[str, Any]:
        """Positions, games, mean game length (plies in the window), result shares."""
        if not self._arrays:
            return {"positions": 0, "games": 0, "files": 0}
        a = self._arrays
        rows = self._rows
        res = a["wdl"][rows].mean(0)
        starts = np.flatnonzero(np.diff(a["game"], prepend=-1))
        white = np.where(a["aux"][starts, 4] != 0, -1.0, 1.0)  # aux plane 4: black to move
        first = a["wdl"][starts]
        score_white = (first[:, 0] - first[:, 2]) * white  # +1 white won, -1 black won
        return {
            "positions": int(len(rows)),
            "positions_raw": int(len(a["moves"])),
            "games": int(self.games),
            "files": len(self.files),
            "mean_length": float(len(a["moves"]) / max(1, self.games)),
            "full_share": float(a["full"][rows].mean()),
            "result_stm": {"win": float(res[0]), "draw": float(res[1]), "loss": float(res[2])},
            "games_white_win": float((score_white > 0.5).mean()),
            "games_draw": float((np.abs(score_white) < 0.5).mean()),
            "games_black_win": float((score_white < -0.5).mean()),
        }


def concat_batches(parts: Sequence[Batch]) -> Batch:
    """One batch of the rows of ``parts``, in order."""
    return Batch(**{k: np.concatenate([getattr(p, k) for p in parts])
                    for k in Batch.__dataclass_fields__})


class MixedWindow:
    """The replay window with a fixed share of each batch drawn from other records (an anchor
    such as Stockfish-labelled positions, which a long self-play run would otherwise push out of
    the window): ``share`` of every batch comes uniformly from ``mix``, the rest from ``main``.

    Why a share per batch and not one window over both: the self-play window slides, the anchor
    does not, and a fixed share keeps their weight the same in every generation.

    ``value_only`` drops the anchor rows' policy targets (``has_policy`` false), so they teach
    the value (and moves-left) heads only: Stockfish's MultiPV softmax is flatter than a
    search's visits and pulls a self-play policy back toward it (selfplay-runs.md section 24),
    while its value is what self-play's own Q drifts away from."""

    def __init__(self, main: ReplayWindow, mix: ReplayWindow, share: float,
                 value_only: bool = False) -> None:
        if not 0.0 < share < 1.0:
            raise ValueError(f"the mixed share must lie strictly between 0 and 1, not {share}")
        self.main, self.mix, self.share = main, mix, float(share)
        self.value_only = value_only

    def __len__(self) -> int:
        return len(self.main)

    @property
    def num_positions(self) -> int:
        return self.main.num_positions

    def refresh(self) -> int:
        """Re-reads both; returns the self-play window's size (an empty anchor is an error)."""
        if self.mix.refresh() == 0:
            raise ValueError(f"no records to mix in under {[str(d) for d in self.mix.dirs]}")
        return self.main.refresh()

    def sample(self, batch_size: int, rng: np.random.Generator) -> Batch:
        """``round(share * batch_size)`` rows of the anchor after the rest from the window."""
        k = int(round(self.share * batch_size))
        anchor = self.mix.sample(k, rng)
        if self.value_only:
            anchor.has_policy = np.zeros_like(anchor.has_policy)
        return concat_batches([self.main.sample(batch_size - k, rng), anchor])

    def stats(self) -> dict[str, Any]:
        mixed = {"share": self.share, "positions": len(self.mix), "files": len(self.mix.files)}
        targets = {"targets": "value"} if self.value_only else {}
        return {**self.main.stats(), "mixed": {**mixed, **targets}}


MIX_TARGETS = ("both", "value")
"""What the mixed-in rows teach: both heads, or the value (and moves-left) heads alone."""


def training_window(dirs: Sequence[str | os.PathLike[str]], window: int, dedup: bool = False,
                    mix_data: Sequence[str | os.PathLike[str]] = (),
                    mix_share: float = 0.0,
                    mix_targets: str = "both") -> ReplayWindow | MixedWindow:
    """The window ``train`` and ``loop`` sample from: the replay window of ``dirs``, with
    ``mix_share`` of every batch from ``mix_data`` when the share is above 0 (the anchor read
    whole: its size is what the user chose to mix in); ``mix_targets`` "value" keeps only the
    anchor's value targets."""
    main = ReplayWindow(dirs, window, dedup)
    if mix_share <= 0:
        return main
    return MixedWindow(main, ReplayWindow(mix_data, 1 << 40), mix_share, _value_only(mix_targets))


def _value_only(mix_targets: str) -> bool:
    if mix_targets not in MIX_TARGETS:
        raise ValueError(f"mixed targets are one of {', '.join(MIX_TARGETS)}, not {mix_targets!r}")
    return mix_targets == "value"


def mix_metadata(mix_data: Sequence[str | os.PathLike[str]], mix_share: float,
                 mix_targets: str = "both") -> dict[str, Any]:
    """What an exported net's metadata says of the mixed-in records (nothing without them)."""
    if mix_share <= 0:
        return {}
    targets = {"targets": "value"} if _value_only(mix_targets) else {}
    return {"mixed": {"share": mix_share, "data": [str(d) for d in mix_data], **targets}}
