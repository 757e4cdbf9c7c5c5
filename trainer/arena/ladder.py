"""Zerosum against a ladder of opponents: a markdown table and a plot of how it fares.

``python -m trainer ladder --weights net.onnx --games 20 --tc 10+0.1 --out ladder-out``

The rungs, weakest first (``--rungs`` picks some by key):

=========  ===================================================================================
sunfish    ``sunfish-uci`` (pip's sunfish; a few hundred lines of Python)
sf1350 ..  Stockfish 15.1 with ``UCI_LimitStrength true`` and ``UCI_Elo`` 1350, 1500, 1800,
sf2200     2000, 2200 (1 thread, 16 MB hash)
maia1900   Zerosum itself running maia-1900 (``--maia-net``, e.g. ``shared/data/lc0/maia-1900.onnx``;
           same search, other net); left out when no net is given
=========  ===================================================================================

Every rung plays the same openings (each twice, colours swapped). The output directory gets
``ladder.md`` (the table), ``ladder.png`` (score and Elo difference per opponent, with 95%
intervals), ``ladder.json`` and one PGN per rung; the table and plot are rewritten after each
rung, so an interrupted ladder keeps what it played.

For the Stockfish rungs the table adds an "implied Elo" (``UCI_Elo`` plus the measured
difference). Stockfish calibrates ``UCI_Elo`` against CCRL-like engine ratings at its own time
controls, so this is a rough anchor, not a rating.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from engine.evaluator import default_net_path
from trainer.arena.match import (DEFAULT_OPENINGS, REPO, EngineSpec, FailureKind,
                           MatchResult, TimeControl, play_match,
                           stockfish_spec, sunfish_spec, zerosum_spec)
from trainer.arena.match_cli import key_values
from trainer.data.openings import load_openings

__all__ = ["Rung", "RungResult", "default_rungs", "ladder_main", "plot_ladder", "run_ladder",
           "write_table"]

STOCKFISH_ELOS = (1350, 1500, 1800, 2000, 2200)
BUNDLED_NET = default_net_path()


@dataclass(frozen=True)
class Rung:
    """An opponent: its key (for ``--rungs`` and file names), how to run it, and its nominal
    Elo if it has one (Stockfish's ``UCI_Elo``)."""

    key: str
    spec: EngineSpec
    elo: int | None = None


@dataclass
class RungResult:
    rung: Rung
    match: MatchResult

    @property
    def implied_elo(self) -> float | None:
        if self.rung.elo is None or not self.match.games:
            return None
        return self.rung.elo + self.match.elo.elo


def default_rungs(keys: Sequence[str] | None = None,
                  maia_net: str | os.PathLike[str] | None = None,
                  stockfish_elos: Sequence[int] = STOCKFISH_ELOS) -> list[Rung]:
    """The ladder (only ``keys``, in ladder order, if given). Opponents that are not installed
    raise FileNotFoundError when asked for by key and are left out (with a note) otherwise."""
    makers: list[tuple[str, object]] = [("sunfish", lambda: Rung("sunfish", sunfish_spec()))]
    for elo in stockfish_elos:
        makers.append((f"sf{elo}", lambda elo=elo: Rung(f"sf{elo}", stockfish_spec(elo), elo)))

    def maia() -> Rung:
        if maia_net is None or not Path(maia_net).is_file():
            raise FileNotFoundError("no --maia-net given" if maia_net is None
                                    else f"{maia_net} not found")
        return Rung("maia1900", zerosum_spec(maia_net, name=f"zerosum-{Path(maia_net).stem}"))

    makers.append(("maia1900", maia))
    known = [k for k, _ in makers]
    if keys is not None:
        unknown = [k for k in keys if k not in known]
        if unknown:
            raise ValueError(f"unknown rungs {unknown}; known: {', '.join(known)}")
    rungs: list[Rung] = []
    for key, make in makers:
        if keys is not None and key not in keys:
            continue
        try:
            rung = make()  # type: ignore[operator]
        except FileNotFoundError as exc:
            if keys is not None:
                raise
            print(f"note: rung {key} left out: {exc}", file=sys.stderr)
            continue
        rungs.append(rung)
    return rungs


def _fmt_elo(match: MatchResult) -> str:
    e = match.elo
    if not match.games:
        return "-"
    return f"{e.elo:+.0f} ± {e.error:.0f}" + (" *" if e.clamped else "")


def _fmt_failures(match: MatchResult, name: str) -> str:
    c = match.failure_counts(name)
    return f"{c[FailureKind.CRASH]}/{c[FailureKind.TIME]}/{c[FailureKind.ILLEGAL]}"


def _games_text(results: Sequence[RungResult], games: int) -> str:
    counts = {r.match.planned for r in results} or {games}
    if len(counts) == 1:
        return f"{counts.pop()} games per opponent"
    return "games per opponent as listed"


def write_table(engine: EngineSpec, results: Sequence[RungResult], path: str | os.PathLike[str],
                tc: TimeControl, games: int) -> str:
    """The ladder as a markdown table (written to ``path`` and returned)."""
    lines = [
        f"# Ladder: {engine.name}",
        "",
        f"Time control {tc}, {_games_text(results, games)} (openings played with both colours). "
        "W-D-L and score are "
        f"{engine.name}'s; Elo difference is {engine.name} minus the opponent, 95% interval.",
        "",
        "| opponent | games | W-D-L | score | Elo diff | implied Elo | "
        "crashes/time losses/illegal (ours; theirs) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    clamped = False
    for r in results:
        m = r.match
        e = m.elo
        clamped |= e.clamped
        implied = r.implied_elo
        lines.append(
            f"| {m.engine_b} | {len(m.games)} | {m.wins}-{m.draws}-{m.losses} | "
            f"{100 * e.score:.1f}% | {_fmt_elo(m)} | "
            f"{'-' if implied is None else f'{implied:.0f}'} | "
            f"{_fmt_failures(m, m.engine_a)}; {_fmt_failures(m, m.engine_b)} |")
    lines.append("")
    if clamped:
        lines.append("\\* a 0% or 100% score (or an interval reaching one): clamped half a game "
                     "inside, so the Elo is a bound, not an estimate (see trainer/arena/elo.py).")
        lines.append("")
    if any(r.rung.elo is not None for r in results):
        lines.append("Implied Elo: Stockfish's UCI_Elo plus the measured difference; a rough "
                     "anchor (UCI_Elo is calibrated at Stockfish's own time controls).")
        lines.append("")
    failures = [f for r in results for f in r.match.failures]
    if failures:
        lines.append("Failures:")
        lines.append("")
        lines.extend(f"- {r.match.engine_b}: {f}" for r in results for f in r.match.failures)
        lines.append("")
    text = "\n".join(lines)
    Path(path).write_text(text)
    return text


def plot_ladder(results: Sequence[RungResult], path: str | os.PathLike[str],
                title: str = "") -> None:
    """Score (%) and Elo difference per opponent with their 95% intervals, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    played = [r for r in results if r.match.games]
    names = [r.match.engine_b for r in played]
    x = list(range(len(played)))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(max(8.0, 1.6 * len(played) + 4), 4.5))
    scores, s_lo, s_hi, elos, e_lo, e_hi = [], [], [], [], [], []
    for r in played:
        e = r.match.elo
        n = max(1, len(r.match.games))
        sd = math.sqrt(max(0.0, _variance(r.match)) / n)
        scores.append(100 * e.score)
        s_lo.append(100 * min(e.score, 1.96 * sd))
        s_hi.append(100 * min(1.0 - e.score, 1.96 * sd))
        elos.append(e.elo)
        e_lo.append(max(0.0, e.elo - e.lower))
        e_hi.append(max(0.0, e.upper - e.elo))
    colors = ["tab:orange" if r.match.elo.clamped else "tab:blue" for r in played]
    ax1.bar(x, scores, yerr=[s_lo, s_hi], color=colors, capsize=4)
    ax1.axhline(50, color="grey", lw=0.8, ls="--")
    ax1.set_ylim(0, 100)
    ax1.set_ylabel("score (%)")
    ax1.set_title("score against each opponent")
    for xi, elo_, lo, hi, color in zip(x, elos, e_lo, e_hi, colors):
        ax2.errorbar([xi], [elo_], yerr=[[lo], [hi]], fmt="o", capsize=4, color=color)
    ax2.axhline(0, color="grey", lw=0.8, ls="--")
    ax2.set_ylabel("Elo difference (ours - theirs)")
    ax2.set_title("Elo difference, 95% interval")
    ax2.set_xlim(-0.5, len(played) - 0.5)
    if any(c == "tab:orange" for c in colors):
        fig.text(0.99, 0.01, "orange: 0%/100% score or interval clamped (a bound)",
                 ha="right", va="bottom", fontsize=7, color="tab:orange")
    for ax in (ax1, ax2):
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _variance(match: MatchResult) -> float:
    from trainer.arena.elo import per_game_variance

    return per_game_variance(match.wins, match.draws, match.losses)


def run_ladder(engine: EngineSpec, rungs: Sequence[Rung], *, games: int, tc: TimeControl | str,
               concurrency: int = 1, out_dir: str | os.PathLike[str],
               openings_path: str | None = str(DEFAULT_OPENINGS), opening_offset: int = 0,
               seed: int | None = None, max_plies: int | None = None, progress: bool = True,
               stall_timeout: float = 30.0, time_margin: float = 0.0,
               rung_games: Mapping[str, int] | None = None) -> list[RungResult]:
    """Play ``games`` games against each rung (``rung_games[key]`` for the rungs it names:
    the rung a claim rests on can get more games than the others); write the table, plot,
    JSON and PGNs."""
    if isinstance(tc, str):
        tc = TimeControl.parse(tc)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    per_rung = {r.key: (rung_games or {}).get(r.key, games) for r in rungs}
    most = max(per_rung.values(), default=games)
    openings = load_openings(openings_path, math.ceil(most / 2), opening_offset, seed)
    results: list[RungResult] = []
    for rung in rungs:
        match = play_match(engine, rung.spec, openings=openings, games=per_rung[rung.key], tc=tc,
                           concurrency=concurrency, pgn_path=out / f"{rung.key}.pgn",
                           max_plies=max_plies, progress=progress,
                           event=f"ladder {engine.name} vs {rung.spec.name}",
                           stall_timeout=stall_timeout, time_margin=time_margin)
        print(match.summary(), flush=True)
        results.append(RungResult(rung, match))
        write_table(engine, results, out / "ladder.md", tc, games)
        plot_ladder(results, out / "ladder.png", f"{engine.name}, {tc}, {_games_text(results, games)}")
        (out / "ladder.json").write_text(json.dumps(
            {"engine": engine.name, "tc": str(tc), "games_per_rung": per_rung,
             "rungs": [{"key": r.rung.key, "nominal_elo": r.rung.elo,
                        "implied_elo": r.implied_elo, **r.match.to_dict()} for r in results]},
            indent=2) + "\n")
        if match.interrupted:
            break
    return results


def build_ladder_parser(prog: str = "python -m trainer ladder") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--weights", help=f"Zerosum's net (default: the bundled {BUNDLED_NET.name})")
    p.add_argument("--name", help="our engine's name in the table")
    p.add_argument("--option", nargs="+", metavar="NAME=VALUE",
                   help="UCI options for our engine (e.g. Threads=1)")
    p.add_argument("--rungs", help="comma-separated rung keys (sunfish, sf1350, sf1500, sf1800, "
                                   "sf2000, sf2200, maia1900); default all")
    p.add_argument("--maia-net", help="the net of the maia1900 rung (e.g. "
                   "../shared/data/lc0/maia-1900.onnx; the rung is left out without it)")
    p.add_argument("--games", type=int, default=20, help="games per rung (20)")
    p.add_argument("--rung-games", nargs="+", metavar="KEY=N",
                   help="games for particular rungs (e.g. sf1500=100), overriding --games")
    p.add_argument("--tc", default="10+0.1", help="BASE+INC seconds or nodes=N (10+0.1)")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (1)")
    p.add_argument("--openings", default=str(DEFAULT_OPENINGS), help="opening PGN or 'none'")
    p.add_argument("--opening-offset", type=int, default=0)
    p.add_argument("--seed", type=int, help="random openings with this seed")
    p.add_argument("--max-plies", type=int, help="adjudicate a draw at this many plies")
    p.add_argument("--stall-timeout", type=float, default=30.0)
    p.add_argument("--time-margin", type=float, default=0.0)
    p.add_argument("--out", default="ladder-out", help="output directory (ladder-out)")
    p.add_argument("--no-progress", action="store_true")
    return p


def ladder_main(argv: list[str] | None = None) -> int:
    """``python -m trainer ladder ...``: run the ladder, print and write the table."""
    parser = build_ladder_parser()
    args = parser.parse_args(argv)
    try:
        tc = TimeControl.parse(args.tc)
        weights = args.weights
        if weights is None:
            weights = str(BUNDLED_NET)
        engine = zerosum_spec(weights, name=args.name)  # refuses a missing net
        engine = dataclasses.replace(engine, options={**engine.options,
                                                      **key_values(args.option)})
        keys = [k.strip() for k in args.rungs.split(",") if k.strip()] if args.rungs else None
        rungs = default_rungs(keys, maia_net=args.maia_net)
        rung_games = {k: int(v) for k, v in key_values(args.rung_games).items()}
        bad = [k for k, n in rung_games.items() if k not in {r.key for r in rungs} or n < 1]
        if bad:
            raise ValueError(f"--rung-games: {bad} are not rungs being played or not >= 1")
        if not rungs:
            raise ValueError("no opponents to play")
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    t0 = time.perf_counter()
    results = run_ladder(engine, rungs, games=args.games, tc=tc, concurrency=args.concurrency,
                         out_dir=args.out, openings_path=args.openings,
                         opening_offset=args.opening_offset, seed=args.seed,
                         max_plies=args.max_plies, progress=not args.no_progress,
                         stall_timeout=args.stall_timeout, time_margin=args.time_margin,
                         rung_games=rung_games)
    print()
    print(Path(args.out, "ladder.md").read_text())
    print(f"wrote {args.out}/ladder.md, ladder.png, ladder.json and one PGN per opponent "
          f"({time.perf_counter() - t0:.0f} s)")
    return 130 if any(r.match.interrupted for r in results) else 0


if __name__ == "__main__":
    sys.exit(ladder_main(sys.argv[1:]))
