"""Search speed, from one run: raw network throughput, search throughput and its ratio to the
network's, the tree's own cost, memory per node, and a sweep of thread/batch settings.

    python benchmarks/speed.py [--nets NET.onnx ...] [--movetime 1000] [--positions FILE]

Defaults: maia-1500 from ../shared/data/lc0 and the bundled net; the 34 positions of
../shared/data/lc0/benchmark_positions.txt at 1 s each (lc0's `benchmark` set).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from engine import contract
from engine.bench import read_positions, run
from engine.board import Position
from engine.evaluator import OnnxEvaluator, UniformEvaluator, default_net_path
from engine.mcts import Tree
from engine.options import defaults, to_settings
from engine.search import Search, SearchParams

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def raw_throughput(path: str, batch: int, threads: int, seconds: float = 1.0) -> float:
    """Evaluations per second of the bare net on real input planes."""
    ev = OnnxEvaluator(path, threads=threads)
    boards = read_positions(None)
    planes = np.zeros((batch, contract.NUM_PLANES, 8, 8), np.float32)
    for i in range(batch):
        Position.from_board(boards[i % len(boards)]).encode(planes[i])
    ev.evaluate(planes)  # warm-up
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        ev.evaluate(planes)
        n += batch
    return n / (time.perf_counter() - start)


def rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def memory_check(seconds: float, ram_mb: int) -> None:
    """An unbounded search with the uniform net under a small tree bound: the bound holds."""
    bytes_per_node = Tree.bytes_bound(1_000_000) // 1_000_000
    params = SearchParams(max_nodes=ram_mb * 2**20 // bytes_per_node)
    search = Search(UniformEvaluator(), params)
    board = read_positions(None)[1]
    search.set_position(Position.from_board(board), [])
    before = rss_mb()
    deadline = time.monotonic() + seconds
    search.run_worker(lambda: time.monotonic() > deadline)
    tree: Tree = search.tree
    print(f"  bound {ram_mb} MB -> max_nodes {params.max_nodes}; after {seconds:.0f} s: "
          f"nodes {tree.num_nodes}, stopped at bound: {search.stats.full}, tree arrays "
          f"{tree.memory_bytes() / 2**20:.1f} MB, process RSS +{rss_mb() - before:.1f} MB")
    print(f"  bytes per node: {Tree.bytes_per_node()} (node) + {Tree.bytes_per_edge()} per edge;"
          f" measured {tree.memory_bytes() / max(tree.num_nodes, 1):.0f} bytes per visited node"
          f" (arrays incl. spare capacity)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--nets", nargs="*",
                    default=[str(SHARED / "lc0" / "maia-1500.onnx"), str(default_net_path())])
    ap.add_argument("--movetime", type=int, default=1000, help="ms per benchmark position")
    ap.add_argument("--positions", default=str(SHARED / "lc0" / "benchmark_positions.txt"))
    ap.add_argument("--memory-seconds", type=float, default=20.0)
    args = ap.parse_args()
    nets = [n for n in args.nets if Path(n).is_file()]
    boards = read_positions(args.positions)
    sizes = [1, 2, 4, 8, 16, 32, 64, 128, 256]

    print("1. raw network throughput (evaluations/s)")
    raw32 = {}
    for net in nets:
        for threads in (1, 2):
            rates = [raw_throughput(net, b, threads, 0.7) for b in sizes]
            if threads == 2:
                raw32[net] = rates[sizes.index(32)]
            print(f"  {Path(net).name:22s} threads {threads}: " +
                  "  ".join(f"b{b}={r:,.0f}" for b, r in zip(sizes, rates)))

    print(f"2. search throughput: {len(boards)} positions x {args.movetime} ms, default settings")
    settings, params = to_settings(defaults())  # the engine's UCI defaults
    print(f"  (Threads {settings.threads}, NNThreads {settings.onnx_threads}, "
          f"MinibatchSize {params.minibatch_size})")
    for net in nets:
        ev = OnnxEvaluator(net, threads=settings.onnx_threads)
        nodes, secs = run(ev, boards, params, nodes=None, seconds=args.movetime / 1000,
                          threads=settings.threads)
        nps = nodes / secs
        print(f"  {Path(net).name:22s} {nodes:,} nodes in {secs:.1f} s = {nps:,.0f} nodes/s; "
              f"ratio to raw batch-32 ({raw32[net]:,.0f}/s): {nps / raw32[net]:.2f}")

    print("3. tree overhead alone (uniform policy, even value), one worker")
    nodes, secs = run(UniformEvaluator(), boards[:8], params, nodes=50_000, seconds=None,
                      threads=1)
    print(f"  {nodes:,} nodes in {secs:.2f} s = {nodes / secs:,.0f} nodes/s")

    print("4. memory")
    memory_check(args.memory_seconds, ram_mb=64)

    print("5. settings sweep on the first net (8 positions x 500 ms)")
    if nets:
        for threads, nn_threads, batch in ((1, 2, 32), (2, 2, 32), (2, 2, 64), (2, 1, 32),
                                           (3, 2, 32), (2, 2, 16)):
            ev = OnnxEvaluator(nets[0], threads=nn_threads)
            nodes, secs = run(ev, boards[:8], SearchParams(minibatch_size=batch), nodes=None,
                              seconds=0.5, threads=threads)
            print(f"  Threads {threads} NNThreads {nn_threads} MinibatchSize {batch}: "
                  f"{nodes / secs:,.0f} nodes/s")


if __name__ == "__main__":
    main()
