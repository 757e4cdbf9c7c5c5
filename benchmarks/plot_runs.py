"""Elo against generation 0 by generation, for one or more self-play runs in one plot.

    PYTHONPATH=. python benchmarks/plot_runs.py --runs runs/rl-gumbel-e runs/rl-gumbel-f \
        --out benchmarks/results/selfplay-runs-elo.png

Each run's per-generation history (``history/gen-*.json``, written by the loop) holds its
evaluation against generation 0: the Elo difference and its 95% interval, drawn as error bars.
Runs with the same games and evaluation per generation compare at equal compute. A run evaluated
after the fact (``benchmarks/gpu_loop.sh`` runs) names its match files as ``RUN:MATCH_DIR``
(``MATCH_DIR/gen-NNNN.json`` from ``trainer match --json``, as ``run_table.py --matches``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from run_table import reference_result


def elo_by_generation(run: Path, matches: Path | None = None
                      ) -> list[tuple[int, float, float, float]]:
    """(generation, Elo vs generation 0, lower and upper end of its 95% interval) for every
    evaluated generation."""
    out = []
    for p in sorted((run / "history").glob("gen-*.json")):
        h = json.loads(p.read_text())
        ref = reference_result(h, matches)
        if ref:
            elo, err = float(ref["elo"]), float(ref["error"])
            out.append((int(h["generation"]), elo, float(ref.get("lower", elo - err)),
                        float(ref.get("upper", elo + err))))
    return out


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", nargs="+", required=True,
                    help="loop --dir of each run, or RUN:MATCH_DIR")
    ap.add_argument("--out", required=True, help="PNG to write")
    a = ap.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, spec in enumerate(a.runs):
        run, _, match_dir = spec.partition(":")
        rows = elo_by_generation(Path(run), Path(match_dir) if match_dir else None)
        if not rows:
            continue
        shift = (i - (len(a.runs) - 1) / 2) * 0.12  # side by side, bars apart
        ax.errorbar([r[0] + shift for r in rows], [r[1] for r in rows],
                    yerr=[[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]],
                    marker="o", capsize=3, label=Path(run).name)
        print(Path(run).name, " ".join(f"{g}:{e:+.0f} [{lo:+.0f},{hi:+.0f}]"
                                       for g, e, lo, hi in rows))
    ax.axhline(0, color="grey", lw=0.8)
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo vs generation 0 (100 games, 100 nodes)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)


if __name__ == "__main__":
    main()
