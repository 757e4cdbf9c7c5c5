"""Perft speed of engine.board: nodes and nodes/s on the shared perft suites.

    python benchmarks/perft.py                     # the chessprogramming-wiki positions, depth 5
    python benchmarks/perft.py --suite all --max-nodes 50000000
    python benchmarks/perft.py --fen "<fen>" --depth 6

Perft counts leaves bulk-wise (the last ply's legal moves are counted, not played); the
"search loop" figure plays every move from Python (push, generate, pop), as the search driver does.
Positions whose castling rights only make sense in Chess960 are left out.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import chess
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere
from engine.board import Position, perft  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "perft"
SUITES = {"cpw": "cpw_perft_positions.epd", "sunfish": "sunfish_perftsuite.epd",
          "tricky": "python-chess_tricky.perft"}


def load(name: str) -> list[tuple[str, dict[int, int]]]:
    """(fen, {depth: nodes}) of a suite, in either of the two file formats."""
    cases: list[tuple[str, dict[int, int]]] = []
    for line in (DATA / SUITES[name]).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("epd "):
            cases.append((line[4:], {}))
        elif line.startswith("perft "):
            _, depth, nodes = line.split()
            cases[-1][1][int(depth)] = int(nodes)
        elif not line.startswith("id "):
            fen, *fields = line.split(";")
            cases.append((fen.strip(), {int(f.split()[0][1:]): int(f.split()[1]) for f in fields}))
    standard = []
    for fen, counts in cases:
        parts = fen.split()
        if chess.Board(fen).castling_xfen() == (parts[2] if len(parts) > 2 else "-"):
            standard.append((fen, counts))
    return standard


def search_loop(pos: Position, seconds: float = 1.0) -> float:
    """Moves per second for push + legal_moves + pop called from Python, walking the tree."""
    buf = np.zeros(256, np.int32)
    n = pos.legal_moves(buf)
    moves = buf[:n].tolist()
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for m in moves:
            pos.push(m)
            pos.legal_moves(buf)
            pos.pop()
        done += len(moves)
    return done / (time.perf_counter() - start)


def startpos_depth5() -> str:
    """Perft 5 from the start position, also as make-move + legal-generation calls per second
    (every interior node generates once, every move above the last ply is made once)."""
    pos = Position()
    perft(pos, 5)  # warm up
    start = time.perf_counter()
    nodes = perft(pos, 5)
    elapsed = time.perf_counter() - start
    interior = sum(perft(pos, d) for d in range(5))
    return (f"start position d5: {nodes:,} nodes in {elapsed * 1000:.1f} ms = {nodes / elapsed:,.0f} "
            f"nodes/s; {interior:,} make+generate in that time = {interior / elapsed:,.0f}/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=[*SUITES, "all"], default="cpw")
    parser.add_argument("--fen", help="time this position instead of a suite")
    parser.add_argument("--depth", type=int, help="fixed depth (default: deepest known count "
                        "within --max-nodes)")
    parser.add_argument("--max-nodes", type=int, default=200_000_000)
    args = parser.parse_args()

    if args.fen:
        cases = [(args.fen, {args.depth or 5: None})]
    else:
        names = list(SUITES) if args.suite == "all" else [args.suite]
        cases = [case for name in names for case in load(name)]

    total_nodes, total_time, wrong = 0, 0.0, 0
    for fen, counts in cases:
        if args.depth is not None:
            depth = args.depth
        else:
            fitting = [d for d, n in counts.items() if n is None or n <= args.max_nodes]
            if not fitting:
                continue
            depth = max(fitting)
        pos = Position(fen)
        start = time.perf_counter()
        nodes = perft(pos, depth)
        elapsed = time.perf_counter() - start
        expected = counts.get(depth)
        ok = "" if expected is None else ("ok" if expected == nodes else f"WRONG (want {expected})")
        wrong += ok.startswith("WRONG")
        total_nodes += nodes
        total_time += elapsed
        print(f"d{depth} {nodes:>13,} nodes {elapsed:8.3f} s {nodes / max(elapsed, 1e-9):>14,.0f} n/s"
              f"  {ok:4} {fen}")
    print(f"total {total_nodes:,} nodes in {total_time:.2f} s: "
          f"{total_nodes / max(total_time, 1e-9):,.0f} nodes/s (bulk-counted perft)")
    print(startpos_depth5())
    print(f"search loop (push + legal_moves + pop from Python), start position: "
          f"{search_loop(Position()):,.0f} moves/s")
    if wrong:
        raise SystemExit(f"{wrong} wrong perft counts")


if __name__ == "__main__":
    main()
