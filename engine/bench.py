"""`zerosum bench`: nodes and nodes/second of the search over a fixed set of positions.

The default set is the 34 positions of Stockfish's and lc0's `bench` (read from a file in lc0's
benchmark format with --positions, or the built-in start of that set when it is absent).
"""

from __future__ import annotations

import argparse
import time

import chess

from engine.board import Position, move_from_uci
from engine.evaluator import (PRECISIONS, Evaluator, OnnxEvaluator, UniformEvaluator,
                              default_net_path)
from engine.search import Search, SearchParams

# A fixed, varied set: opening, middlegames, endgames (the first positions of Stockfish's bench).
BUILTIN = (
    "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "fen 4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "fen rq3rk1/ppp2ppp/1bnpb3/3N2B1/3NP3/7P/PPPQ1PP1/2KR3R w - - 7 14 moves d4e6",
    "fen r1bq1r1k/1pp1n1pp/1p1p4/4p2Q/4Pp2/1BNP4/PPP2PPP/3R1RK1 w - - 2 14 moves g2g4",
    "fen r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "fen r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
)


def read_positions(path: str | None) -> list[chess.Board]:
    lines = BUILTIN if path is None else tuple(
        ln.strip() for ln in open(path, encoding="utf-8") if ln.strip() and not ln.startswith("#"))
    boards = []
    for ln in lines:
        tokens = ln.split()
        k = tokens.index("moves") if "moves" in tokens else len(tokens)
        board = chess.Board(" ".join(tokens[1:k]))
        for uci in tokens[k + 1:]:
            board.push_uci(uci)
        boards.append(board)
    return boards


def run(evaluator: Evaluator, boards: list[chess.Board], params: SearchParams, *,
        nodes: int | None, seconds: float | None, threads: int) -> tuple[int, float]:
    """Searches each position afresh; returns (total playouts, total seconds)."""
    import threading

    total_nodes, total_time = 0, 0.0
    for board in boards:
        search = Search(evaluator, params)
        search.set_position(Position.from_board(board),
                            [move_from_uci(m.uci()) for m in board.move_stack])
        deadline = time.monotonic() + seconds if seconds is not None else None

        def stop() -> bool:
            return deadline is not None and time.monotonic() >= deadline

        start = time.monotonic()
        workers = [threading.Thread(target=search.run_worker, args=(stop, nodes))
                   for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.monotonic() - start
        total_nodes += search.stats.playouts
        total_time += elapsed
    return total_nodes, total_time


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="zerosum bench", description=__doc__)
    ap.add_argument("--weights", default=str(default_net_path()),
                    help="ONNX net, or 'uniform' for a network that costs nothing")
    ap.add_argument("--positions", help="file of `fen ... [moves ...]` lines")
    ap.add_argument("--nodes", type=int, default=None, help="playouts per position")
    ap.add_argument("--movetime", type=int, default=None, help="milliseconds per position")
    ap.add_argument("--threads", type=int, default=1, help="search workers")
    ap.add_argument("--nn-threads", type=int, default=2, help="onnxruntime intra-op threads")
    ap.add_argument("--precision", choices=PRECISIONS, default="auto",
                    help="as the Precision option: int8 runs NET-int8.onnx (auto: where it exists)")
    ap.add_argument("--minibatch", type=int, default=SearchParams().minibatch_size)
    args = ap.parse_args(argv)
    if args.nodes is None and args.movetime is None:
        args.nodes = 800
    evaluator: Evaluator
    if args.weights == "uniform":
        evaluator = UniformEvaluator()
    else:
        evaluator = OnnxEvaluator(args.weights, threads=args.nn_threads,
                                  precision=args.precision)
    boards = read_positions(args.positions)
    params = SearchParams(minibatch_size=args.minibatch)
    seconds = args.movetime / 1000 if args.movetime else None
    nodes, elapsed = run(evaluator, boards, params, nodes=args.nodes, seconds=seconds,
                         threads=args.threads)
    print(f"net: {evaluator.name}  positions: {len(boards)}  threads: {args.threads}  "
          f"nn-threads: {args.nn_threads}  minibatch: {args.minibatch}")
    print(f"Total time (ms) : {int(elapsed * 1000)}")
    print(f"Nodes searched  : {nodes}")
    print(f"Nodes/second    : {int(nodes / elapsed) if elapsed else 0}")
    return 0
