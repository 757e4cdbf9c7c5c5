"""The driver of a distributed run: ``python -m trainer loop --ray [auto|local|HOST:PORT] ...``.

It connects to Ray, starts the learner on its own node (the run directory is there; a GPU for
it when training on CUDA) and self-play actors wherever the cluster has room, then walks the
learner through the loop's phases: during self-play it keeps every actor playing the current
generation with the best net (ONNX bytes put once in Ray's object store) until the learner holds
the generation's games; training, export and evaluation run in the learner.

Elastic: before each look at the learner (every ``poll`` seconds) the driver starts actors for
the CPUs (and GPU shares) the cluster has free, up to ``actors``, so a node that joins gets
actors at once; an actor that dies (its process or its node) is restarted by Ray
(``max_restarts=-1``) and, once up, plays on from its next game number; its unfinished games are
lost, its finished ones are already on the learner's disk. The run itself resumes from the
learner's state, checkpoints and records, as the local loop does, after the whole cluster died.

Only this module and trainer/dist/remote.py import Ray; the roles it places
(trainer/dist/learner.py, trainer/dist/selfplay_actor.py) are plain classes.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import ray
from ray.exceptions import RayActorError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from trainer.dist.learner import Learner
from trainer.dist.remote import RaySelfPlayActor
from trainer.loop import LoopConfig, StopFlag

REPO = Path(__file__).resolve().parents[2]


@dataclass
class DistConfig:
    """Where the run's actors go; everything else is the loop's :class:`LoopConfig`."""

    address: str = "auto"
    """Ray cluster: "auto" (the one ``ray start`` made on this machine), "local" (a new
    one-machine instance) or HOST:PORT of the head."""
    actors: int = 0
    """most self-play actors at once (0: as many as the cluster's free CPUs hold)."""
    actor_gpus: float = 0.0
    """GPU share per actor (above 0: onnxruntime on CUDA, e.g. 0.25 for four per GPU)."""
    poll: float = 0.5
    """seconds between the driver's looks at the cluster and the learner."""


class ActorPool:
    """The self-play actors by id (``first``, ``first + 1``...). An actor is *up* once it has
    answered a ``pid`` call; until then (starting, or being restarted by Ray after a crash) the
    resources it asked for count as taken, so that no new actor is started in its place."""

    def __init__(self, make: Callable[[int], Any], most: int, cpus: float, gpus: float,
                 first: int) -> None:
        self.make = make
        self.most = most
        self.cpus = cpus
        self.gpus = gpus
        self.next_id = first
        self.actors: dict[int, Any] = {}
        self.pids: dict[int, int] = {}
        """process id of each actor that is up (the newest incarnation's)."""
        self.deaths = 0
        self._waiting: dict[int, Any] = {}
        """pid calls of actors not yet up."""

    def grow(self) -> list[int]:
        """Starts actors for the room the cluster has (at least one actor in all); their ids.
        Call :meth:`refresh` first, so that actors that came up no longer count as starting."""
        free = ray.available_resources()
        cpu_room = free.get("CPU", 0.0) - self.cpus * len(self._waiting)
        gpu_room = free.get("GPU", 0.0) - self.gpus * len(self._waiting)
        started = []
        while not self.actors or (
                (self.most == 0 or len(self.actors) < self.most) and cpu_room >= self.cpus
                and (self.gpus == 0 or gpu_room >= self.gpus)):
            wid = self.next_id
            self.next_id += 1
            self.actors[wid] = self.make(wid)
            self._waiting[wid] = self.actors[wid].pid.remote()
            cpu_room -= self.cpus
            gpu_room -= self.gpus
            started.append(wid)
        return started

    def refresh(self) -> list[int]:
        """Notes the actors that came up (or failed again while starting); their ids."""
        if not self._waiting:
            return []
        ready, _ = ray.wait(list(self._waiting.values()), num_returns=len(self._waiting),
                            timeout=0)
        up = []
        for wid, ref in list(self._waiting.items()):
            if ref not in ready:
                continue
            try:
                self.pids[wid] = int(ray.get(ref))
                del self._waiting[wid]
                up.append(wid)
            except RayActorError:
                self._waiting[wid] = self.actors[wid].pid.remote()
        return up

    def is_up(self, wid: int) -> bool:
        return wid not in self._waiting

    def lost(self, wid: int) -> None:
        """Actor ``wid`` died; Ray restarts it, and it counts as starting until it answers."""
        if wid in self._waiting:
            return
        self.deaths += 1
        self.pids.pop(wid, None)
        self._waiting[wid] = self.actors[wid].pid.remote()

    def close(self) -> None:
        for actor in self.actors.values():
            ray.kill(actor, no_restart=True)
        self.actors.clear()
        self._waiting.clear()


class Driver:
    """Runs the loop of ``cfg`` on the Ray cluster of ``dist`` (see the module docstring)."""

    def __init__(self, cfg: LoopConfig, dist: DistConfig) -> None:
        self.cfg = replace(cfg, run_dir=str(Path(cfg.run_dir).resolve()))
        self.dist = dist
        self.stop = StopFlag()
        self.learner: Any = None
        self.pool: ActorPool | None = None
        self._started_ray = False
        self._calls: dict[Any, int] = {}
        """play calls in flight: their result ref -> actor id."""
        self._parts: dict[int, list[dict[str, Any]]] = {}
        """self-play summaries returned and not yet recorded, by generation."""

    # ------------------------------------------------------------------ run

    def run(self, signals: bool = True) -> int:
        """Runs until the planned generations are done (0) or a stop (130); ``signals``: take
        over Ctrl-C and SIGTERM (main thread only)."""
        if signals:
            self.stop.install()
        try:
            self._connect()
            self._start()
            return self._loop()
        except RayActorError as exc:  # self-play actors' deaths are handled: this is the learner
            print(f"the learner died ({exc.__class__.__name__}); its last checkpoint, records "
                  f"and state are in {self.cfg.run_dir}: run the same command to resume")
            return 1
        finally:
            self.close()
            self.stop.restore()

    def _connect(self) -> None:
        if ray.is_initialized():  # a caller (a test, a notebook) connected already
            return
        # From a checkout, workers on this machine import the trainer from it; elsewhere
        # zerosum must be installed (the path then names nothing there).
        env = {"PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                             if p)}
        try:
            ray.init(address=self.dist.address, runtime_env={"env_vars": env})
        except ConnectionError as exc:
            raise SystemExit(f"{exc}\nno Ray cluster at --ray {self.dist.address}: start one with "
                             "`ray start --head`, or use --ray local") from exc
        self._started_ray = True

    def _start(self) -> None:
        here = ray.get_runtime_context().get_node_id()
        learner_gpus = 1 if self.cfg.train.device.startswith("cuda") else 0
        # The learner holds no CPU: self-play and training alternate, so the actors may use
        # every core while it waits. It stays on this node, where the run directory is.
        name = f"zerosum-learner-{uuid.uuid4().hex[:12]}"
        self.learner = ray.remote(Learner).options(
            num_cpus=0, num_gpus=learner_gpus, max_concurrency=8, name=name,
            scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False),
        ).remote(self.cfg)
        threads = self.cfg.threads
        provider = "cuda" if self.dist.actor_gpus > 0 else "cpu"
        remote_actor = ray.remote(RaySelfPlayActor).options(
            num_cpus=threads, num_gpus=self.dist.actor_gpus, max_restarts=-1, max_task_retries=0)

        def make(wid: int) -> Any:
            return remote_actor.remote(wid, name, threads, provider)

        # Actor ids follow the local loop's worker id, so both may feed one run's games.
        self.pool = ActorPool(make, self.dist.actors, threads, self.dist.actor_gpus,
                              first=self.cfg.worker + 1)
        pos = ray.get(self.learner.start.remote())
        print(f"run {self.cfg.run_dir}: generation {pos['generation']} ({pos['phase']}); "
              f"cluster {ray.cluster_resources().get('CPU', 0):.0f} CPUs, "
              f"{ray.cluster_resources().get('GPU', 0):.0f} GPUs", flush=True)

    def _loop(self) -> int:
        while not self.stop():
            pos = ray.get(self.learner.position.remote())
            if pos["finished"]:
                print(f"done: {self.cfg.generations} generations in {self.cfg.run_dir}")
                return 0
            gen, phase = pos["generation"], pos["phase"]
            if phase == "selfplay":
                self._selfplay(gen)
            if not self._phase(gen, phase):
                break
        ray.get(self.learner.request_stop.remote())
        return int(ray.get(self.learner.stopped.remote()))

    def close(self) -> None:
        """Ends the actors and the learner (their work is on disk), and Ray if it was ours."""
        if self.pool is not None:
            self.pool.close()
        if self.learner is not None:
            ray.kill(self.learner, no_restart=True)
            self.learner = None
        self._calls.clear()
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False

    # --------------------------------------------------------------- phases

    def _selfplay(self, gen: int) -> None:
        """Keeps every actor playing ``gen`` until the learner has the generation's games."""
        from tqdm import tqdm

        assert self.pool is not None
        net = self.learner.best_net.remote()  # fetched by the actors, never by the driver
        quota = self.cfg.games
        t0 = time.monotonic()
        bar = tqdm(total=quota, desc=f"selfplay g{gen}", unit="game", dynamic_ncols=True,
                   mininterval=1.0)
        try:
            while True:
                fig = ray.get(self.learner.progress_figures.remote(gen))
                elapsed = max(1e-9, time.monotonic() - t0)
                rates = {w: n / elapsed for w, n in sorted(fig["positions"].items())}
                bar.set_postfix(actors=len(self.pool.pids), pos_s=f"{sum(rates.values()):.0f}",
                                per_actor=" ".join(f"w{w}:{r:.0f}" for w, r in rates.items()),
                                refresh=False)
                bar.update(fig["games"] - bar.n)
                if fig["games"] >= quota:
                    break
                if self.stop():
                    ray.get(self.learner.request_stop.remote())
                    break
                for wid in self.pool.refresh():
                    bar.write(f"self-play actor {wid} up (pid {self.pool.pids[wid]}) "
                              f"at {time.monotonic() - t0:.1f}s")
                for wid in self.pool.grow():
                    bar.write(f"self-play actor {wid} starting at {time.monotonic() - t0:.1f}s")
                busy = set(self._calls.values())
                for wid, actor in self.pool.actors.items():
                    # a call to an actor Ray is still (re)starting would fail at once
                    if wid not in busy and self.pool.is_up(wid):
                        self._calls[actor.play.remote(gen, net, quota)] = wid
                self._collect(self.dist.poll)
            # the actors see within a moment that no more games are wanted and return
            self._collect(30.0, only_up=True)
        finally:
            bar.close()
        for g, parts in sorted(self._parts.items()):
            ray.get(self.learner.record_selfplay.remote(g, parts))
        self._parts.clear()

    def _collect(self, timeout: float, only_up: bool = False) -> None:
        """Takes the results of finished play calls (waiting up to ``timeout`` for all of them,
        or all of the actors that are up); a call whose actor died leaves that actor to Ray."""
        assert self.pool is not None
        refs = [r for r, w in self._calls.items() if not only_up or self.pool.is_up(w)]
        if not refs:
            return
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        for ref in ready:
            wid = self._calls.pop(ref)
            try:
                part = ray.get(ref)
                self._parts.setdefault(part["generation"], []).append(part)
            except RayActorError:
                print(f"self-play actor {wid} died; Ray restarts it (its unfinished games are "
                      f"lost, its finished ones are written)", flush=True)
                self.pool.lost(wid)

    def _phase(self, gen: int, phase: str) -> bool:
        """Runs the learner's current phase, with a bar for training; passes a stop on."""
        from tqdm import tqdm

        ref = self.learner.run_phase.remote()
        bar = None
        if phase == "train":
            figures = ray.get(self.learner.progress_figures.remote(gen))
            bar = tqdm(total=figures["target"], initial=figures["step"], desc=f"train g{gen}",
                       unit="step", dynamic_ncols=True, mininterval=1.0)
        asked = False
        try:
            while True:
                done = ray.wait([ref], timeout=self.dist.poll)[0]
                if self.stop() and not asked:
                    self.learner.request_stop.remote()
                    asked = True
                if bar is not None:
                    bar.update(ray.get(self.learner.progress_figures.remote(gen))["step"] - bar.n)
                if done:
                    break
        finally:
            if bar is not None:
                bar.close()
        return bool(ray.get(ref))


def run(cfg: LoopConfig, dist: DistConfig) -> int:
    """``loop --ray``: the distributed loop; its exit code."""
    return Driver(cfg, dist).run()
