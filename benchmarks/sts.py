"""The Strategic Test Suite (STS 1-15): points scored by the engine at a fixed time a position.

    python benchmarks/sts.py --epd ../shared/data/tactics/sts1-15_v3.epd --ms 100 \
        --net nets/zerosum-6x64-sp1.onnx --option Precision=fp32

Each STS position gives up to four moves with points (``c9``: the moves in UCI, ``c8``: their
points, 10 for the best); a move not listed scores 0. The engine is started as the match runner
starts it (``trainer.arena.match.zerosum_spec``) and driven through python-chess, one position at a
time with ``go movetime``, and ``ucinewgame`` between positions so that no tree is carried over.
``MoveOverhead`` is 10 ms unless given: the engine's default of 100 ms, kept back for a GUI's
round trip, would leave nothing of a 100 ms budget. Prints the points per theme (the ``id``
before its number) and in all, out of 10 per position, and the count of best moves.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import chess
import chess.engine

from trainer.arena.match import REPO, zerosum_spec
from trainer.arena.match_cli import key_values


def load_suite(path: Path) -> list[tuple[chess.Board, str, dict[str, int]]]:
    """(board, theme, points by UCI move) for each line of an STS file."""
    suite = []
    names: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        board, ops = chess.Board.from_epd(line)
        moves, points = str(ops["c9"]).split(), str(ops["c8"]).split()
        if len(moves) != len(points):
            raise ValueError(f"c8 and c9 differ in length: {line}")
        theme = str(ops.get("id", "?")).rsplit(".", 1)[0]
        # One line of STS 3 names its theme's words in another order: the "STS(vN)" tag decides.
        tag = theme.split(")", 1)[0]
        theme = names.setdefault(tag, theme)
        suite.append((board, theme, {m: int(p) for m, p in zip(moves, points)}))
    return suite


def run(net: str | None, options: dict[str, str], epd: Path, ms: int, limit: int | None,
        ) -> dict[str, object]:
    suite = load_suite(epd)[:limit]
    spec = zerosum_spec(net, **options)
    engine = chess.engine.SimpleEngine.popen_uci(spec.command, cwd=spec.cwd)
    engine.configure(spec.options)
    by_theme: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # points, best, positions
    start = time.monotonic()
    try:
        for i, (board, theme, points) in enumerate(suite):
            move = engine.play(board, chess.engine.Limit(time=ms / 1000), game=i).move
            got = points.get(move.uci(), 0) if move else 0
            row = by_theme[theme]
            row[0] += got
            row[1] += int(got == 10)
            row[2] += 1
    finally:
        engine.quit()
    total = [sum(r[k] for r in by_theme.values()) for k in range(3)]
    return {"net": net or "<default>", "options": options, "ms": ms, "positions": total[2],
            "points": total[0], "max_points": 10 * total[2], "best_moves": total[1],
            "seconds": round(time.monotonic() - start, 1),
            "themes": {t: {"points": r[0], "best": r[1], "positions": r[2]}
                       for t, r in by_theme.items()}}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epd", type=Path, default=REPO.parent / "shared/data/tactics/sts1-15_v3.epd")
    ap.add_argument("--net", action="append", default=None,
                    help="a net to test (repeat for several; default: the bundled net)")
    ap.add_argument("--option", nargs="+", default=[], metavar="NAME=VALUE",
                    help="UCI options for every run (e.g. Precision=fp32)")
    ap.add_argument("--ms", type=int, default=100, help="milliseconds a position (100)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N positions")
    ap.add_argument("--json", type=Path, default=None, help="also write the results here")
    args = ap.parse_args(argv)
    options = {"MoveOverhead": "10", **key_values(args.option)}
    results = []
    for net in args.net or [None]:
        res = run(net, options, args.epd, args.ms, args.limit)
        results.append(res)
        print(f"{res['net']}: {res['points']}/{res['max_points']} points, "
              f"{res['best_moves']}/{res['positions']} best moves, {res['seconds']} s", flush=True)
        themes = res["themes"]
        assert isinstance(themes, dict)
        for theme, t in themes.items():
            print(f"  {theme:40s} {t['points']:5d}/{10 * t['positions']:<5d} best {t['best']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
