"""Resignation settings chosen by measurement: false resignations and plies saved, from the games
self-play played out with resignation off.

    PYTHONPATH=. python benchmarks/resign_threshold.py --games runs/rl-gumbel-e/games

Self-play keeps a share of its games (``resign_playout``) free of resignation and records every
position's search value (``root_q``, the side to move's W-L). Replaying the resignation rule of
:mod:`trainer.selfplay` on those values says, for each threshold and run of plies, in how many of
the played-out games a side would have resigned (:func:`trainer.selfplay.resign_ply`), in how
many of those it did not lose (a false resignation: its wins and draws would have been recorded
as losses), and what share of the plies of the games resignation would have cut. lc0 and KataGo tune their thresholds the same way; the
issue's target is a false-resignation rate under 5%.

The replay is an estimate: self-play resigns on the most visited move's Q, the records hold the
root's value (under Gumbel its improved value, the expectation of Q under the improved policy).
On run e's games at -0.95 over 4 plies the two agree closely (6.4% counted live, 6.1% replayed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from trainer.records import Record, list_records
from trainer.selfplay import resign_ply


def playout_games(dirs: list[str]) -> list[Record]:
    return [r for d in dirs for p in list_records(Path(d))
            if (r := Record.load(p)).meta.get("no_resign")]


def table(games: list[Record], thresholds: list[float], runs: list[int],
          earliest: int) -> list[dict[str, float]]:
    total_plies = sum(len(g) for g in games)
    rows = []
    for t in thresholds:
        for n in runs:
            would = false = saved = 0
            for g in games:
                ply = resign_ply(g.root_q.tolist(), t, n, earliest)
                if ply is None:
                    continue
                would += 1
                # wdl is the game's result for the side to move at each position.
                false += g.wdl[ply][2] < 0.5
                saved += len(g) - ply
            rows.append({"threshold": t, "plies": n, "would_resign": would,
                         "false": false, "false_rate": false / would if would else 0.0,
                         "plies_saved": saved / total_plies if total_plies else 0.0})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", nargs="+", required=True, help="self-play record directories")
    ap.add_argument("--thresholds", type=float, nargs="+",
                    default=[-0.8, -0.85, -0.9, -0.95, -0.97, -0.98, -0.99])
    ap.add_argument("--plies", type=int, nargs="+", default=[2, 4, 6, 8])
    ap.add_argument("--earliest", type=int, default=20,
                    help="plies after the opening before resigning is allowed (selfplay's 20)")
    a = ap.parse_args()
    games = playout_games(a.games)
    print(f"played-out games: {len(games)}, positions: {sum(len(g) for g in games)}")
    print("| threshold | plies in a row | would resign | false | false rate | plies saved |")
    print("|---|---|---|---|---|---|")
    for r in table(games, a.thresholds, a.plies, a.earliest):
        print(f"| {r['threshold']} | {r['plies']} | {r['would_resign']} | {r['false']} | "
              f"{r['false_rate']:.1%} | {r['plies_saved']:.1%} |")


if __name__ == "__main__":
    main()
