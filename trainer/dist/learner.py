"""The learner: the one writer of a distributed run's directory.

It is the single-machine :class:`trainer.loop.Loop` (same directory layout, state file, phases,
resuming) whose self-play happens elsewhere: actors ask for their next game number
(:meth:`Learner.next_counter`) and whether the generation still wants games
(:meth:`Learner.wants`), and send each finished game (:meth:`Learner.put`). A game is known by its
record name ``g<gen>-w<worker>-<n>`` (generation, actor id, the actor's game counter); one that
is already on disk is a resent game and is not written again, and none is written past the
generation's quota, so a generation holds exactly ``games`` games as in the local loop.

Thread use: under Ray the learner is a threaded actor, so that games, progress queries and a stop
request are answered while a long phase (training, evaluation) runs in another thread; the lock
guards the game counts and the writes.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from trainer.loop import Loop, LoopConfig
from trainer.data.records import Record, RecordDir, list_records, parse_name
from trainer.play.selfplay import SelfPlayConfig
from trainer.learn.train import Trainer


class Learner(Loop):
    """The loop's state, training, export and evaluation; games arrive from the actors."""

    def __init__(self, cfg: LoopConfig) -> None:
        super().__init__(cfg)
        self.progress = False  # the driver shows the bars
        self._lock = threading.Lock()
        self._sink = RecordDir(self.games_dir)
        self._games: dict[int, int] = {}
        """finished games on disk per generation (counted once, then kept up to date)."""
        self._positions: dict[int, dict[int, int]] = {}
        """positions received this run per generation and worker (progress figures)."""
        self._trainer: Trainer | None = None

    # ----------------------------------------------------------- driver side

    def start(self) -> dict[str, Any]:
        """Creates or reopens the run (generation 0's net, the state file); its position."""
        self.initialise()
        return self.position()

    def position(self) -> dict[str, Any]:
        """Where the run stands: generation, phase, whether the planned generations are done."""
        return {"generation": self.state["generation"], "phase": self.state["phase"],
                "finished": self.finished()}

    def best_net(self) -> tuple[bytes, str]:
        """The net self-play uses now, as ONNX bytes and its file name (``gen-<g>.onnx``)."""
        path = self.run / self.state["best"]
        return path.read_bytes(), path.name

    def selfplay_config(self) -> SelfPlayConfig:
        """The self-play settings every actor plays with."""
        return self.cfg.selfplay

    def openings(self) -> bytes | None:
        """The self-play opening book's bytes (for actors on machines that lack the file)."""
        book = self.cfg.selfplay.openings
        return Path(book).read_bytes() if book and Path(book).is_file() else None

    def request_stop(self) -> None:
        """Stops the running phase at its next step (training saves a checkpoint) and refuses
        further games."""
        self.stop.requested = True

    def progress_figures(self, gen: int) -> dict[str, Any]:
        """Games of ``gen`` on disk, positions received per worker, the training step and the
        step the generation trains to."""
        with self._lock:
            games = self._count(gen)
            positions = dict(self._positions.get(gen, {}))
        t = self._trainer
        return {"games": games, "positions": positions, "target": self.train_target(gen),
                "step": t.step if t is not None else int(self.state.get("step", 0))}

    def trainer(self) -> Trainer:
        self._trainer = super().trainer()
        return self._trainer

    def phase_selfplay(self, gen: int) -> bool:
        """Self-play is the actors' work: the phase is complete once their games are in."""
        with self._lock:
            return self._count(gen) >= self.cfg.games

    # ------------------------------------------------------------ actor side

    def next_counter(self, generation: int, worker: int) -> int:
        """The worker's next game number in ``generation``: one past its last game on disk (a
        restarted actor neither reuses a number nor skips one)."""
        with self._lock:
            return self._sink.next_counter(generation, worker)

    def wants(self, generation: int) -> bool:
        """Whether games of ``generation`` are still wanted (its self-play phase is running,
        its quota is not met, no stop was asked)."""
        with self._lock:
            return self._wants(generation)

    def put(self, name: str, record: Record, pgn: str) -> None:
        """Writes one finished game (record, then PGN beside it, each atomically), unless it is
        already on disk (a resent game) or no longer wanted (quota met, phase over)."""
        key = parse_name(name)
        if key is None:
            raise ValueError(f"{name!r} is not a self-play record name (g<gen>-w<worker>-<n>.npz)")
        gen, worker, counter = key
        if record.meta.get("game") != counter or record.meta.get("worker") != worker:
            raise ValueError(f"record {name} carries game {record.meta.get('game')} of worker "
                             f"{record.meta.get('worker')}: the name and the record disagree")
        with self._lock:
            if (self.games_dir / name).exists() or not self._wants(gen):
                return
            self._sink.put(name, record, pgn)
            self._games[gen] = self._count(gen) + 1
            per_worker = self._positions.setdefault(gen, {})
            per_worker[worker] = per_worker.get(worker, 0) + len(record)

    # -------------------------------------------------------------- helpers

    def _count(self, gen: int) -> int:
        if gen not in self._games:
            self._games[gen] = len(list_records(self.games_dir, generation=gen))
        return self._games[gen]

    def _wants(self, gen: int) -> bool:
        return (not self.stop() and self.state.get("phase") == "selfplay"
                and self.state.get("generation") == gen and self._count(gen) < self.cfg.games)

