"""Resignation settings chosen by measurement: false resignations and plies saved, from the games
self-play played out with resignation off.

    PYTHONPATH=. python benchmarks/resign_threshold.py --games runs/rl-gumbel-e/games

Self-play keeps a share of its games (``resign_playout``) free of resignation and records every
position's search value (``root_q``, the side to move's W-L). Replaying the resignation rule of
:mod:`trainer.play.selfplay` on those values says, for each threshold and run of plies, in how many of
the played-out games a side would have resigned (:func:`trainer.play.selfplay.resign_ply`), in how
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

``--stockfish PATH`` judges every resignation, whatever its material, by Stockfish's WDL model
at a fixed depth (``StockfishJudge``): the sum of its chances that the resigning side does not
lose is the false resignations to expect under strong play.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.engine
import chess.syzygy

from engine.board_ref import to_chess_move
from trainer.data.records import Record, list_records
from trainer.play.selfplay import resign_ply


def playout_games(dirs: list[str]) -> list[Record]:
    return [r for d in dirs for p in list_records(Path(d))
            if (r := Record.load(p)).meta.get("no_resign")]


def positions(g: Record) -> Iterator[tuple[int, chess.Board]]:
    """(ply, board) for every position of the game, the opening book's moves played first."""
    board = chess.Board(g.start_fen)
    for u in g.meta.get("book", []):
        board.push_uci(u)
    for i, move in enumerate(g.moves.tolist()):
        yield i, board
        if move >= 0:
            board.push(to_chess_move(move))


def tables_verdict(g: Record, ply: int, tables: chess.syzygy.Tablebase) -> int | None:
    """The tables' WDL (-1, 0, 1) for the side to move at ``ply``, taken at the first position
    from ``ply`` on that they cover; None if the game never reached one."""
    for i, board in positions(g):
        if i >= ply and chess.popcount(board.occupied) <= 7 and not board.castling_rights:
            wdl = tables.get_wdl(board)
            if wdl is not None:
                v = 0 if abs(wdl) < 2 else (1 if wdl > 0 else -1)
                return v if (i - ply) % 2 == 0 else -v
    return None


class StockfishJudge:
    """Stockfish's chance that the side to move at a resignation does not lose: its WDL model's
    wins + draws (``UCI_ShowWDL``, fitted to Stockfish's own games), at a fixed depth. Summed
    over the resignations it estimates how many were false under strong play, where the game's
    own result says only whether a 400-visit player converted (a won ending drawn by the fifty
    moves rule counts as false by the result)."""

    def __init__(self, path: str, depth: int) -> None:
        self.engine = chess.engine.SimpleEngine.popen_uci(path)
        self.engine.configure({"UCI_ShowWDL": True, "Threads": 1, "Hash": 64})
        self.limit = chess.engine.Limit(depth=depth)
        self.cache: dict[tuple[int, int], float] = {}

    def not_lost(self, g: Record, ply: int) -> float:
        key = (id(g), ply)
        if key not in self.cache:
            board = next(b for i, b in positions(g) if i == ply)
            wdl = self.engine.analyse(board, self.limit)["wdl"].pov(board.turn)
            self.cache[key] = (wdl.wins + wdl.draws) / wdl.total()
        return self.cache[key]

    def close(self) -> None:
        self.engine.quit()


def table(games: list[Record], thresholds: list[float], runs: list[int], earliest: int,
          tables: chess.syzygy.Tablebase | None = None,
          judge: StockfishJudge | None = None) -> list[dict[str, float]]:
    total_plies = sum(len(g) for g in games)
    rows = []
    for t in thresholds:
        for n in runs:
            would = false = false_tb = saved = 0
            false_sf = 0.0
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
                if judge is not None:
                    false_sf += judge.not_lost(g, ply)
                saved += len(g) - ply
            rows.append({"threshold": t, "plies": n, "would_resign": would,
                         "false": false, "false_rate": false / would if would else 0.0,
                         "false_tb": false_tb,
                         "false_tb_rate": false_tb / would if would else 0.0,
                         "false_sf": false_sf,
                         "false_sf_rate": false_sf / would if would else 0.0,
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
    ap.add_argument("--stockfish", help="a Stockfish binary: judge each resignation by its WDL")
    ap.add_argument("--sf-depth", type=int, default=16, help="Stockfish's depth (default 16)")
    a = ap.parse_args()
    games = playout_games(a.games)
    tables = chess.syzygy.open_tablebase(a.syzygy) if a.syzygy else None
    judge = StockfishJudge(a.stockfish, a.sf_depth) if a.stockfish else None
    print(f"played-out games: {len(games)}, positions: {sum(len(g) for g in games)}")
    tb_head = " false, by the tables |" if tables else ""
    sf_head = f" false, by Stockfish d{a.sf_depth} WDL |" if judge else ""
    print(f"| threshold | plies in a row | would resign | false | false rate |{tb_head}{sf_head} "
          "plies saved |")
    print("|---|---|---|---|---|" + ("---|" if tables else "") + ("---|" if judge else "")
          + "---|")
    try:
        rows = table(games, a.thresholds, a.plies, a.earliest, tables, judge)
    finally:
        if judge is not None:
            judge.close()
    for r in rows:
        tb = f" {r['false_tb']} ({r['false_tb_rate']:.1%}) |" if tables else ""
        sf = f" {r['false_sf']:.1f} ({r['false_sf_rate']:.1%}) |" if judge else ""
        print(f"| {r['threshold']} | {r['plies']} | {r['would_resign']} | {r['false']} | "
              f"{r['false_rate']:.1%} |{tb}{sf} {r['plies_saved']:.1%} |")


if __name__ == "__main__":
    main()
