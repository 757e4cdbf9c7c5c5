"""A self-play run's table by generation, from its history files (and held-out figures per net).

    PYTHONPATH=. python benchmarks/run_table.py --run runs/rl --heldout runs/sf-heldout

One markdown row per generation: self-play games and positions (and the running total, the
run's warm-start data counted first), training steps so far, the evaluation against generation
0 (W-D-L, Elo with its 95% interval), self-play positions per second, and with ``--heldout``
(Stockfish-labelled records kept out of training, trainer/arena/heldout.py) each generation's net's
policy top-1, value MAE and value correlation with Stockfish; a generation the loop measured
itself (``loop --heldout``) shows the figures in its history instead.

Runs whose games came from outside workers (``benchmarks/gpu_loop.sh``) and that were evaluated
afterwards: the games and positions are counted from the run's records, and ``--matches DIR``
takes each generation's result against generation 0 from ``DIR/gen-NNNN.json`` (a ``trainer
match --json`` file) where the history has none.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from trainer.arena.heldout import agreement
from trainer.data.records import Record, list_records, parse_name


def positions_in(dirs: list[str]) -> int:
    return sum(len(Record.load(p)) for d in dirs for p in list_records(Path(d)))


def records_by_generation(run: Path) -> dict[int, tuple[int, int]]:
    """(games, positions) of each generation, counted from the run's own records."""
    out: dict[int, tuple[int, int]] = {}
    for p in list_records(run / "games"):
        key = parse_name(p.name)
        if key is None:  # list_records also lists unnamed .npz files (labels): not a game
            continue
        games, pos = out.get(key[0], (0, 0))
        out[key[0]] = (games + 1, pos + len(Record.load(p)))
    return out


def reference_result(h: dict, matches: Path | None) -> dict | None:
    """The generation's evaluation against generation 0: the loop's own, else a match file's
    (renamed to the loop's keys)."""
    ref = h.get("evaluate", {}).get("reference")
    if ref or matches is None:
        return ref
    f = matches / f"gen-{h['generation']:04d}.json"
    if not f.exists():
        return None
    m = json.loads(f.read_text())
    return {"wins": m["wins"], "draws": m["draws"], "losses": m["losses"], "elo": m["elo"],
            "error": m["elo_error"], "lower": m["elo_lower"], "upper": m["elo_upper"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True, help="the loop's --dir")
    ap.add_argument("--heldout", nargs="*", default=[], help="Stockfish-labelled record dirs")
    ap.add_argument("--matches", help="gen-NNNN.json match results against generation 0")
    a = ap.parse_args()
    run = Path(a.run)
    matches = Path(a.matches) if a.matches else None
    counted: dict[int, tuple[int, int]] | None = None
    cfg = json.loads((run / "config.json").read_text())
    total = positions_in(cfg.get("extra_data", []))
    files = sorted(p for d in a.heldout for p in Path(d).glob("*.npz"))
    print(f"warm-start positions: {total}")
    head = "| gen | games | positions | total | steps | vs gen 0 W-D-L | Elo vs gen 0 | pos/s |"
    if files:
        head += " held-out top-1 | value MAE | value corr |"
        base = agreement(str(run / "nets" / "gen-0000.onnx"), files)
        print(f"generation 0 held-out: top-1 {base['policy_top1']:.3f}, "
              f"value corr {base['value_corr']:.3f} ({base['positions']} positions)")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for path in sorted((run / "history").glob("gen-*.json")):
        h = json.loads(path.read_text())
        parts = h.get("selfplay_parts", [])
        games = sum(p["games"] for p in parts)
        pos = sum(p["positions"] for p in parts)
        secs = sum(p["seconds"] for p in parts)
        if not parts:  # the games came from outside workers: count their records
            counted = counted if counted is not None else records_by_generation(run)
            games, pos = counted.get(h["generation"], (0, 0))
        total += pos
        ref = reference_result(h, matches)
        if ref:
            wdl = f"{ref['wins']}-{ref['draws']}-{ref['losses']}"
            elo = f"{ref['elo']:+.0f} ± {ref['error']:.0f}"
        else:
            wdl = elo = "-"
        row = (f"| {h['generation']} | {games} | {pos:,} | {total:,} | "
               f"{h.get('train', {}).get('step', '-')} | {wdl} | {elo} | "
               + (f"{pos / secs:.0f} |" if secs else "- |"))
        net = run / "nets" / f"gen-{h['generation']:04d}.onnx"
        m = h.get("heldout") or (agreement(str(net), files) if files and net.exists() else None)
        if files:
            row += (f" {m['policy_top1']:.3f} | {m['value_mae']:.3f} | {m['value_corr']:.3f} |"
                    if m else " - | - | - |")
        print(row)


if __name__ == "__main__":
    main()
