"""A rote-learned opening book: search the opening positions of self-play, keep what was found.

``python -m trainer book --table T --out book.bin --games 50 --plies 12`` plays games against
itself from the start position (or, with ``--openings``, from short opening lines in turn, e.g.
the ones a match will start from) and replays the games given with ``--pgn``; every position of
the first ``plies`` plies is searched with the engine's own search (``--nodes`` visits) unless the
table already holds ``--searches`` searches of it, in which case the game follows the table. The
table is a transposition table shared by both sides (keyed by the Polyglot Zobrist hash, so
transpositions meet), normalised to the side to move:

    key -> N (searches), W (sum of the root's expected score Q), moves -> accumulated visit share

In a match the engine plays the book's heaviest move and only its opponent varies, so by
default (``--book-side alternate``) one side of each game does the same and only the other's
moves are drawn (weight^(1/T)); the side alternates per round over the openings. The table then
deepens along the lines a match meets instead of spreading over side lines both sides pick.

It grows run after run: it is loaded at the start, written atomically every ``--save-every``
games and at the end (Ctrl-C too), and the seed and the games played seed the next games (each
with an empty NN cache), so a run continues where the last one stopped and gives the table and
``.bin`` one unbroken run of as many games would. ``--out`` writes a standard Polyglot ``.bin``
from it (python-chess, Polyglot and cutechess read it): per position, the moves with at least
``--min-share`` of the best move's share, weight = share in percent.

Notation: "share" is a move's fraction of a search's root visits; a move's weight is its shares
summed over the position's searches.
"""

from __future__ import annotations

import argparse
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import chess
import chess.pgn
import chess.polyglot
import numpy as np

from trainer.data.files import atomic_write, load_tagged_npz, save_tagged_npz
from trainer.data.openings import load_openings

TABLE_FORMAT = "zerosum-book-table"
TABLE_VERSION = 1
_ENTRY = struct.Struct(">QHHI")  # Polyglot: key, move, weight, learn; big-endian, 16 bytes


@dataclass
class BookEntry:
    """One position of the table, for its side to move."""

    searches: int = 0
    value_sum: float = 0.0
    moves: dict[int, float] = field(default_factory=dict)
    """Polyglot move encoding -> visit shares summed over the searches"""

    @property
    def value(self) -> float:
        """Mean expected score Q in [-1, 1] over the searches."""
        return self.value_sum / self.searches if self.searches else 0.0


@dataclass
class BookTable:
    """The persistent table and the progress of the runs that filled it."""

    entries: dict[int, BookEntry] = field(default_factory=dict)
    games: int = 0
    """self-play games played into the table, over all runs (seeds the next game)"""
    runs: int = 0

    def add_search(self, board: chess.Board, q: float, shares: dict[chess.Move, float]) -> None:
        """Records one search of ``board``: root Q for its side to move, visit share per move."""
        e = self.entries.setdefault(chess.polyglot.zobrist_hash(board), BookEntry())
        e.searches += 1
        e.value_sum += q
        for move, share in shares.items():
            pm = polyglot_move(board, move)
            e.moves[pm] = e.moves.get(pm, 0.0) + share

    def get(self, board: chess.Board) -> BookEntry | None:
        return self.entries.get(chess.polyglot.zobrist_hash(board))

    # ------------------------------------------------------------------ storage

    def save(self, path: str | Path) -> None:
        """Atomically, as a tagged .npz: a crash leaves the previous table whole."""
        keys = np.array(sorted(self.entries), dtype=np.uint64)
        ents = [self.entries[int(k)] for k in keys]
        offsets = np.zeros(len(ents) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(e.moves) for e in ents])
        moves = np.array([m for e in ents for m in sorted(e.moves)], dtype=np.uint16)
        weights = np.array([e.moves[m] for e in ents for m in sorted(e.moves)], dtype=np.float64)
        save_tagged_npz(path, TABLE_FORMAT, TABLE_VERSION, {
            "keys": keys, "searches": np.array([e.searches for e in ents], dtype=np.int64),
            "value_sum": np.array([e.value_sum for e in ents], dtype=np.float64),
            "offsets": offsets, "moves": moves, "weights": weights,
            "games": np.array(self.games), "runs": np.array(self.runs)})

    @staticmethod
    def load(path: str | Path) -> BookTable:
        z = load_tagged_npz(path, TABLE_FORMAT, TABLE_VERSION)
        table = BookTable(games=int(z["games"]), runs=int(z["runs"]))
        off = z["offsets"]
        for i, key in enumerate(z["keys"]):
            lo, hi = int(off[i]), int(off[i + 1])
            table.entries[int(key)] = BookEntry(
                int(z["searches"][i]), float(z["value_sum"][i]),
                {int(m): float(w) for m, w in zip(z["moves"][lo:hi], z["weights"][lo:hi])})
        return table

    # ----------------------------------------------------------------- Polyglot

    def polyglot_entries(self, min_share: float = 0.1) -> Iterator[tuple[int, int, int]]:
        """(key, move, weight) of the book, sorted by key then weight (best first)."""
        for key in sorted(self.entries):
            e = self.entries[key]
            if not e.moves or e.searches == 0:
                continue
            best = max(e.moves.values())
            kept = [(m, w) for m, w in e.moves.items() if w >= min_share * best and w > 0]
            # ties by move, not by the order the moves were met: the same table, the same file
            for m, w in sorted(kept, key=lambda mw: (-mw[1], mw[0])):
                weight = max(1, min(0xFFFF, round(100 * w / e.searches)))
                yield key, m, weight

    def write_polyglot(self, path: str | Path, min_share: float = 0.1) -> int:
        """Writes the .bin (atomically); returns the number of entries."""
        rows = list(self.polyglot_entries(min_share))
        data = b"".join(_ENTRY.pack(k, m, w, 0) for k, m, w in rows)
        atomic_write(path, lambda f: f.write(data))
        return len(rows)


def polyglot_move(board: chess.Board, move: chess.Move) -> int:
    """Polyglot's 16-bit move: to file, to rank, from file, from rank, promotion piece (3 bits
    each, promotion knight=1 .. queen=4); castling as the king taking its rook (e1h1)."""
    if board.is_castling(move) and not board.chess960:
        rook_file = 7 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 0
        move = chess.Move(move.from_square, chess.square(rook_file, chess.square_rank(move.from_square)))
    promo = (move.promotion - 1) if move.promotion else 0
    return (chess.square_file(move.to_square) | chess.square_rank(move.to_square) << 3
            | chess.square_file(move.from_square) << 6 | chess.square_rank(move.from_square) << 9
            | promo << 12)


# ---------------------------------------------------------------------- learning


class Searcher:
    """The engine's own search in-process: root Q and visit shares of a position."""

    def __init__(self, weights: str, nodes: int, threads: int = 1) -> None:
        from engine.evaluator import OnnxEvaluator
        from engine.search import Search, SearchParams

        self.nodes = nodes
        self.search = Search(OnnxEvaluator(weights, threads=threads), SearchParams())

    def new_game(self) -> None:
        """Empties the NN cache. A search's visits depend on what the cache holds (a hit is
        backed up at once, a miss waits for its batch), so each game starts from an empty one:
        then game k's searches are the same whether the games before it ran in this process or
        in an earlier run, and a resumed run writes the same table and .bin."""
        self.search.clear()

    def __call__(self, board: chess.Board) -> tuple[float, dict[chess.Move, float]]:
        from engine.board import Position, move_from_uci, move_to_uci

        s = self.search
        s.clear_tree()
        s.set_position(Position.from_board(board), [move_from_uci(m.uci()) for m in board.move_stack])
        s.run_worker(lambda: False, node_limit=self.nodes)
        ranked = s.ranked_moves()
        total = sum(m.visits for m in ranked) or 1
        shares = {board.parse_uci(move_to_uci(m.move)): m.visits / total
                  for m in ranked if m.visits > 0}
        q = s.root_stats()[1]
        return q, shares


def pick(rng: np.random.Generator, weights: dict[Any, float], temperature: float,
         floor: float = 0.05) -> Any:
    """A move drawn by weight^(1/T) among those with at least ``floor`` of the best's weight
    (variety without blunders); the best when T is 0."""
    items = sorted(weights.items(), key=lambda kv: -kv[1])
    best = items[0][1]
    if best <= 0:
        return items[int(rng.integers(len(items)))][0]
    if temperature <= 0 or len(items) == 1:
        return items[0][0]
    items = [(k, w) for k, w in items if w >= floor * best]
    p = np.array([w for _, w in items], dtype=np.float64) ** (1.0 / temperature)
    return items[int(rng.choice(len(items), p=p / p.sum()))][0]


def learn_line(table: BookTable, board: chess.Board, search: Searcher, plies: int,
               searches: int, rng: np.random.Generator, temperature: float,
               given: Sequence[chess.Move] | None = None,
               book_side: chess.Color | None = None) -> int:
    """Plays (or replays ``given``) the first ``plies`` plies from ``board``, searching each
    position the table knows fewer than ``searches`` times; returns the searches made.
    ``book_side``: that side plays the table's heaviest move, as the engine does from the book
    at ``BookVariety`` 0, and only the other side's moves are drawn at ``temperature``."""
    made = 0
    for ply in range(plies):
        if board.is_game_over() or (given is not None and ply >= len(given)):
            break
        entry = table.get(board)
        if entry is None or entry.searches < searches:
            q, shares = search(board)
            table.add_search(board, q, shares)
            made += 1
            entry = table.get(board)
        assert entry is not None
        if given is not None:
            move = given[ply]
        else:
            by_move = {m: entry.moves.get(polyglot_move(board, m), 0.0) for m in board.legal_moves}
            move = pick(rng, {m: w for m, w in by_move.items() if w > 0} or by_move,
                        0.0 if board.turn == book_side else temperature)
        board.push(move)
    return made


def book_side(mode: str, game: int, starts: int) -> chess.Color | None:
    """The side that plays from the book in self-play game ``game`` (counted over all runs):
    none ('both': both sides draw their moves), or, with 'alternate', White in the first
    round over the ``starts`` openings, Black in the next, and so on, so that every opening is
    learned for the book on each side, as a match plays it with colours swapped."""
    if mode == "both":
        return None
    return chess.WHITE if (game // starts) % 2 == 0 else chess.BLACK


def pgn_lines(paths: Sequence[str], plies: int) -> Iterator[list[chess.Move]]:
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                if game.board().fen() == chess.STARTING_FEN and not game.errors:
                    yield list(game.mainline_moves())[:plies]


def run(args: argparse.Namespace) -> int:
    table_path = Path(args.table)
    table = BookTable.load(table_path) if table_path.exists() else BookTable()
    try:  # checked before anything is searched or written; 'none' as in match: the start.
        # The lines up to this run's last game, so that game k starts from line k whether the
        # games came in one run or in several (a resumed run gives the same table and .bin).
        openings = load_openings(args.openings, table.games + args.games,
                                 plies=args.opening_plies)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"book: --openings: {exc}") from None
    starts = None
    if openings is not None:
        starts = [o for o in openings if o.fen == chess.STARTING_FEN]
        if not starts:
            raise SystemExit(f"book: --openings: {args.openings} has no line from the start "
                             "position")
    # the openings' cycle (load_openings repeats them to fill the count)
    lines = len({(o.fen, o.moves) for o in starts}) if starts else 1
    before = (len(table.entries), table.games)
    table.runs += 1
    search = Searcher(args.weights, args.nodes, threads=args.threads)
    start = time.monotonic()
    searched = 0

    def save() -> None:
        table.save(table_path)

    try:
        for i, line in enumerate(pgn_lines(args.pgn or [], args.plies)):
            if i >= args.pgn_games:
                break
            search.new_game()
            searched += learn_line(table, chess.Board(), search, args.plies, args.searches,
                                   np.random.default_rng(0), 0.0, given=line)
        for g in range(args.games):
            # The game's seed is its number over all runs: a resumed run plays new games.
            rng = np.random.default_rng([args.seed, table.games])
            search.new_game()
            board = chess.Board()
            if starts:  # the opening's own positions are learned too, then the game goes on
                start_line = starts[table.games % len(starts)].moves
                searched += learn_line(table, board, search, len(start_line), args.searches, rng,
                                       0.0, given=start_line)
            searched += learn_line(table, board, search, args.plies - len(board.move_stack),
                                   args.searches, rng, args.temperature,
                                   book_side=book_side(args.book_side, table.games, lines))
            table.games += 1
            if (g + 1) % args.save_every == 0:
                save()
                print(f"game {g + 1}/{args.games}: {len(table.entries)} positions, "
                      f"{searched} searches, {time.monotonic() - start:.0f} s", flush=True)
    finally:
        save()  # Ctrl-C too: the table keeps what was learned
    print(f"table {table_path}: run {table.runs}, {before[0]} -> {len(table.entries)} positions, "
          f"{before[1]} -> {table.games} games, {searched} searches this run "
          f"in {time.monotonic() - start:.0f} s")
    if args.out:
        n = table.write_polyglot(args.out, args.min_share)
        print(f"wrote {args.out}: {n} entries")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    from engine.evaluator import default_net_path

    p = sub.add_parser("book", help="learn an opening book by searching self-play openings")
    p.add_argument("--table", required=True, help="the persistent table (.npz), grown per run")
    p.add_argument("--out", help="write a Polyglot .bin from the table")
    p.add_argument("--weights", default=str(default_net_path()), help="net (the bundled one)")
    p.add_argument("--games", type=int, default=20, help="self-play games this run (20)")
    p.add_argument("--plies", type=int, default=12, help="plies of each game learned (12)")
    p.add_argument("--nodes", type=int, default=400, help="search visits per position (400)")
    p.add_argument("--threads", type=int, default=1,
                   help="onnxruntime threads of the search (1); a run repeats its table "
                        "exactly only at the same count")
    p.add_argument("--searches", type=int, default=1,
                   help="searches of a position before games follow the table (1)")
    p.add_argument("--temperature", type=float, default=0.5,
                   help="variety of the drawn self-play moves: weight^(1/T) (0.5: an opponent "
                        "plays its search's best move more often than its visit share says)")
    p.add_argument("--book-side", choices=("alternate", "both"), default="alternate",
                   help="'alternate': in each game one side plays the table's heaviest move (as "
                        "the engine plays from the book) and only its opponent's moves are "
                        "drawn, so the table grows along the lines a match with OwnBook meets; "
                        "the side alternates per round over the openings. 'both': both sides "
                        "draw (alternate)")
    p.add_argument("--openings", help="self-play games start from this PGN's first --games "
                                       "lines, in turn, e.g. a match's (none, the default: the "
                                       "start position)")
    p.add_argument("--opening-plies", type=int, default=2,
                   help="--openings lines cut to their first N plies, distinct lines only (2)")
    p.add_argument("--pgn", nargs="*", help="games to learn from too (their first plies)")
    p.add_argument("--pgn-games", type=int, default=1000, help="games read from --pgn (1000)")
    p.add_argument("--min-share", type=float, default=0.2,
                   help="book moves need this fraction of the best move's weight (0.2)")
    p.add_argument("--save-every", type=int, default=10, help="write the table every N games")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run)
