"""Self-play throughput against the network-bound limit.

    python benchmarks/selfplay_speed.py [--net NET.onnx] [--visits 100] [--seconds 60] [--root gumbel]
        [--backend cpu|cuda|torch-cpu|torch-cuda|uniform] [--precision fp32|fp16|bf16]

Plays self-play (every move a search of ``--visits`` visits, Dirichlet noise, a fresh tree: the
AlphaZero setting) for ``--seconds`` with ``--parallel`` games at once, then measures the bare
net's evaluations/s with the same backend at the mean batch size self-play actually sent. The
network-bound rate is that figure divided by the visits per move: what self-play would reach if
the search cost nothing and no visit were saved by the cache. The share printed is measured
positions/s over that bound (above 100% is possible: NN-cache hits and terminal nodes are
visits without an evaluation). ``--backend uniform`` (a net that costs nothing,
``engine.evaluator.UniformEvaluator``) measures the search and the position encoding alone: the
ceiling a faster network path (``torch-cuda`` on the GPU machine) could approach.

Default net: the bundled net (engine.evaluator.default_net_path) if present, else ../shared/data/lc0/maia-1500.onnx.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from engine import contract
from engine.board import Position
from engine.evaluator import Evaluator, UniformEvaluator, default_net_path
from trainer.play.selfplay import SELFPLAY_BACKENDS, TORCH_PRECISIONS, selfplay_evaluator
from trainer.play.selfplay import DEFAULT_OPENINGS, Openings, SelfPlayConfig, SelfPlayWorker

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"


def default_net() -> Path:
    bundled = default_net_path()
    return bundled if bundled.is_file() else SHARED / "lc0" / "maia-1500.onnx"


def make_evaluator(backend: str, net: str, threads: int, precision: str = "fp32") -> Evaluator:
    """uniform: no net; otherwise what `trainer selfplay --backend` runs."""
    return UniformEvaluator() if backend == "uniform" else \
        selfplay_evaluator(backend, net, threads, precision)


def raw_evals_per_s(ev: Evaluator, batch: int, seconds: float = 5.0) -> float:
    """The bare net's evaluations/s at ``batch`` on real opening positions."""
    import random

    planes = np.zeros((batch, contract.NUM_PLANES, 8, 8), np.float32)
    book = Openings(DEFAULT_OPENINGS) if DEFAULT_OPENINGS.is_file() else None
    rng = random.Random(0)
    for i in range(batch):
        pos = Position.from_board(book.board(rng)) if book else Position()
        pos.encode(planes[i])
    ev.evaluate(planes)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        ev.evaluate(planes)
        n += batch
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", default=str(default_net()))
    ap.add_argument("--visits", type=int, default=100)
    ap.add_argument("--parallel", type=int, default=32)
    ap.add_argument("--minibatch", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime (torch-cpu: torch) threads")
    ap.add_argument("--backend", choices=(*SELFPLAY_BACKENDS, "uniform"),
                    default="cpu", help="what evaluates the positions (see the docstring)")
    ap.add_argument("--precision", choices=TORCH_PRECISIONS, default="fp32",
                    help="the torch backends' arithmetic")
    ap.add_argument("--root", choices=("puct", "gumbel"), default="puct",
                    help="the full searches' root rule (SelfPlayConfig.root)")
    args = ap.parse_args()

    ev = make_evaluator(args.backend, args.net, args.threads, args.precision)
    cfg = SelfPlayConfig(parallel=args.parallel, minibatch=args.minibatch,
                         full_visits=args.visits, fast_visits=args.visits, full_share=1.0,
                         resign_threshold=-1.0, max_plies=400, root=args.root)
    with tempfile.TemporaryDirectory() as tmp:
        worker = SelfPlayWorker(ev, cfg, tmp, net_name=Path(args.net).name)
        deadline = time.monotonic() + args.seconds
        stats = worker.run(10**6, should_stop=lambda: time.monotonic() > deadline)
    moves_s = stats.moves / stats.seconds
    mean_batch = stats.nn_positions / max(1, stats.nn_calls)
    batch = max(1, int(round(mean_batch)))
    raw = raw_evals_per_s(ev, batch, seconds=8.0)
    bound = raw / args.visits
    evals_per_move = stats.nn_positions / max(1, stats.moves)
    result = {
        "net": Path(args.net).name, "backend": args.backend, "precision": args.precision,
        "root": args.root, "visits": args.visits, "parallel": args.parallel,
        "minibatch_per_game": args.minibatch, "seconds": round(stats.seconds, 1),
        "positions": stats.moves, "finished_games": stats.games,
        "positions_per_s": round(moves_s, 2), "nn_calls": stats.nn_calls,
        "mean_batch": round(mean_batch, 1), "nn_evals_per_position": round(evals_per_move, 1),
        "self_play_nn_evals_per_s": round(stats.nn_positions / stats.seconds, 1),
        "raw_evals_per_s_at_batch": round(raw, 1),
        "network_bound_positions_per_s": round(bound, 2),
        "share_of_network_bound": round(moves_s / bound, 3),
        "share_of_raw_evals_used": round(stats.nn_positions / stats.seconds / raw, 3),
    }
    print(f"self-play {result['positions_per_s']} positions/s at {args.visits} visits "
          f"({result['mean_batch']} positions per network call, "
          f"{result['nn_evals_per_position']} evaluations per position); network-bound rate "
          f"{result['network_bound_positions_per_s']} positions/s (raw {result['raw_evals_per_s_at_batch']} "
          f"evals/s at batch {batch}): {100 * result['share_of_network_bound']:.0f}% of it")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
