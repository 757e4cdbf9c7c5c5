"""How each engine of a match spent its clock, from the ``[%clk]`` comments of its PGN.

    python benchmarks/clock_use.py runs/sf1800/i4-vnni-c1.pgn [more.pgn ...]

For each engine (by name): the moves timed, the seconds a move took (quantiles 10/25/50/75/90%
and the mean; the clock's drop plus the increment, so the GUI's lag is in it), the share of
moves under 0.12 s, and its clock at the end of the game (median). The base and increment come
from the ``TimeControl`` header, read by the match runner's own parser. A ``.pgn.partial`` of a
stopped match reads the same way.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import defaultdict

import chess
import chess.pgn
import numpy as np

from trainer.arena.match import TimeControl


def clock_use(paths: list[str]) -> dict[str, dict[str, object]]:
    spent: dict[str, list[float]] = defaultdict(list)
    ends: dict[str, list[float]] = defaultdict(list)
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open  # results keep their PGNs gzipped
        with opener(path, "rt", encoding="utf-8") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                try:
                    tc = TimeControl.parse(game.headers.get("TimeControl", ""))
                except ValueError:
                    continue  # no time control the match runner writes
                if tc.base is None:
                    continue  # nodes a move: no clock
                base, inc = tc.base, tc.increment
                names = {chess.WHITE: game.headers["White"], chess.BLACK: game.headers["Black"]}
                last = {chess.WHITE: base, chess.BLACK: base}
                node: chess.pgn.GameNode = game
                while node.variations:
                    nxt = node.variations[0]
                    side = node.turn()
                    left = nxt.clock()
                    if left is not None:
                        spent[names[side]].append(last[side] - left + inc)
                        last[side] = left
                    node = nxt
                for side, name in names.items():
                    ends[name].append(last[side])
    out: dict[str, dict[str, object]] = {}
    for name, times in sorted(spent.items()):
        t = np.array(times)
        out[name] = {
            "moves": len(t),
            "seconds_q10_25_50_75_90": [round(float(x), 3)
                                        for x in np.quantile(t, [0.1, 0.25, 0.5, 0.75, 0.9])],
            "mean": round(float(t.mean()), 3),
            "under_0.12s": round(float((t < 0.12).mean()), 3),
            "games": len(ends[name]),
            "clock_left_at_end_median": round(float(np.median(ends[name])), 2)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pgn", nargs="+")
    for name, row in clock_use(ap.parse_args().pgn).items():
        print(json.dumps({"engine": name, **row}))


if __name__ == "__main__":
    main()
