"""Self-play throughput: one process against 1 and 2 Ray actors on this machine.

    python benchmarks/dist_speed.py [--net NET.onnx] [--seconds 60] [--actors 1 2]

Each setting plays the loop's self-play (trainer.play.selfplay.SelfPlayConfig defaults: 32 games at
once, full/fast searches of 160/32 visits) for ``--seconds`` with the same net:

- ``local tN``: one :class:`SelfPlayWorker` in this process, onnxruntime on N threads, writing its
  records to a temporary directory (the single-machine loop, whose default is 2 threads);
- ``ray xN``: N self-play actors of trainer/dist (one CPU, one onnxruntime thread each) on a local
  Ray instance of as many CPUs as this machine has, every finished game sent to a real learner
  actor that writes it (the distributed loop's path, net bytes through the object store).

Printed per setting: searched positions/s (every move searched, unfinished games included: the
throughput), the same per CPU-second of the self-play processes and the cores they got (on a
machine shared with other work the wall-clock rates follow the share of the CPUs a setting got;
per CPU-second they do not), and positions/s of finished games (what reaches the records; with
32 games at once few finish in a minute). With ``ray`` the rate is per actor as well. The
machine's load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from engine.evaluator import OnnxEvaluator, default_net_path
from trainer.play.selfplay import SelfPlayConfig, SelfPlayWorker


def local(net: Path, threads: int, seconds: float) -> dict[str, Any]:
    ev = OnnxEvaluator(str(net), threads=threads)
    with tempfile.TemporaryDirectory() as tmp:
        deadline = time.monotonic() + seconds
        cpu = time.process_time()
        stats = SelfPlayWorker(ev, SelfPlayConfig(), tmp, net_name=net.name).run(
            10**6, should_stop=lambda: time.monotonic() > deadline)
        cpu = time.process_time() - cpu
    return {"setting": f"local t{threads}", "searched_positions_per_s":
            round(stats.moves / stats.seconds, 1),
            "searched_positions_per_cpu_s": round(stats.moves / cpu, 1),
            "cores_used": round(cpu / stats.seconds, 2), "finished_games": stats.games,
            "finished_positions_per_s": round(stats.positions / stats.seconds, 1)}


def distributed(net: Path, actors: int, seconds: float) -> dict[str, Any]:
    import ray

    from trainer.dist.learner import Learner
    from trainer.dist.remote import RaySelfPlayActor
    from trainer.loop import LoopConfig

    with tempfile.TemporaryDirectory() as tmp:
        ray.init(address="local", num_cpus=os.cpu_count(), include_dashboard=False,
                 log_to_driver=False)
        try:
            cfg = LoopConfig(run_dir=tmp, init="tiny", games=10**6)
            learner: Any = ray.remote(Learner).options(num_cpus=0, max_concurrency=4,
                                                  name="bench-learner").remote(cfg)
            ray.get(learner.start.remote())
            pool: list[Any] = [ray.remote(RaySelfPlayActor).options(num_cpus=1).remote(
                i + 1, "bench-learner", 1, "cpu") for i in range(actors)]
            ray.get([a.pid.remote() for a in pool])  # all up before the clock starts
            blob = ray.put((net.read_bytes(), net.name))
            calls = [a.play.remote(1, blob, 10**6) for a in pool]
            timer = threading.Timer(seconds, lambda: ray.get(learner.request_stop.remote()))
            timer.start()
            parts: list[dict[str, Any]] = ray.get(calls)
            written = ray.get(learner.progress_figures.remote(1))
        finally:
            ray.shutdown()
    per_actor = {p["worker"]: round(p["moves"] / p["seconds"], 1) for p in parts}
    span = max(p["seconds"] for p in parts)
    cpu = sum(p["cpu_seconds"] for p in parts)
    return {"setting": f"ray x{actors}",
            "searched_positions_per_s": round(sum(per_actor.values()), 1),
            "searched_positions_per_cpu_s": round(sum(p["moves"] for p in parts) / cpu, 1),
            "cores_used": round(cpu / span, 2),
            "searched_positions_per_s_per_actor": per_actor,
            "finished_games": written["games"],
            "finished_positions_per_s": round(sum(written["positions"].values()) / span, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", default=str(default_net_path()))
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--local-threads", type=int, nargs="*", default=[1, 2])
    ap.add_argument("--actors", type=int, nargs="*", default=[1, 2])
    args = ap.parse_args()
    net = Path(args.net)
    rows = [local(net, t, args.seconds) for t in args.local_threads]
    rows += [distributed(net, n, args.seconds) for n in args.actors]
    print(f"net {net.name}, {args.seconds:.0f} s per setting, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    for r in rows:
        print(f"{r['setting']:>9}: {r['searched_positions_per_s']:6.1f} searched positions/s "
              f"({r['searched_positions_per_cpu_s']:5.1f} per CPU-second, "
              f"{r['cores_used']:.2f} cores used), "
              f"{r['finished_positions_per_s']:5.1f}/s in {r['finished_games']} finished games"
              + (f"  per actor {r['searched_positions_per_s_per_actor']}"
                 if "searched_positions_per_s_per_actor" in r else ""))
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
