"""The distributed loop (trainer/dist): its roles as plain classes, then on a real local Ray
instance (``ray.init(num_cpus=2)``): a tiny loop end to end with one self-play actor SIGKILLed
mid-game, whose net the engine then plays; then the same run resumed on a new Ray instance,
where an actor that joins mid-run contributes games. The Ray tests skip where Ray is not
installed."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import chess
import chess.engine
import pytest

from trainer.data import records
from trainer.cli_rl import add_subcommands, loop_config
from trainer.loop import LoopConfig

REPO = Path(__file__).resolve().parents[1]

TINY = ["--init", "tiny", "--parallel", "2", "--minibatch", "4", "--full-visits", "32",
        "--fast-visits", "8", "--max-plies", "60", "--steps", "4", "--batch-size", "32",
        "--warmup", "2", "--threads", "1", "--train-threads", "1", "--eval-nodes", "8"]


def config(run: Path, *extra: str) -> LoopConfig:
    """A tiny loop's config, parsed by the ``loop`` command line itself."""
    parser = argparse.ArgumentParser()
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    return loop_config(parser.parse_args(["loop", "--dir", str(run), *TINY, *extra]))


def by_worker(run: Path, generation: int) -> dict[int, list[int]]:
    """Game numbers on disk per worker in ``generation``."""
    out: dict[int, list[int]] = {}
    for p in records.list_records(run / "games", generation=generation):
        key = records.parse_name(p.name)
        assert key is not None
        out.setdefault(key[1], []).append(key[2])
    return {w: sorted(n) for w, n in out.items()}


def watch(until: Any, act: Any, timeout: float = 600.0) -> threading.Thread:
    """Runs ``act()`` in a thread as soon as ``until()`` is true."""
    def body() -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if until():
                act()
                return
            time.sleep(0.02)

    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t


def test_ray_flags() -> None:
    parser = argparse.ArgumentParser()
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    base = ["loop", "--dir", "run"]
    assert parser.parse_args(base).ray is None  # the single-machine loop
    assert parser.parse_args([*base, "--ray"]).ray == "auto"
    a = parser.parse_args([*base, "--ray", "head:6379", "--actors", "3", "--actor-gpus", "0.5"])
    assert (a.ray, a.actors, a.actor_gpus) == ("head:6379", 3, 0.5)


def test_learner_writes_each_game_once_and_only_while_wanted(tmp_path: Path) -> None:
    """The roles without Ray: an actor plays into the learner, which dedupes and keeps quota."""
    from trainer.dist.learner import Learner
    from trainer.dist.selfplay_actor import SelfPlayActor

    learner = Learner(config(tmp_path / "run", "--games", "2", "--openings", "none"))
    assert learner.start() == {"generation": 1, "phase": "selfplay", "finished": False}
    actor = SelfPlayActor(3, learner.cfg.selfplay, learner, threads=1)
    summary = actor.play(1, learner.best_net(), quota=5)
    assert summary["worker"] == 3 and summary["games"] >= 2
    assert by_worker(learner.run, 1) == {3: [0, 1]}  # the quota, not the 5 asked for
    assert not learner.wants(1) and learner.phase_selfplay(1)
    first = learner.games_dir / records.record_name(1, 3, 0)
    rec, stamp = records.Record.load(first), first.stat().st_mtime_ns
    learner.cfg.games = 3  # room for one more game: a resent game still is not written again
    learner.put(first.name, rec, "resent")
    assert first.stat().st_mtime_ns == stamp and by_worker(learner.run, 1) == {3: [0, 1]}
    assert learner.next_counter(1, 3) == 2 and learner.next_counter(1, 4) == 0
    with pytest.raises(ValueError):
        learner.put("game.npz", rec, "")
    with pytest.raises(ValueError):  # the name says game 7, the record game 0
        learner.put(records.record_name(1, 3, 7), rec, "")


@pytest.fixture(scope="module")
def ray_module() -> Any:
    return pytest.importorskip("ray")


@pytest.fixture(scope="module")
def killed_actor_run(ray_module: Any, tmp_path_factory: pytest.TempPathFactory
                     ) -> Iterator[dict[str, Any]]:
    """Generation 1 with two actors; the first actor to send a game is then SIGKILLed (its
    other games are in progress)."""
    from trainer.dist.driver import DistConfig, Driver

    ray = ray_module
    run = tmp_path_factory.mktemp("dist") / "run"
    driver = Driver(config(run, "--generations", "1", "--games", "10", "--eval-games", "2"),
                    DistConfig(actors=2, poll=0.2))
    seen: dict[str, Any] = {}

    def sender() -> int | None:
        """An actor that is up and has sent a game."""
        pids = dict(driver.pool.pids) if driver.pool is not None else {}
        return next((w for w in by_worker(run, 1) if w in pids), None)

    def kill() -> None:
        assert driver.pool is not None
        seen["worker"] = sender()
        seen["before"] = by_worker(run, 1)
        os.kill(driver.pool.pids[seen["worker"]], signal.SIGKILL)

    ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        watcher = watch(lambda: sender() is not None, kill)
        seen["rc"] = driver.run(signals=False)
        watcher.join(1)
        assert driver.pool is not None
        seen["deaths"] = driver.pool.deaths
    finally:
        ray.shutdown()  # the cluster goes; the run stays on disk
    seen["run"] = run
    yield seen


def test_killed_actor_loses_no_finished_game_and_writes_none_twice(
        killed_actor_run: dict[str, Any]) -> None:
    seen = killed_actor_run
    run = seen["run"]
    assert seen["rc"] == 0 and "worker" in seen, "no actor sent a game before the run ended"
    assert seen["deaths"] == 1  # the driver saw the death; Ray restarted the actor
    games = by_worker(run, 1)
    assert sum(len(n) for n in games.values()) == 10  # exactly the quota
    for worker, numbers in games.items():
        # numbered without a gap or a repeat: the restarted actor went on after its last
        # finished game; every game sent before the kill is still there
        assert numbers == list(range(len(numbers))), (worker, numbers)
        assert set(seen["before"].get(worker, [])) <= set(numbers)
    for p in records.list_records(run / "games", generation=1):
        meta = records.Record.load(p).meta
        assert records.record_name(1, meta["worker"], meta["game"]) == p.name
        assert p.with_suffix(".pgn").exists()
    assert not [p for p in (run / "games").iterdir() if p.name.startswith(".")]


def test_distributed_loop_exports_a_net_the_engine_plays(killed_actor_run: dict[str, Any]
                                                         ) -> None:
    run = killed_actor_run["run"]
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == 2 and state["phase"] == "selfplay" and state["step"] == 4
    hist = json.loads((run / "history" / "gen-0001.json").read_text())
    assert hist["export"]["engine_loads"] and hist["train"]["step"] == 4
    assert hist["evaluate"]["previous"]["games"] == 2
    assert {p["worker"] for p in hist["selfplay_parts"]} <= {1, 2}
    assert list((run / "tb").iterdir())  # positions/s per actor, learner steps/s
    engine = chess.engine.SimpleEngine.popen_uci([sys.executable, str(REPO / "uci_main.py")],
                                                 cwd=str(REPO))
    try:
        engine.configure({"WeightsFile": str(run / "nets" / "gen-0001.onnx")})
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(nodes=16))
        assert result.move is not None and board.is_legal(result.move)
    finally:
        engine.quit()


def test_run_resumes_on_a_new_cluster_and_a_joining_actor_plays(
        killed_actor_run: dict[str, Any], ray_module: Any) -> None:
    """The first cluster is gone; a new one resumes the run at generation 2 with the net the
    first one made. Another job holds one of its two CPUs at first, so the run starts with one
    actor; when that CPU frees mid-run (the first actor up), a second actor joins. Once it has
    sent a game the run is stopped (as by Ctrl-C): a clean stop, resumable."""
    from ray.util.placement_group import placement_group, remove_placement_group

    from trainer.dist.driver import DistConfig, Driver

    ray = ray_module
    run = killed_actor_run["run"]
    before = {p.name: p.stat().st_mtime_ns for p in (run / "games").iterdir()}
    driver = Driver(config(run, "--generations", "2", "--games", "500"),
                    DistConfig(actors=2, poll=0.2))
    joined: dict[str, Any] = {}

    def first_actor_up() -> bool:
        return driver.pool is not None and 1 in driver.pool.pids

    def free_cpu() -> None:
        assert driver.pool is not None
        joined["actors"] = len(driver.pool.actors)
        remove_placement_group(hold)

    def stop() -> None:
        driver.stop.requested = True

    ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        hold = placement_group([{"CPU": 1}])
        ray.get(hold.ready())
        watchers = [watch(first_actor_up, free_cpu),
                    watch(lambda: 2 in by_worker(run, 2), stop)]
        rc = driver.run(signals=False)
        for w in watchers:
            w.join(1)
    finally:
        ray.shutdown()
    assert rc == 130 and joined["actors"] == 1  # one actor while the other CPU was taken
    games = by_worker(run, 2)
    assert games[2] and all(n == list(range(len(n))) for n in games.values())
    assert {records.Record.load(p).meta["net"] for p in records.list_records(
        run / "games", generation=2)} == {"gen-0001.onnx"}
    assert all((run / "games" / name).stat().st_mtime_ns == t for name, t in before.items())
    state = json.loads((run / "state.json").read_text())
    assert state["generation"] == 2 and state["phase"] == "selfplay" and state["step"] == 4
