"""How well nets agree with Stockfish's labels on held-out positions (no search).

    python benchmarks/heldout.py --nets nets/zerosum-6x64.onnx OTHER.onnx --records DIR [DIR ...]

One JSON line per net with the figures of :mod:`trainer.arena.heldout` (value MAE, policy top-1, value
correlation, mean value sizes, policy cross-entropy, the policy's mean top probability and
entropy), the ones the nets' cards quote.
"""

from __future__ import annotations

import argparse
import json

from trainer.arena.heldout import agreement, record_files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nets", nargs="+", required=True)
    ap.add_argument("--records", nargs="+", required=True, help="record directories or files")
    a = ap.parse_args()
    try:
        files = record_files(a.records)
    except ValueError as exc:
        raise SystemExit(str(exc))
    for net in a.nets:
        print(json.dumps({"net": net, **agreement(net, files)}))


if __name__ == "__main__":
    main()
