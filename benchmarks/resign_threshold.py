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

``--syzygy DIR`` also judges each false resignation by the tables: when a game reached a position
they cover after the resignation, their verdict there (cursed wins and blessed losses are draws)
says whether the resigning side was lost with correct play, and the game's own result says only
that a 32-visit player failed to convert. The "false, by the tables" column counts a resignation
as false only where the tables do not say lost (or were never reached).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import chess
import chess.syzygy

from trainer.records import Record, list_records
from trainer.selfplay import resign_ply


def playout_games(dirs: list[str]) -> list[Record]:
    return [r for d in dirs for p in list_records(Path(d))
            if (r := Record.load(p)).meta.get("no_resign")]


def tables_verdict(g: Record, ply: int, tables: chess.syzygy.Tablebase) -> int | None:
    """The tables' WDL (-1, 0, 1) for the side to move at ``ply``, taken at the first position
    from ``ply`` on that they cover; None if the game never reached one."""
    board = chess.Board(g.start_fen)
    for u in g.meta.get("book", []):
        board.push_uci(u)
    for i, move in enumerate(g.moves.tolist()):
        if i >= ply and chess.popcount(board.occupied) <= 7 and not board.castling_rights:
            wdl = tables.get_wdl(board)
            if wdl is not None:
                v = 0 if abs(wdl) < 2 else (1 if wdl > 0 else -1)
                return v if (i - ply) % 2 == 0 else -v
        if move >= 0:
            board.push(chess.Move(move & 63, (move >> 6) & 63, ((move >> 12) & 7) or None))
    return None


def table(games: list[Record], thresholds: list[float], runs: list[int], earliest: int,
          tables: chess.syzygy.Tablebase | None = None) -> list[dict[str, float]]:
    total_plies = sum(len(g) for g in games)
    rows = []
    for t in thresholds:
        for n in runs:
            would = false = false_tb = saved = 0
            for g in games:
                ply = resign_ply(g.root_q.tolist(), t, n, earliest)
                if ply is None:
                    continue
                would += 1
                # wdl is the game's result for the side to move at each position.
                is_false = g.wdl[ply][2] < 0.5
                false += is_false
                if is_false and tables is not None:
                    false_tb += tables_verdict(g, ply, tables) != -1
                saved += len(g) - ply
            rows.append({"threshold": t, "plies": n, "would_resign": would,
                         "false": false, "false_rate": false / would if would else 0.0,
                         "false_tb": false_tb,
                         "false_tb_rate": false_tb / would if would else 0.0,
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
    ap.add_argument("--syzygy", help="Syzygy directory: judge false resignations by the tables")
    a = ap.parse_args()
    games = playout_games(a.games)
    tables = chess.syzygy.open_tablebase(a.syzygy) if a.syzygy else None
    print(f"played-out games: {len(games)}, positions: {sum(len(g) for g in games)}")
    tb_head = " false, by the tables |" if tables else ""
    print(f"| threshold | plies in a row | would resign | false | false rate |{tb_head} "
          "plies saved |")
    print("|---|---|---|---|---|" + ("---|" if tables else "") + "---|")
    for r in table(games, a.thresholds, a.plies, a.earliest, tables):
        tb = f" {r['false_tb']} ({r['false_tb_rate']:.1%}) |" if tables else ""
        print(f"| {r['threshold']} | {r['plies']} | {r['would_resign']} | {r['false']} | "
              f"{r['false_rate']:.1%} |{tb} {r['plies_saved']:.1%} |")


if __name__ == "__main__":
    main()
