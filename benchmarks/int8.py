"""fp32 against int8 (``python -m trainer quantize``): network speed, search speed, accuracy.

    nice -n 10 python benchmarks/int8.py [--net NET.onnx] [--int8 NET-int8.onnx] \\
        --pgn ../shared/data/pgn/carlsen_lichess_DrDrunkenstein_2019-01-29.pgn

Prints, one JSON line each:

* ``raw``: evaluations/s of each net at batch 1..256 (``--threads`` onnxruntime threads). The
  two nets take turns in short trials and each keeps its best trial, so that other work on the
  machine costs both alike (the median is printed too).
* ``session``: the same at ``--session-batch`` under other onnxruntime session options (graph
  optimisation level, parallel execution, no memory arena).
* ``search``: nodes/s of the engine's search (``engine.bench``: its 8 positions, ``--nodes``
  playouts each, the engine's minibatch), the nets taking turns.
* ``accuracy``: on positions sampled from held-out games (``--pgn``; the bundled int8 net was
  calibrated on other games): policy top-1 agreement of int8 with fp32, value (W-L) mean
  absolute difference from fp32, each net's top-1 against the move played in the game and,
  with Stockfish installed, against Stockfish's best move (``--sf-positions`` positions at
  ``--sf-nodes`` nodes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort

from engine import contract
from engine.bench import BUILTIN, read_positions, run
from engine.evaluator import OnnxEvaluator, default_net_path, int8_path
from engine.search import SearchParams
from trainer.learn.quantize import Positions, sample_positions

BATCHES = (1, 8, 32, 64, 128, 256)


def session(path: str, threads: int, level: str = "all", parallel: bool = False,
            arena: bool = True) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = threads if parallel else 1
    opts.log_severity_level = 3
    opts.graph_optimization_level = {
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
        "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}[level]
    opts.execution_mode = (ort.ExecutionMode.ORT_PARALLEL if parallel
                           else ort.ExecutionMode.ORT_SEQUENTIAL)
    opts.enable_cpu_mem_arena = arena
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def trial(sess: ort.InferenceSession, planes: npt.NDArray[np.float32], seconds: float) -> float:
    """Evaluations/s over about ``seconds`` of back-to-back calls."""
    feed = {contract.INPUT_NAME: planes}
    sess.run(None, feed)
    n, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        sess.run(None, feed)
        n += len(planes)
    return n / elapsed


def race(sessions: dict[str, ort.InferenceSession], planes: npt.NDArray[np.float32],
         rounds: int, seconds: float) -> dict[str, dict[str, float]]:
    """Each session's best and median evaluations/s over ``rounds`` alternating trials."""
    got: dict[str, list[float]] = {k: [] for k in sessions}
    for _ in range(rounds):
        for k, s in sessions.items():
            got[k].append(trial(s, planes, seconds))
    return {k: {"best": round(max(v)), "median": round(statistics.median(v))}
            for k, v in got.items()}


def raw(nets: dict[str, str], planes: npt.NDArray[np.float32], threads: int, rounds: int,
        seconds: float) -> list[dict[str, Any]]:
    sessions = {k: session(p, threads) for k, p in nets.items()}
    rows = []
    for b in BATCHES:
        r = race(sessions, planes[:b], rounds, seconds)
        rows.append({"batch": b, **r, "ratio_best": round(r["int8"]["best"] / r["fp32"]["best"], 2)})
    return rows


def session_options(nets: dict[str, str], planes: npt.NDArray[np.float32], threads: int,
                    rounds: int, seconds: float) -> list[dict[str, Any]]:
    variants: dict[str, dict[str, Any]] = {
        "default (all, sequential, arena)": {}, "level basic": {"level": "basic"},
        "level extended": {"level": "extended"}, "parallel execution": {"parallel": True},
        "no arena": {"arena": False}, "1 thread": {"threads": 1}}
    sessions = {}
    for name, kw in variants.items():
        for k, p in nets.items():
            sessions[f"{k} | {name}"] = session(p, **{"threads": threads, **kw})
    r = race(sessions, planes, rounds, seconds)
    return [{"variant": k, **v} for k, v in r.items()]


def search_speed(nets: dict[str, str], threads: int, nodes: int,
                 rounds: int) -> dict[str, dict[str, float]]:
    boards = read_positions(None)
    evaluators = {k: OnnxEvaluator(p, threads=threads) for k, p in nets.items()}
    got: dict[str, list[float]] = {k: [] for k in nets}
    for _ in range(rounds):
        for k, ev in evaluators.items():
            n, secs = run(ev, boards, SearchParams(), nodes=nodes, seconds=None, threads=1)
            got[k].append(n / secs)
    return {k: {"best": round(max(v)), "median": round(statistics.median(v))}
            for k, v in got.items()}


def outputs(path: str, planes: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float32], ...]:
    ev = OnnxEvaluator(path, threads=1)
    parts = [ev.evaluate(planes[i:i + 256]) for i in range(0, len(planes), 256)]
    return (np.concatenate([p.policy for p in parts]), np.concatenate([p.wdl for p in parts]))


def stockfish_best(fens: list[str], nodes: int) -> list[int] | None:
    """Stockfish's best move's policy index for each position (None without Stockfish)."""
    import chess
    import chess.engine

    from trainer.arena.match import stockfish_path

    path = stockfish_path()
    if path is None:
        return None
    best = []
    with chess.engine.SimpleEngine.popen_uci(path) as sf:
        sf.configure({"Threads": 1, "Hash": 16})
        for fen in fens:
            board = chess.Board(fen)
            move = sf.play(board, chess.engine.Limit(nodes=nodes)).move
            assert move is not None
            best.append(contract.move_index(board, move))
    return best


def accuracy(nets: dict[str, str], pos: Positions, sf_positions: int,
             sf_nodes: int) -> dict[str, Any]:
    (p32, w32), (p8, w8) = (outputs(nets[k], pos.planes) for k in ("fp32", "int8"))
    top32, top8 = p32.argmax(1), p8.argmax(1)
    res: dict[str, Any] = {
        "positions": len(pos.played),
        "top1_agreement": round(float((top32 == top8).mean()), 4),
        "value_mad": round(float(np.abs((w8[:, 0] - w8[:, 2]) - (w32[:, 0] - w32[:, 2])).mean()), 4),
        "played_top1": {"fp32": round(float((top32 == pos.played).mean()), 4),
                        "int8": round(float((top8 == pos.played).mean()), 4)}}
    n = min(sf_positions, len(pos.fens))
    sf = stockfish_best(pos.fens[:n], sf_nodes) if n else None
    if sf is not None:
        best = np.array(sf)
        res["stockfish_top1"] = {"positions": n, "nodes": sf_nodes,
                                 "fp32": round(float((top32[:n] == best).mean()), 4),
                                 "int8": round(float((top8[:n] == best).mean()), 4)}
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", default=str(default_net_path()), help="fp32 net (the bundled one)")
    ap.add_argument("--int8", help="its int8 copy (default: NET-int8.onnx beside it)")
    ap.add_argument("--pgn", nargs="+", required=True, help="held-out games for positions")
    ap.add_argument("--positions", type=int, default=3000, help="positions for accuracy (3000)")
    ap.add_argument("--sf-positions", type=int, default=300)
    ap.add_argument("--sf-nodes", type=int, default=100_000)
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime threads (2)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating trials per net (5)")
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds per trial (1)")
    ap.add_argument("--session-batch", type=int, default=32)
    ap.add_argument("--nodes", type=int, default=800, help="search playouts per position (800)")
    ap.add_argument("--skip", nargs="*", default=[],
                    choices=("raw", "session", "search", "accuracy"))
    a = ap.parse_args()
    nets = {"fp32": a.net, "int8": a.int8 or str(int8_path(a.net))}
    pos = sample_positions(a.pgn, a.positions, seed=1)
    print(json.dumps({"nets": nets, "onnxruntime": ort.__version__, "search_positions": len(BUILTIN)}),
          flush=True)
    if "raw" not in a.skip:
        for row in raw(nets, pos.planes, a.threads, a.rounds, a.seconds):
            print(json.dumps({"raw": row}), flush=True)
    if "session" not in a.skip:
        for row in session_options(nets, pos.planes[:a.session_batch], a.threads, a.rounds,
                                   a.seconds):
            print(json.dumps({"session": row}), flush=True)
    if "search" not in a.skip:
        print(json.dumps({"search": search_speed(nets, a.threads, a.nodes, max(2, a.rounds // 2))}),
              flush=True)
    if "accuracy" not in a.skip:
        print(json.dumps({"accuracy": accuracy(nets, pos, a.sf_positions, a.sf_nodes)}), flush=True)


if __name__ == "__main__":
    main()
