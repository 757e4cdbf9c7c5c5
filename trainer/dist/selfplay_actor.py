"""A self-play actor: the local :class:`trainer.play.selfplay.SelfPlayWorker`, fed the net as bytes,
sending every finished game to the learner the moment it ends.

Why each game is sent at once and the send is waited for: a finished game then lives in the
learner's directory before the actor plays on, so an actor killed at any moment loses only its
unfinished games; its restarted self asks the learner for its next game number and goes on
without reusing or skipping one.

The learner is anything with the :class:`LearnerPort` methods: the plain
:class:`trainer.dist.learner.Learner` (one process), or, under Ray, a handle whose calls block
until the learner answered (trainer/dist/driver.py).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from trainer.data.records import Record
from trainer.play.selfplay import SelfPlayConfig, SelfPlayWorker


class LearnerPort(Protocol):
    """What a self-play actor needs of the learner."""

    def next_counter(self, generation: int, worker: int) -> int: ...

    def wants(self, generation: int) -> bool: ...

    def put(self, name: str, record: Record, pgn: str) -> None: ...

    def openings(self) -> bytes | None: ...


class SelfPlayActor:
    """Plays games of a generation with the net it is given until the learner has enough.

    worker: this actor's id in record names (unique in the run).
    threads: onnxruntime threads; provider: "cpu" or "cuda".
    check_every: seconds between asking the learner whether games are still wanted.
    """

    def __init__(self, worker: int, cfg: SelfPlayConfig, learner: LearnerPort,
                 threads: int = 1, provider: str = "cpu", check_every: float = 0.5) -> None:
        self.worker = worker
        self.cfg = cfg
        self.learner = learner
        self.threads = threads
        self.provider = provider
        self.check_every = check_every
        self._tmp = tempfile.TemporaryDirectory(prefix=f"zerosum-actor{worker}-")
        self._net: tuple[str, Any] | None = None
        self._book_checked = False

    def _check_book(self) -> None:
        """On a node without the opening book (another machine), a copy of the learner's."""
        if self._book_checked:
            return
        self._book_checked = True
        if self.cfg.openings and not Path(self.cfg.openings).is_file():
            data = self.learner.openings()
            if data is not None:
                book = Path(self._tmp.name) / "openings.pgn"
                book.write_bytes(data)
                self.cfg = replace(self.cfg, openings=str(book))

    def pid(self) -> int:
        """This process's id (the driver learns from it that the actor is up)."""
        return os.getpid()

    def _evaluator(self, onnx: bytes, name: str) -> Any:
        """The evaluator for this net, made once per net (a new net each generation)."""
        from engine.evaluator import OnnxEvaluator

        digest = hashlib.sha1(onnx).hexdigest()
        if self._net is None or self._net[0] != digest:
            path = Path(self._tmp.name) / f"{digest[:12]}-{name}"
            path.write_bytes(onnx)
            self._net = (digest, OnnxEvaluator(str(path), threads=self.threads,
                                               provider=self.provider))
        return self._net[1]

    def play(self, generation: int, net: tuple[bytes, str], quota: int) -> dict[str, Any]:
        """Plays games of ``generation`` (at most ``quota``) until the learner wants no more;
        unfinished games are dropped then. Returns the run's summary with this actor's id."""
        self._check_book()
        onnx, name = net
        ev = self._evaluator(onnx, name)
        worker = SelfPlayWorker(ev, self.cfg, self.learner, generation, self.worker, name)
        wanted = [True, 0.0]  # last answer, when asked

        def should_stop() -> bool:
            now = time.monotonic()
            if now - float(wanted[1]) >= self.check_every:
                wanted[:] = [self.learner.wants(generation), now]
            return not wanted[0]

        cpu = time.process_time()
        stats = worker.run(quota, should_stop=should_stop)
        # CPU time beside wall time: on a shared machine it tells how much of a core it had
        return {"worker": self.worker, "generation": generation,
                "cpu_seconds": time.process_time() - cpu, **stats.summary()}
