"""Stockfish's MultiPV analysis over a plain pipe, for labelling at volume.

Why not ``chess.engine``: python-chess parses every ``info`` line in full, pushing each PV move
with a legality check, about 40 lines and several hundred moves a position at MultiPV 5. That
cost 4.3 ms of Python a position, as much as Stockfish's own search at 2,000 nodes, and it ran
on the same two cores. The labeller needs three things a line: the score, the WDL and the PV's
first move. This reader splits the last line of each PV and nothing else; python-chess still
owns the rules (the first move is checked against the board's legal moves) and every other use
of an engine in the project (matches, the tests' UCI client).
"""

from __future__ import annotations

import math
import subprocess
from types import TracebackType

import chess

MATE_CP = 10_000
"""the centipawn value of a mate in 0 (a mate in n scores MATE_CP - n; being mated, the
negative)."""

Analysis = tuple[list[chess.Move], list[float], list[float]]
"""Stockfish's top moves best first, their scores (centipawns for the side to move) and its
win/draw/loss estimate for the side to move at the first."""


class StockfishAnalyser:
    """One Stockfish process: ``analyse`` a board at a node or depth limit with MultiPV."""

    def __init__(self, path: str, threads: int = 1, hash_mb: int = 16) -> None:
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self._multipv = 0
        self._chess960 = False
        self._send("uci")
        self._read_until("uciok")
        for name, value in (("UCI_ShowWDL", "true"), ("Threads", threads), ("Hash", hash_mb)):
            self._send(f"setoption name {name} value {value}")
        self._send("isready")
        self._read_until("readyok")

    def _send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError as exc:
            raise RuntimeError(f"Stockfish exited (code {self.proc.poll()})") from exc

    def _read_until(self, prefix: str) -> list[str]:
        """The lines up to and including the first that starts with ``prefix``."""
        assert self.proc.stdout is not None
        lines = []
        for line in self.proc.stdout:
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise RuntimeError(f"Stockfish exited (code {self.proc.wait()}) before {prefix!r}")

    def new_game(self) -> None:
        """``ucinewgame``: Stockfish forgets its hash, so what follows depends only on what it
        is sent (a campaign's batch then follows from its seed alone)."""
        self._send("ucinewgame")
        self._send("isready")
        self._read_until("readyok")

    def analyse(self, board: chess.Board, multipv: int, nodes: int | None = None,
                depth: int | None = None) -> Analysis | None:
        """The top ``multipv`` moves of ``board`` (its move stack sent, so Stockfish sees the
        repetitions), or None when Stockfish gives no move (a finished game). A Chess960 board
        switches ``UCI_Chess960`` on (castling is then the king taking its own rook)."""
        if board.chess960 != self._chess960:
            self._send(f"setoption name UCI_Chess960 value {str(board.chess960).lower()}")
            self._chess960 = board.chess960
        if multipv != self._multipv:
            self._send(f"setoption name MultiPV value {multipv}")
            self._multipv = multipv
        root = board.root()
        moves = " ".join(m.uci() for m in board.move_stack)
        self._send(f"position fen {root.fen()}" + (f" moves {moves}" if moves else ""))
        limits = (f" nodes {nodes}" if nodes else "") + (f" depth {depth}" if depth else "")
        self._send("go" + (limits or " depth 10"))
        last: dict[int, list[str]] = {}
        for line in self._read_until("bestmove"):
            if line.startswith("info") and " pv " in line and " score " in line:
                tokens = line.split()
                k = int(tokens[tokens.index("multipv") + 1]) if "multipv" in tokens else 1
                last[k] = tokens
        return parse_lines(board, [last[k] for k in sorted(last)])

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout=5)
            except (RuntimeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> StockfishAnalyser:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def parse_lines(board: chess.Board, lines: list[list[str]]) -> Analysis | None:
    """The moves, scores and first WDL of split ``info`` lines (best first); a line whose first
    move is not legal on ``board`` is dropped."""
    moves: list[chess.Move] = []
    cps: list[float] = []
    wdl: list[float] | None = None
    for tokens in lines:
        i = tokens.index("score")
        kind, value = tokens[i + 1], int(tokens[i + 2])
        if kind == "cp":
            cp = float(value)
        else:  # mate in ``value`` moves (negative: being mated)
            cp = float(MATE_CP - value if value > 0 else -MATE_CP - value)
        move = chess.Move.from_uci(tokens[tokens.index("pv") + 1])
        if not board.is_legal(move):
            continue
        if wdl is None and "wdl" in tokens:
            j = tokens.index("wdl")
            wdl = [int(tokens[j + 1]) / 1000.0, int(tokens[j + 2]) / 1000.0,
                   int(tokens[j + 3]) / 1000.0]
        moves.append(move)
        cps.append(cp)
    if not moves:
        return None
    if wdl is None:  # an engine without UCI_ShowWDL: a logistic guess from the score
        q = math.tanh(cps[0] / 400.0)
        wdl = [(1 + q) / 2, 0.0, (1 - q) / 2]
    return moves, cps, wdl
