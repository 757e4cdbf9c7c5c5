"""Time management: how long to think on a move, from the `go` command's clock fields.

The budget is two numbers: ``target``, what a move should normally take, and ``hard``, what it may
take when the search is unsure (smart pruning stops earlier when the best move is settled). Both
leave ``overhead`` for the GUI round trip, so the engine never loses on time. The search can stop
only between network batches; the controller counts the batch in flight against ``hard`` and,
at a short clock, sends smaller batches (controller.BATCH_SHARE).

Time that smart pruning saved on the previous move can be handed to this one (``saved``, lc0's
SpendSavedTime): otherwise it only trickles back through the clock, a share per move still to
play. Without it, 100 games at 10+0.1 against Stockfish ended with a median 3.1 s of our 10 s
unspent, and 0.4 s of Stockfish's (benchmarks/results/sf1800). The default overhead, 30 ms, is
well over our match runner's round trip: the smallest clock drop in 5,496 moves, thinking
included, was 8 ms.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GoLimits:
    """The arguments of a UCI `go` command; times in milliseconds, None when absent."""

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    movetime: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: tuple[str, ...] = ()


@dataclass(frozen=True)
class Budget:
    """Seconds to think: ``target`` normally, never past ``hard``."""

    target: float
    hard: float


MIN_THINK = 0.005
"""Seconds: even with no time left a move gets a first network evaluation."""

HORIZON = 24
"""Moves a sudden-death clock is shared over at the start of the game (ply 0); the UCI option
TimeHorizon, so that a tuning can move it."""

MIN_HORIZON = 12
"""The fewest moves a sudden-death clock is shared over, however long the game has gone on (the
option TimeMinHorizon)."""

LAG_HORIZON = 60
"""Moves the overhead is kept back for when the increment does not cover it (sudden death with no
or a tiny increment): each of them draws on the clock, however many moves the thinking is spread
over."""


def budget(limits: GoLimits, white: bool, ply: int, overhead_ms: int, saved: float = 0.0,
           horizon: int = HORIZON, min_horizon: int = MIN_HORIZON) -> Budget | None:
    """The thinking time for the side to move, or None when the clock sets no limit. ``saved``:
    seconds added to the clock's target (time left over from earlier moves), within the same
    ceiling as the rest, so it never brings the flag nearer than the budget alone could.
    ``horizon`` and ``min_horizon``: HORIZON's and MIN_HORIZON's values for this search."""
    overhead = overhead_ms / 1000.0
    if limits.movetime is not None:
        t = max(MIN_THINK, limits.movetime / 1000.0 - overhead)
        return Budget(t, t)
    left_ms = limits.wtime if white else limits.btime
    if left_ms is None:
        return None
    inc = (limits.winc if white else limits.binc) or 0
    left, inc_s = left_ms / 1000.0, inc / 1000.0
    # Moves still to play in this period: the GUI's count, else a guess that shrinks as the game
    # goes on but never below MIN_HORIZON, so a sudden-death game keeps a reserve. The guess is
    # short on purpose: games are decided in the middlegame. A longer one (40 moves, floor 20)
    # left half of a 10+0.1 clock unspent at the end of the game (ladder of zerosum-6x64); 32/15
    # with a 100 ms overhead still left 2.2 s, and 24/12 with 30 ms, which spends 1.5x as long
    # on moves 10-29, scored +27.9 +/- 56.8 against it (benchmarks/results/long-iG/time.md).
    moves = limits.movestogo if limits.movestogo else max(min_horizon, horizon - ply // 4)
    moves = max(1, min(moves, 60))
    # As Stockfish does: the increments still to come are counted, and the overhead is kept back
    # for every move still to play, not once, so latency cannot eat the clock over a long game.
    # Where the GUI counts the moves to a new period, or the increment pays for each move's
    # latency, the moves to play are those counted; where neither, a long game's (LAG_HORIZON).
    sudden = not limits.movestogo and inc_s < overhead
    reserve = (max(moves, LAG_HORIZON) if sudden else moves) + 2
    usable = max(0.0, left + inc_s * (moves - 1) - overhead * reserve)
    target = usable / moves
    hard = usable * 0.9 if moves == 1 else min(target * 3.0, usable * 0.3 + 0.5 * inc_s)
    ceiling = max(MIN_THINK, min(0.5 * (left - overhead), left - overhead - 0.1 * left)
                  if moves > 1 else 0.9 * (left - overhead))
    target = max(MIN_THINK, min(target + max(0.0, saved), ceiling))
    hard = max(target, min(hard, ceiling))
    return Budget(target, hard)
