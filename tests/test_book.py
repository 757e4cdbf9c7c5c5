"""The opening book: the learned table (growth, resume, atomic files), the Polyglot writer read
back by python-chess, and the engine's OwnBook/BookFile/BookDepth/BookVariety in a dialogue."""

from __future__ import annotations

import struct
from pathlib import Path

import chess
import chess.polyglot
import numpy as np
import pytest

from engine.book import Book
from tests.test_uci_dialogue import (  # noqa: F401  (fixtures)
    EngineProcess,
    bestmove_of,
    engine,
    raw_engine,
)
from trainer.play.book import BookTable, book_side, learn_line, polyglot_move


def fake_search(board: chess.Board) -> tuple[float, dict[chess.Move, float]]:
    """A repeatable 'search': the first three legal moves in UCI order get 60/30/10%."""
    moves = sorted(board.legal_moves, key=lambda m: m.uci())[:3]
    return 0.1, dict(zip(moves, (0.6, 0.3, 0.1)))


def test_polyglot_move_encoding() -> None:
    """Polyglot's bits (to file, to rank, from file, from rank, promotion); castling as the
    king taking its rook."""
    board = chess.Board("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert polyglot_move(board, chess.Move.from_uci("e1g1")) == 7 | 0 << 3 | 4 << 6 | 0 << 9
    assert polyglot_move(board, chess.Move.from_uci("e1c1")) == 0 | 0 << 3 | 4 << 6 | 0 << 9
    assert polyglot_move(board, chess.Move.from_uci("b7a8q")) == 0 | 7 << 3 | 1 << 6 | 6 << 9 | 4 << 12
    assert polyglot_move(board, chess.Move.from_uci("a1a7")) == 0 | 6 << 3 | 0 << 6 | 0 << 9


def test_table_to_polyglot_read_by_python_chess(tmp_path: Path) -> None:
    table = BookTable()
    start = chess.Board()
    table.add_search(start, 0.05, {chess.Move.from_uci("e2e4"): 0.5,
                                   chess.Move.from_uci("d2d4"): 0.4,
                                   chess.Move.from_uci("a2a3"): 0.05})
    castle = chess.Board("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1")
    table.add_search(castle, 0.5, {chess.Move.from_uci("e1g1"): 0.5,
                                   chess.Move.from_uci("b7a8q"): 0.3,
                                   chess.Move.from_uci("e1c1"): 0.2})
    path = tmp_path / "book.bin"
    assert table.write_polyglot(path, min_share=0.2) == 5  # a2a3 is under 20% of e2e4
    raw = path.read_bytes()
    keys = [struct.unpack(">Q", raw[i:i + 8])[0] for i in range(0, len(raw), 16)]
    assert keys == sorted(keys) and len(raw) == 5 * 16
    with chess.polyglot.open_reader(path) as reader:
        got = {e.move.uci(): e.weight for e in reader.find_all(start)}
        assert got == {"e2e4": 50, "d2d4": 40}
        got = {e.move.uci(): e.weight for e in reader.find_all(castle)}
        assert got == {"e1g1": 50, "b7a8q": 30, "e1c1": 20}  # castling read back as e1g1
        assert reader.find(start).move == chess.Move.from_uci("e2e4")


def test_table_grows_over_runs_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "table.npz"
    table = BookTable()
    rng = np.random.default_rng(0)
    assert learn_line(table, chess.Board(), fake_search, 4, 1, rng, 1.0) == 4
    first = len(table.entries)
    table.save(path)
    again = BookTable.load(path)
    assert {k: (e.searches, e.value_sum, e.moves) for k, e in again.entries.items()} == {
        k: (e.searches, e.value_sum, e.moves) for k, e in table.entries.items()}
    # A second run follows the table where it knows the position, and searches new ones.
    for seed in range(5):
        learn_line(again, chess.Board(), fake_search, 4, 1, np.random.default_rng(seed), 1.0)
    assert len(again.entries) > first
    assert again.get(chess.Board()).searches == 1  # followed, not searched again
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left


def test_given_games_are_learned() -> None:
    table = BookTable()
    line = [chess.Move.from_uci(m) for m in ("g2g3", "g7g6", "f1g2")]
    learn_line(table, chess.Board(), fake_search, 10, 1, np.random.default_rng(0), 0.0,
               given=line)
    board = chess.Board()
    for m in line:
        assert table.get(board) is not None
        board.push(m)
    assert len(table.entries) == 3


def test_book_side_plays_the_heaviest_move_and_the_other_side_draws() -> None:
    """--book-side alternate: the book's side follows the table as the engine will (its
    heaviest move), so only the opponent's replies spread the games."""
    lines = set()
    for seed in range(12):
        table, board = BookTable(), chess.Board()
        learn_line(table, board, fake_search, 6, 1, np.random.default_rng(seed), 1.0,
                   book_side=chess.WHITE)
        line = [m.uci() for m in board.move_stack]
        replay = chess.Board()
        for k, uci in enumerate(line):
            if k % 2 == 0:  # White's: the first of fake_search's three (60%)
                assert uci == min(m.uci() for m in replay.legal_moves)
            replay.push_uci(uci)
        lines.add(tuple(line))
    assert len(lines) > 3  # Black's replies were drawn
    assert [book_side("alternate", g, 55) for g in (0, 54, 55, 109, 110)] == [
        chess.WHITE, chess.WHITE, chess.BLACK, chess.BLACK, chess.WHITE]
    assert book_side("both", 0, 55) is None


def test_book_command_runs_twice_and_resumes(tmp_path: Path, maia_path: Path) -> None:
    """The real command with the real search (a few nodes), twice: the table grows."""
    table, out = tmp_path / "t.npz", tmp_path / "b.bin"
    from trainer.__main__ import main

    argv = ["book", "--table", str(table), "--out", str(out), "--weights", str(maia_path),
            "--games", "2", "--plies", "3", "--nodes", "16"]
    sizes = []
    for _ in range(2):
        assert main(argv) == 0
        t = BookTable.load(table)
        sizes.append((len(t.entries), t.games, t.runs))
    assert sizes[0][1:] == (2, 1) and sizes[1][1:] == (4, 2)
    assert sizes[1][0] >= sizes[0][0] > 0
    with chess.polyglot.open_reader(out) as reader:
        assert any(True for _ in reader.find_all(chess.Board()))


def test_book_games_start_from_the_openings_given(tmp_path: Path, maia_path: Path) -> None:
    """--openings: game k starts from the k-th short line (cut to --opening-plies), whose own
    positions are learned too, and goes on by self-play to --plies."""
    pgn, table = tmp_path / "o.pgn", tmp_path / "t.npz"
    pgn.write_text('[Event "a"]\n\n1. g4 e5 2. f3 *\n\n[Event "b"]\n\n1. a4 h5 *\n\n'
                   '[Event "c"]\n\n1. g4 e5 2. Nc3 *\n')
    from trainer.__main__ import main

    assert main(["book", "--table", str(table), "--weights", str(maia_path), "--games", "2",
                 "--plies", "3", "--nodes", "8", "--openings", str(pgn)]) == 0
    t = BookTable.load(table)
    lines = [["g2g4", "e7e5"], ["a2a4", "h7h5"]]
    for line in lines:
        board = chess.Board()
        for uci in line:
            assert t.get(board) is not None
            board.push_uci(uci)
        assert t.get(board) is not None  # the third ply: self-play's
    assert len(t.entries) == 5 and t.games == 2
    for bad in (tmp_path / "missing.pgn", tmp_path / "t.npz"):  # no file; not a PGN
        with pytest.raises(SystemExit, match="--openings"):
            main(["book", "--table", str(table), "--weights", str(maia_path), "--games", "1",
                  "--openings", str(bad)])
    assert BookTable.load(table).runs == 1  # nothing written by the refused runs


def test_book_resumed_gives_the_same_bin_as_one_run(tmp_path: Path, maia_path: Path) -> None:
    """Four games in one run, the same four as 2 + 2 (killed and run again), and the one run
    again from the same seed: the same Polyglot file, byte for byte, with and without
    --openings (game k starts from line k however the games were split into runs)."""
    from trainer.__main__ import main

    pgn = tmp_path / "o.pgn"
    pgn.write_text('[Event "a"]\n\n1. g4 e5 *\n\n[Event "b"]\n\n1. a4 h5 *\n\n'
                   '[Event "c"]\n\n1. c4 c5 *\n')
    firsts = []
    for openings in ([], ["--openings", str(pgn)]):
        books = []
        for name, runs in (("one", [4]), ("split", [2, 2]), ("again", [4])):
            table, out = tmp_path / f"{name}.npz", tmp_path / f"{name}.bin"
            for games in runs:
                assert main(["book", "--table", str(table), "--out", str(out), "--weights",
                             str(maia_path), "--games", str(games), "--plies", "4", "--nodes",
                             "8", "--seed", "7", "--save-every", "1", *openings]) == 0
            assert BookTable.load(table).games == 4
            books.append(out.read_bytes())
            table.unlink()
        assert books[0] and books[0] == books[1] == books[2]
        firsts.append(books[0])
    assert firsts[0] != firsts[1]  # the lines given were played


def test_book_choice_and_variety(tmp_path: Path) -> None:
    table = BookTable()
    table.add_search(chess.Board(), 0.0, {chess.Move.from_uci("e2e4"): 0.6,
                                          chess.Move.from_uci("d2d4"): 0.4})
    path = tmp_path / "b.bin"
    table.write_polyglot(path)
    book = Book(str(path))
    rng = np.random.default_rng(1)
    assert {book.choose(chess.Board(), 0, rng).move.uci() for _ in range(20)} == {"e2e4"}
    assert {book.choose(chess.Board(), 100, rng).move.uci() for _ in range(40)} == {"e2e4",
                                                                                     "d2d4"}
    pick = book.choose(chess.Board(), 0, rng)
    assert pick is not None and (pick.weight, pick.total) == (60, 100)
    assert book.choose(chess.Board("8/8/8/8/8/8/k7/2K5 w - - 0 1"), 0, rng) is None
    with pytest.raises(ValueError, match="no such file"):
        Book(str(tmp_path / "missing.bin"))
    (tmp_path / "odd.bin").write_bytes(b"x" * 17)
    with pytest.raises(ValueError, match="not a Polyglot book"):
        Book(str(tmp_path / "odd.bin"))


# ------------------------------------------------------------------ dialogue


def test_own_book_dialogue(engine: EngineProcess, tmp_path: Path) -> None:
    table = BookTable()
    table.add_search(chess.Board(), 0.0, {chess.Move.from_uci("b2b3"): 1.0})
    path = tmp_path / "b.bin"
    table.write_polyglot(path)
    engine.send(f"setoption name BookFile value {path}")
    lines, best = engine.search("go nodes 30")  # OwnBook is off: a search
    assert not [s for s in lines if s.startswith("info string")]
    engine.send("setoption name OwnBook value true")
    engine.send("position startpos")
    lines, best = engine.search("go wtime 10000 btime 10000")
    assert lines == ["info string book move b2b3 (weight 100 of 100)", "bestmove b2b3"]
    engine.send("position startpos moves e2e4")  # not in the book: a search
    lines, best = engine.search("go nodes 30")
    assert [s for s in lines if s.startswith("info depth")]
    engine.send("setoption name BookDepth value 0")
    engine.send("position startpos")
    lines, _ = engine.search("go nodes 30")
    assert not [s for s in lines if s.startswith("info string book")]
    engine.send("setoption name BookDepth value 20")
    engine.send("setoption name UCI_AnalyseMode value true")  # analysis never uses the book
    lines, _ = engine.search("go nodes 30")
    assert not [s for s in lines if s.startswith("info string book")]
    engine.send(f"setoption name BookFile value {tmp_path / 'missing.bin'}")
    assert any("no such file" in s for s in engine.isready())


def test_the_bundled_net_ships_its_book(raw_engine: EngineProcess, maia_path: Path,
                                         tmp_path: Path) -> None:
    """BookFile <default> is the book beside the net (its name with .bin): the bundled net's
    own, so OwnBook alone plays its heaviest move; a net without one has no book."""
    from engine.evaluator import default_net_path
    from engine.options import book_path

    shipped = default_net_path().with_suffix(".bin")
    with chess.polyglot.open_reader(shipped) as reader:
        heaviest = reader.find(chess.Board()).move.uci()
    assert book_path("<default>", str(default_net_path())) == str(shipped)
    assert book_path("<default>", str(maia_path)) == ""
    assert book_path("<empty>", str(default_net_path())) == ""
    assert book_path(str(tmp_path / "x.bin"), str(maia_path)) == str(tmp_path / "x.bin")

    raw_engine.send("uci")
    declared, _ = raw_engine.read_until(lambda s: s == "uciok")
    assert "option name BookFile type string default <default>" in declared
    raw_engine.send("setoption name Threads value 1")
    raw_engine.send("setoption name OwnBook value true")
    raw_engine.send("position startpos")
    lines, best = raw_engine.search("go wtime 10000 btime 10000")
    assert lines[0].startswith(f"info string book move {heaviest} ")
    assert best == f"bestmove {heaviest}"
    raw_engine.send(f"setoption name WeightsFile value {maia_path}")  # no book beside it
    lines, _ = raw_engine.search("go nodes 30")
    assert [s for s in lines if s.startswith("info depth")]
    assert not [s for s in lines if s.startswith("info string book")]
