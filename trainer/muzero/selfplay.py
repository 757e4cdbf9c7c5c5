"""Self-play with a MuZero net: the latent search picks the moves, the records are the same as
AlphaZero self-play's (trainer/data/records.py), so the learner, the replay tools and the trajectory
sampler read them unchanged.

Differences from trainer/play/selfplay.py, and why: games are played one after another, each move
with a full search (``full_visits``; every position gets a policy target, which the unroll needs
at every step); there is no resignation (the latent value is not yet trusted to end games) and
no playout-cap randomisation. The rules end the game (mate, stalemate, draw rules, max plies),
as they must: the referee is not the model.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Callable

import chess
import numpy as np

from engine import contract
from engine.board import Position, move_to_uci
from engine.evaluator import LatentModel
from engine.latent_search import LatentSearch
from engine.mcts import ROOT
from engine.search import SearchParams
from trainer.data import records
from trainer.play.selfplay import Openings, SelfPlayConfig, SelfPlayStats, game_over, pick_move


class MuZeroSelfPlay:
    """Plays games with ``model`` into ``out_dir`` as generation ``generation``'s records."""

    def __init__(self, model: LatentModel, cfg: SelfPlayConfig, out_dir: str | Path,
                 generation: int = 0, worker: int = 0, net_name: str = "") -> None:
        self.model, self.cfg = model, cfg
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.generation, self.worker = generation, worker
        self.net_name = net_name or model.name
        records.clean_temp_files(self.out_dir, records.record_name(generation, worker, 0)[:10])
        self.counter = records.next_counter(self.out_dir, generation, worker)
        self._rng = random.Random(cfg.seed * 1_000_003 + generation * 1009 + worker * 7
                                  + self.counter)
        path = Path(cfg.openings) if cfg.openings else None
        self._openings = Openings(path) if path is not None and path.is_file() else None
        self.params = SearchParams(dirichlet_alpha=cfg.dirichlet_alpha,
                                   dirichlet_epsilon=cfg.dirichlet_epsilon,
                                   minibatch_size=cfg.minibatch)

    def _start(self) -> chess.Board:
        if self.cfg.start_fens:
            return chess.Board(self._rng.choice(self.cfg.start_fens))
        if self._openings is not None:
            return self._openings.board(self._rng)
        return chess.Board()

    def play_game(self, stats: SelfPlayStats) -> Path:
        """One game, written as a record (+ PGN); returns its path."""
        cfg = self.cfg
        board = self._start()
        start_fen, book = board.root().fen(), [m.uci() for m in board.move_stack]
        pos = Position.from_board(board)
        search = LatentSearch(self.model, SearchParams(**{**self.params.__dict__,
                                                          "seed": self._rng.getrandbits(63)}))
        movebuf = np.zeros(256, np.int32)
        planes, turns, root_q, root_d, policies = [], [], [], [], []
        played: list[int] = []  # moves as the engine's packed integers
        over, winner, reason = game_over(pos, movebuf)
        while not over:
            if len(book) + len(played) >= cfg.max_plies:
                reason = "max plies"
                break
            search.set_position(pos, [])
            search.run_worker(lambda: False, cfg.full_visits)
            ranked = search.ranked_moves()
            _, _, q, d = search.tree.node_stats(ROOT)[:4]
            buf = np.zeros((contract.NUM_PLANES, 8, 8), np.float32)
            pos.encode(buf)
            planes.append(buf)
            turns.append(pos.turn())
            root_q.append(-float(q))  # node_stats' q is for the side that moved into the root
            root_d.append(float(d))
            visited = [m for m in ranked if m.visits > 0]
            total = float(sum(m.visits for m in visited))
            policies.append(([pos.policy_index(m.move) for m in visited],
                             [m.visits / total for m in visited]))
            temp = cfg.temperature if len(played) < cfg.temp_plies else cfg.temp_end
            move = pick_move(ranked, temp, self._rng).move
            played.append(move)
            pos.push(move)
            over, winner, reason = game_over(pos, movebuf)
        n = len(played)
        wdl = [records.wdl_onehot(None if winner is None else bool(winner), bool(t))
               for t in turns]
        result = "1/2-1/2" if winner is None else ("1-0" if winner == 1 else "0-1")
        meta = {"kind": "selfplay", "mode": "muzero", "generation": self.generation,
                "worker": self.worker, "game": self.counter, "net": self.net_name,
                "result": result, "termination": reason, "book": book, "plies": n + len(book),
                "full_visits": cfg.full_visits}
        rec = records.Record.build(np.stack(planes) if planes else
                                   np.zeros((0, contract.NUM_PLANES, 8, 8), np.float32),
                                   played, wdl, root_q, root_d, list(range(n, 0, -1)), policies,
                                   start_fen, meta)
        uci = book + [move_to_uci(m) for m in played]
        headers = {"Event": "zerosum muzero self-play", "Round": str(self.counter),
                   "White": self.net_name, "Black": self.net_name, "Termination": reason}
        path = self.out_dir / records.record_name(self.generation, self.worker, self.counter)
        rec.save(path, records.game_pgn(start_fen, uci, result, headers))
        self.counter += 1
        stats.games += 1
        stats.positions += n
        stats.full_positions += n
        stats.results[result] += 1
        stats.terminations[reason] = stats.terminations.get(reason, 0) + 1
        stats.plies.append(n + len(book))
        stats.files.append(path.name)
        return path

    def run(self, games: int, should_stop: Callable[[], bool] = lambda: False,
            progress: bool = True) -> SelfPlayStats:
        from tqdm import tqdm

        stats = SelfPlayStats()
        t0 = time.monotonic()
        with tqdm(total=games, desc="muzero self-play", unit="game", disable=not progress) as bar:
            for _ in range(games):
                if should_stop():
                    break
                self.play_game(stats)
                bar.update(1)
        stats.seconds = time.monotonic() - t0
        return stats
