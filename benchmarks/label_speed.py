"""Stockfish labelling speed: python-chess's ``engine.analyse`` against trainer.data.sfuci's pipe reader.

    PYTHONPATH=. python benchmarks/label_speed.py --nodes 2000 8000 --positions 200

The same positions (the last positions of random lines of the packaged opening book, with
their history) analysed at MultiPV 5 by one Stockfish thread each way, the two ways taking turns
per node count. Prints
wall milliseconds a position and the Python process's own CPU milliseconds a position (the
parsing that shares the cores with Stockfish), and whether both ways found the same moves.
"""

from __future__ import annotations

import argparse
import time

import chess
import chess.engine

from trainer.data.books import DEFAULT_OPENINGS
from trainer.data.sflabel import find_stockfish, opening_boards
from trainer.data.sfuci import StockfishAnalyser


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[2000, 8000])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--multipv", type=int, default=5)
    ap.add_argument("--stockfish")
    a = ap.parse_args()
    sf = find_stockfish(a.stockfish)
    boards = opening_boards(DEFAULT_OPENINGS, a.positions, seed=7)
    print(f"{len(boards)} positions, MultiPV {a.multipv}, Stockfish {sf}, 1 thread, 16 MB hash")
    for nodes in a.nodes:
        rows = {}
        for way in ("python-chess", "pipe"):
            t0, c0 = time.perf_counter(), time.process_time()
            if way == "pipe":
                with StockfishAnalyser(sf) as pipe:
                    best = [r[0][0] if (r := pipe.analyse(b, a.multipv, nodes=nodes)) else None
                            for b in boards]
            else:
                eng = chess.engine.SimpleEngine.popen_uci(sf)
                try:
                    eng.configure({"UCI_ShowWDL": True, "Threads": 1, "Hash": 16})
                    best = [infos[0]["pv"][0] if (infos := eng.analyse(
                        b, chess.engine.Limit(nodes=nodes), multipv=a.multipv)) else None
                        for b in boards]
                finally:
                    eng.quit()
            wall = (time.perf_counter() - t0) / len(boards) * 1000
            cpu = (time.process_time() - c0) / len(boards) * 1000
            rows[way] = (wall, cpu, best)
            print(f"nodes {nodes:6d}  {way:12s} {wall:6.2f} ms/position wall  "
                  f"{cpu:5.2f} ms/position Python CPU")
        print(f"nodes {nodes:6d}  python-chess / pipe wall: "
              f"{rows['python-chess'][0] / rows['pipe'][0]:.2f}x; same best moves: "
              f"{rows['python-chess'][2] == rows['pipe'][2]}")


if __name__ == "__main__":
    main()
