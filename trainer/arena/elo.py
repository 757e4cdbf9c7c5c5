"""Match statistics: score, Elo difference with a 95% interval, LOS, and the SPRT.

Pure functions on win/draw/loss counts (from the first engine's point of view); no I/O.

Elo is the *logistic* Elo of the score ``s`` (the expected points per game):
``elo(s) = -400 * log10(1/s - 1)`` and back ``s(elo) = 1 / (1 + 10**(-elo/400))``.

The interval is the normal approximation used by cutechess-cli and fastchess: the per-game score
variance from the observed win/draw/loss frequencies, ``var = fw*(1-s)^2 + fd*(1/2-s)^2 +
fl*(0-s)^2``, the standard deviation of the mean score ``sqrt(var / N)``, the interval
``s +/- 1.96 * sd`` on the score, and both ends mapped through ``elo()``. The reported margin is
half the width of the mapped interval, as cutechess prints it.

A score of exactly 0% or 100% has infinite Elo. Here it is clamped to half a game off the edge,
``1/(2N)`` or ``1 - 1/(2N)``, the estimate is flagged ``clamped`` with a note saying so, and the
interval (degenerate: every game gave the same result) is replaced by the "rule of three"
one-sided 95% bound: with no non-wins in N games the rate of non-wins is below ``3/N``, so the
score is at least ``1 - 3/N`` (mirrored for 0%). Interval ends that leave ``(0, 1)`` otherwise are
clamped to the same half-game edges and flagged too.

The SPRT is fishtest's simplified GSPRT on logistic Elo (Michel Van den Bergh's normal
approximation of the generalized log-likelihood ratio, ``LLR_logistic`` in fishtest's
``stat_util``): with ``s0 = s(elo0)``, ``s1 = s(elo1)``, the observed mean score ``x`` and
per-game variance ``var`` (trinomial, each zero count replaced by 1e-3 as fishtest's
``regularize`` does so that the variance never vanishes),

    LLR = N * (s1 - s0) * (2x - s0 - s1) / (2 var)

(the log-likelihood ratio of two normal laws with means s1 and s0 and the common variance var/N,
at the observed mean x). It is compared with Wald's bounds ``log(beta / (1 - alpha))`` (accept
H0: the difference is ``elo0``) and ``log((1 - beta) / alpha)`` (accept H1: it is ``elo1``);
between them the test continues.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

__all__ = [
    "EloEstimate", "SprtDecision", "SprtResult", "Z95", "elo_estimate", "elo_from_score",
    "los", "per_game_variance", "score", "score_from_elo", "sprt", "sprt_bounds", "sprt_llr",
]

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal law
REGULARIZE_EPS = 1e-3     # what fishtest puts in place of a zero count before the SPRT


def _check_counts(wins: float, draws: float, losses: float) -> float:
    if min(wins, draws, losses) < 0:
        raise ValueError(f"counts must not be negative: W={wins} D={draws} L={losses}")
    return wins + draws + losses


def score(wins: float, draws: float, losses: float) -> float:
    """The mean points per game, ``(W + D/2) / N``; 0.5 when no game was played."""
    n = _check_counts(wins, draws, losses)
    return 0.5 if n == 0 else (wins + 0.5 * draws) / n


def elo_from_score(s: float) -> float:
    """Logistic Elo difference of a score in (0, 1): ``-400 log10(1/s - 1)``.

    0.5 gives 0; 0.75 gives +190.8; 0 and 1 give -inf and +inf.
    """
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"a score lies in [0, 1], not {s}")
    if s == 0.0:
        return -math.inf
    if s == 1.0:
        return math.inf
    return 0.0 - 400.0 * math.log10(1.0 / s - 1.0)  # 0.0 - : no "-0.0" at 50%


def score_from_elo(elo: float) -> float:
    """The expected score of an Elo difference, ``1 / (1 + 10**(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def per_game_variance(wins: float, draws: float, losses: float) -> float:
    """The variance of one game's points (1, 1/2, 0) under the observed W/D/L frequencies."""
    n = _check_counts(wins, draws, losses)
    if n == 0:
        return 0.0
    s = score(wins, draws, losses)
    return (wins * (1.0 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its interval (``lower``, ``upper``) and half-width ``error``.

    ``clamped`` says a score or interval end at 0% or 100% was moved half a game inside;
    ``note`` says what was done ("" when nothing was).
    """

    games: int
    score: float
    elo: float
    lower: float
    upper: float
    error: float
    clamped: bool = False
    note: str = ""

    def __str__(self) -> str:
        text = f"{self.elo:+.1f} +/- {self.error:.1f}"
        return f"{text} ({self.note})" if self.note else text


def elo_estimate(wins: int, draws: int, losses: int, z: float = Z95) -> EloEstimate:
    """Elo difference and its ``z``-sigma interval (95% by default) from W/D/L counts.

    See the module docstring for the method (cutechess's) and the clamping at 0% and 100%.
    No games gives 0 +/- inf.
    """
    n = int(_check_counts(wins, draws, losses))
    if n == 0:
        return EloEstimate(0, 0.5, 0.0, -math.inf, math.inf, math.inf, False, "no games")
    s = score(wins, draws, losses)
    edge = 0.5 / n                         # half a game off 0% / 100%
    lo_edge, hi_edge = edge, 1.0 - edge
    if s >= 1.0 or s <= 0.0:
        won = s >= 1.0
        point = hi_edge if won else lo_edge
        bound = min(max(1.0 - 3.0 / n if won else 3.0 / n, lo_edge), hi_edge)
        elo = elo_from_score(point)
        other = elo_from_score(bound)
        lower, upper = (other, elo) if won else (elo, other)
        pct = "100%" if won else "0%"
        note = (f"{pct} score: clamped to {point:.3f} (half a game off), so the Elo is "
                f"{'a lower' if won else 'an upper'} bound; interval by the rule of three")
        return EloEstimate(n, s, elo, lower, upper, (upper - lower) / 2.0, True, note)
    sd = math.sqrt(per_game_variance(wins, draws, losses) / n)
    s_lo, s_hi = s - z * sd, s + z * sd
    clamped = s_lo < lo_edge or s_hi > hi_edge
    s_lo, s_hi = max(s_lo, lo_edge), min(s_hi, hi_edge)
    lower, upper = elo_from_score(s_lo), elo_from_score(s_hi)
    note = ("interval clamped half a game inside 0%..100%" if clamped else
            "every game drawn: the interval has no width" if sd == 0.0 else "")
    return EloEstimate(n, s, elo_from_score(s), lower, upper, (upper - lower) / 2.0, clamped, note)


def los(wins: float, draws: float, losses: float) -> float:
    """Likelihood of superiority: ``0.5 * (1 + erf((W - L) / sqrt(2 (W + L))))``.

    The probability that the first engine is the stronger, from decisive games only (draws carry
    no information here); 0.5 when no game was decisive.
    """
    _check_counts(wins, draws, losses)
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


class SprtDecision(str, enum.Enum):
    """What the SPRT says: stop accepting H0 (elo0), stop accepting H1 (elo1), or go on."""

    ACCEPT_H0 = "accept H0"
    ACCEPT_H1 = "accept H1"
    CONTINUE = "continue"


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float
    upper: float
    decision: SprtDecision
    elo0: float
    elo1: float
    alpha: float
    beta: float

    def __str__(self) -> str:
        return (f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} "
                f"beta={self.beta:g}: LLR {self.llr:.3f} [{self.lower:.3f}, {self.upper:.3f}] "
                f"-> {self.decision.value}")


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's bounds on the LLR: ``(log(beta/(1-alpha)), log((1-beta)/alpha))``.

    alpha is the false-positive rate (accepting H1 when H0 holds), beta the false negative one.
    """
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise ValueError(f"alpha and beta lie in (0, 1), not {alpha}, {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(wins: float, draws: float, losses: float, elo0: float, elo1: float) -> float:
    """The simplified GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``).

    ``N (s1 - s0) (2x - s0 - s1) / (2 var)`` with logistic ``s0``, ``s1``, the mean score ``x``
    and the per-game variance ``var`` of the regularized counts (zero counts count as 1e-3).
    0 when no game was played.
    """
    n = _check_counts(wins, draws, losses)
    if n == 0:
        return 0.0
    w, d, l = (c if c > 0 else REGULARIZE_EPS for c in (wins, draws, losses))
    x = score(w, d, l)
    var = per_game_variance(w, d, l)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * x - s0 - s1) / (2.0 * var)


def sprt(wins: float, draws: float, losses: float, elo0: float, elo1: float,
         alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """The SPRT state after W/D/L: the LLR, Wald's bounds and the decision."""
    if elo1 <= elo0:
        raise ValueError(f"elo1 must exceed elo0 (got {elo0}, {elo1})")
    lower, upper = sprt_bounds(alpha, beta)
    llr = sprt_llr(wins, draws, losses, elo0, elo1)
    if llr >= upper:
        decision = SprtDecision.ACCEPT_H1
    elif llr <= lower:
        decision = SprtDecision.ACCEPT_H0
    else:
        decision = SprtDecision.CONTINUE
    return SprtResult(llr, lower, upper, decision, elo0, elo1, alpha, beta)
