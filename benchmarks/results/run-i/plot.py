"""Run i's Elo against generation 0 (sp1v) by generation, from the match JSONs beside this file:
at 10+0.1 (F's two 200-game halves pooled) and at fixed nodes, with 95% intervals. The clock's
matches are kept apart by machine: F-G4 ran on a 2-core Intel Xeon (AVX-512, AMX), G4 again and
G13 on a 2-core AMD EPYC with AVX2 only, where a 10+0.1 move gets about 240 nodes (section 40)
with two games at a time and one onnxruntime thread each, about 350 with one game at a time and
the engine's default two threads (section 41).
A match stopped before its end counts with its games so far (its .pgn.partial.gz).
    python benchmarks/results/run-i/plot.py        (writes elo-by-generation.png and prints the table)"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import chess.pgn
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from trainer.arena.elo import elo_estimate  # noqa: E402

HERE = Path(__file__).resolve().parent
# trained with the value-only Stockfish anchor (section 28)
ANCHORED = {"G2m", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "G10", "G11", "G12", "G13"}
# (generation, arm, positions in all, clock matches, fixed-node matches; those missing skipped)
ARMS = [(1, "F", 179_746, ["F-tc", "F-tc-b"], ["F-n100"]),
        (2, "G2", 269_803, ["G2-tc"], ["G2-n400"]),
        (2, "G2m", 269_803, ["G2m-tc"], ["G2m-n400", "G2m-n400-b"]),
        (3, "G3", 350_549, ["G3-tc"], ["G3-n400", "G3-n400-b"]),
        (4, "G4", 437_101, ["G4-tc"], ["G4-n400", "G4-n400-b"]),
        (5, "G5", 493_123, ["G5-tc"], ["G5-n400", "G5-n400-b"]),
        (6, "G6", 553_892, ["G6-tc"], ["G6-n400", "G6-n400-b"]),
        (7, "G7", 610_747, ["G7-tc"], ["G7-n400", "G7-n400-b"]),
        (8, "G8", 668_167, ["G8-tc"], ["G8-n400", "G8-n400-b"]),
        (9, "G9", 746_293, ["G9-tc"], ["G9-n400", "G9-n400-b"]),
        (10, "G10", 779_926, ["G10-tc"], ["G10-n400", "G10-n400-b"]),
        (11, "G11", 853_742, ["G11-tc"], ["G11-n400", "G11-n400-b"]),
        (12, "G12", 910_410, ["G12-tc"], ["G12-n400", "G12-n400-b"]),
        (13, "G13", 1_004_236, [], ["G13-n400", "G13-n400-b"])]
# the same kind of clock matches on the AVX2-only AMD machine
AMD_TC = {"G4": ["G4-tc-again"], "G13": ["G13-tc"]}
# and there one game at a time, both engines at their default options (evaluate.sh's ONE=1)
AMD_C1 = {"G4": ["G4-tc-c1"], "G13": ["G13-tc-c1"]}


def partial_score(path: Path, arm: str) -> tuple[int, int, int]:
    """Wins, draws, losses of run-i-ARM in a stopped match's .pgn.partial.gz."""
    w = d = l = 0
    with gzip.open(path, "rt", encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            result, white = game.headers["Result"], game.headers["White"] == f"run-i-{arm}"
            d += result == "1/2-1/2"
            w += result == ("1-0" if white else "0-1")
            l += result == ("0-1" if white else "1-0")
    return w, d, l


def pooled(names: list[str], arm: str) -> tuple[int, int, int, float, float, bool]:
    """Wins, draws, losses over the matches (a stopped one's games so far), the Elo with its
    95% half-width, and whether a stopped match was counted."""
    w = d = l = 0
    stopped = False
    for n in names:
        if (HERE / f"{n}.json").is_file():
            m = json.loads((HERE / f"{n}.json").read_text())
            w, d, l = w + m["wins"], d + m["draws"], l + m["losses"]
        elif (HERE / f"{n}.pgn.partial.gz").is_file():
            pw, pd, pl = partial_score(HERE / f"{n}.pgn.partial.gz", arm)
            w, d, l, stopped = w + pw, d + pd, l + pl, True
    est = elo_estimate(w, d, l)
    return w, d, l, est.elo, est.error, stopped


def main() -> None:
    fig, ax = plt.subplots(figsize=(7.6, 4.6))
    ax.axhline(0, color="grey", lw=0.8)
    ax.axhline(50, color="grey", lw=0.8, ls=":")
    print("| gen | net | positions in all | 10+0.1 vs sp1v (Xeon) | 10+0.1 vs sp1v (AMD AVX2) "
          "| 10+0.1, one game at a time, defaults (AMD) | fixed nodes vs sp1v |")
    print("|---|---|---:|---|---|---|---|")
    labelled: set[str] = set()  # each series named once in the legend
    for gen, arm, pos, tc, nodes in ARMS:
        same = [a for g, a, *_ in ARMS if g == gen]  # arms of one generation side by side
        x = gen + 0.3 * (same.index(arm) - (len(same) - 1) / 2)
        cells, shown = [], []  # the table's cells; the Elos plotted, to place the label above
        series = ((tc, "C0", "10+0.1, Xeon", -0.15),
                  (AMD_TC.get(arm, []), "C2", "10+0.1, AMD AVX2", -0.05),
                  (AMD_C1.get(arm, []), "C3", "10+0.1, AMD, 1 game at a time", 0.05),
                  (nodes, "C1", "fixed nodes", 0.15))
        for names, colour, label, dx in series:
            w, d, l, elo, err, stopped = pooled(names, arm)
            if w + d + l == 0:  # not matched at this control
                cells.append("-")
                continue
            shown.append(elo)
            marker = "s" if arm in ANCHORED else "o"
            ax.errorbar(x + dx, elo, yerr=err, fmt=marker, color=colour, capsize=3,
                        label=label if label not in labelled else None)
            labelled.add(label)
            cells.append(f"{elo:+.1f} ± {err:.1f} ({w + d + l} g.{', so far' if stopped else ''})")
        if shown:  # an arm not yet matched at either control gets a table row only
            ax.annotate(arm, (x, max(shown) + 12), ha="center")
        print(f"| {gen} | {arm} | {pos:,} | {' | '.join(cells)} |")
    ax.plot([0], [0], "ko")
    ax.annotate("sp1v", (0, 12), ha="center")
    ax.set_xticks(sorted({0, *(a[0] for a in ARMS)}))
    totals = dict(sorted({gen: pos for gen, _, pos, *_ in ARMS}.items()))  # positions in all
    added = [f"{gen}: +{pos - totals[gen - 1]:,}" for gen, pos in totals.items() if gen > 1]
    half = (len(added) + 1) // 2  # the positions each generation added, on two lines
    ax.set_xlabel(f"generation (F: {totals[1]:,} positions; {'; '.join(added[:half])};\n"
                  f"{'; '.join(added[half:])})", fontsize=8)
    ax.set_ylabel("Elo against generation 0 (sp1v)")
    ax.set_title("Run i: F at 100 nodes, later ones at 400; squares: value-only anchor")
    ax.set_ylim(bottom=-140)  # room for the legend under the points
    ax.legend(loc="lower right", fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(HERE / "elo-by-generation.png", dpi=110)


if __name__ == "__main__":
    main()
