"""The UCI loop: parses commands, drives the controller, writes replies.

Parsing is pure (``parse_go``, ``parse_position``, ``parse_setoption``) and kept apart from I/O.
A malformed or illegal command is answered with ``info string <reason>`` and changes nothing;
the loop keeps reading while the search runs in its own thread, so ``stop`` acts at once.
"""

from __future__ import annotations

import sys
import threading
from typing import TextIO

from engine.controller import Controller, MoveReport, SearchInfo
from engine.evaluator import NetError
from engine.options import BY_NAME, OPTIONS, Value, defaults, to_settings
from engine.timeman import GoLimits

ENGINE_NAME = "Zerosum 0.1"
AUTHOR = "the Zerosum developers"

_GO_INT = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime")
_GO_FLAG = ("infinite", "ponder")


class UciError(ValueError):
    """A command that cannot be carried out; its message goes out as an info string."""


def parse_go(tokens: list[str]) -> GoLimits:
    """The limits of ``go`` (tokens after the word go)."""
    fields: dict[str, object] = {}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in _GO_INT:
            if i + 1 >= len(tokens):
                raise UciError(f"go: {tok} needs a value")
            try:
                value = int(tokens[i + 1])
            except ValueError:
                raise UciError(f"go: {tok} takes an integer, not {tokens[i + 1]!r}") from None
            if value < 0 and tok not in ("wtime", "btime"):
                raise UciError(f"go: {tok} cannot be negative")
            fields[tok] = max(value, 0)
            i += 2
        elif tok in _GO_FLAG:
            fields[tok] = True
            i += 1
        elif tok == "searchmoves":
            moves = []
            i += 1
            while i < len(tokens) and tokens[i] not in _GO_INT + _GO_FLAG:
                moves.append(tokens[i])
                i += 1
            fields["searchmoves"] = tuple(moves)
        else:
            raise UciError(f"go: unknown argument {tok!r}")
    return GoLimits(**fields)  # type: ignore[arg-type]


def parse_position(tokens: list[str]) -> tuple[str | None, list[str]]:
    """(FEN or None for the start position, moves) of ``position`` (tokens after position)."""
    if not tokens:
        raise UciError("position: expected startpos or fen")
    if "moves" in tokens:
        k = tokens.index("moves")
        spec, moves = tokens[:k], tokens[k + 1:]
    else:
        spec, moves = tokens, []
    if spec == ["startpos"]:
        return None, moves
    if spec and spec[0] == "fen" and len(spec) >= 2:
        fen = " ".join(spec[1:])
        if len(spec) - 1 == 4:  # halfmove clock and move number left out
            fen += " 0 1"
        return fen, moves
    raise UciError(f"position: cannot read {' '.join(spec)!r}; expected startpos or fen <FEN>")


def parse_setoption(tokens: list[str]) -> tuple[str, str | None]:
    """(name, value or None) of ``setoption name <id> [value <x>]``."""
    if not tokens or tokens[0] != "name":
        raise UciError("setoption: expected 'name <id> [value <x>]'")
    if "value" in tokens:
        k = tokens.index("value")
        name, value = " ".join(tokens[1:k]), " ".join(tokens[k + 1:])
    else:
        name, value = " ".join(tokens[1:]), None
    if not name:
        raise UciError("setoption: the option name is missing")
    return name, value


def format_move_stats(r: MoveReport) -> str:
    """lc0's VerboseMoveStats line (without its policy index and U/S columns): visits N, prior
    P, expected score Q, win/draw/loss probabilities, plies left M, and the score; (T) when
    proven."""
    head = f"info string {r.move:<5} N: {r.visits:7d} (P: {100 * r.prior:5.2f}%)"
    if r.visits == 0 and not r.proven:
        return head + " (Q: -.-----)"  # never searched: no value to show
    w, d, loss = r.wdl
    return (f"{head} (Q: {r.q:+.5f}) (W: {w:.3f}) (D: {d:.3f}) (L: {loss:.3f}) "
            f"(M: {r.m:5.1f}) ({r.score.uci()})" + (" (T)" if r.proven else ""))


def format_info(info: SearchInfo, show_wdl: bool) -> list[str]:
    out = []
    if info.currmove is not None:
        out.append(f"info currmove {info.currmove[0]} currmovenumber {info.currmove[1]}")
    out.extend(format_move_stats(r) for r in info.move_stats)
    tb = "" if info.tbhits is None else f" tbhits {info.tbhits}"
    for line in info.lines:
        parts = [f"info depth {info.depth} seldepth {info.seldepth} time {info.time_ms}",
                 f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull}{tb}",
                 f"multipv {line.multipv} score {line.score.uci()}"]
        if show_wdl:
            parts.append("wdl {} {} {}".format(*line.wdl))
        if line.pv:
            parts.append("pv " + " ".join(line.pv))
        out.append(" ".join(parts))
    return out


class UciEngine:
    """One engine session over a text stream."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._out_lock = threading.Lock()
        self.values: dict[str, Value] = defaults()
        self.debug = False
        settings, params = to_settings(self.values)
        self.controller = Controller(self._on_info, self._on_bestmove, self.info_string,
                                     settings, params)

    # --------------------------------------------------------------- output

    def send(self, line: str) -> None:
        with self._out_lock:
            self._out.write(line + "\n")
            self._out.flush()

    def info_string(self, text: str) -> None:
        self.send(f"info string {text}")

    def _on_info(self, info: SearchInfo) -> None:
        for line in format_info(info, bool(self.values["UCI_ShowWDL"])):
            self.send(line)

    def _on_bestmove(self, move: str, ponder: str | None) -> None:
        self.send(f"bestmove {move}" + (f" ponder {ponder}" if ponder else ""))

    # ------------------------------------------------------------- commands

    def handle(self, line: str) -> bool:
        """Carries out one command line; False after quit."""
        tokens = line.strip().split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        try:
            if cmd == "quit":
                self.controller.wait()
                return False
            handler = getattr(self, f"_cmd_{cmd}", None)
            if handler is None:
                raise UciError(f"unknown command {cmd!r}")
            handler(args)
        except (UciError, NetError, ValueError) as exc:
            self.info_string(str(exc))
        return True

    def _cmd_uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {AUTHOR}")
        for opt in OPTIONS:
            self.send(opt.declaration())
        self.send("uciok")

    def _cmd_debug(self, args: list[str]) -> None:
        if args not in (["on"], ["off"]):
            raise UciError("debug: expected on or off")
        self.debug = args == ["on"]

    def _cmd_isready(self, args: list[str]) -> None:
        if not self.controller.is_searching():
            try:
                self.controller.load_net()
            except NetError as exc:
                self.info_string(str(exc))
        self.send("readyok")

    def _cmd_register(self, args: list[str]) -> None:
        pass  # free software: nothing to register

    def _cmd_ucinewgame(self, args: list[str]) -> None:
        self.controller.new_game()

    def _cmd_setoption(self, args: list[str]) -> None:
        name, text = parse_setoption(args)
        opt = BY_NAME.get(name.lower())
        if opt is None:
            raise UciError(f"setoption: unknown option {name!r}")
        if opt.kind == "button":
            if opt.name == "Clear Tree":
                self.controller.clear_tree()
            return
        if text is None:
            raise UciError(f"setoption: {opt.name} needs a value")
        self.controller.wait()
        values = dict(self.values)
        values[opt.name] = opt.parse(text)
        settings, params = to_settings(values)
        old = self.controller.settings, self.controller.params
        self.controller.configure(settings, params)
        if opt.name in ("WeightsFile", "Backend", "Precision", "NNThreads"):
            try:
                self.controller.load_net()
            except NetError:
                self.controller.configure(*old)  # keep the net that works
                raise
        self.values = values

    def _cmd_position(self, args: list[str]) -> None:
        fen, moves = parse_position(args)
        # A GUI sends stop then position at once, and position ends any search (the GUI would
        # send stop first); either way the old search finishes and answers before we go on.
        self.controller.wait()
        self.controller.set_position(fen, moves)

    def _cmd_go(self, args: list[str]) -> None:
        limits = parse_go(args)
        self.controller.wait()
        try:
            self.controller.go(limits)
        except NetError as exc:
            self.info_string(str(exc))
            self.send("bestmove (none)")
        except ValueError as exc:
            self.info_string(str(exc))
            self.send("bestmove (none)")

    def _cmd_stop(self, args: list[str]) -> None:
        self.controller.stop()

    def _cmd_ponderhit(self, args: list[str]) -> None:
        self.controller.ponderhit()

    def run(self, stream: TextIO) -> None:
        for line in stream:
            if not self.handle(line):
                return
        self.controller.wait()


def main(argv: list[str] | None = None) -> int:
    """`zerosum` / `python uci_main.py`: a UCI engine on stdin/stdout; `bench` measures speed."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "bench":
        from engine.bench import main as bench_main

        return bench_main(argv[1:])
    if argv:
        print(f"usage: zerosum [bench --help]; unknown arguments {argv}", file=sys.stderr)
        return 2
    UciEngine(sys.stdout).run(sys.stdin)
    return 0
