"""``python -m trainer <command> ...`` (also installed as ``zerosum-train``).

Commands:
  pgn-data    parse PGN files into a training .npz
  pgn-train   supervised training on PGN games, exporting an ONNX net
  export      export a checkpoint to an ONNX net

Each command is a module-level ``add_*`` function registering a subparser whose ``func`` takes the
parsed arguments; to add one (selfplay, train, evaluate, loop), write its ``add_parser`` and list
it in ``COMMANDS``; heavy work is imported inside the command functions.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, Callable, Sequence


def _pgn_data(args: argparse.Namespace) -> Any:
    from trainer.pgn_data import PositionData

    data = PositionData.from_pgn(args.pgn)
    data.save(args.out)
    print(f"wrote {args.out}: {len(data)} positions from {data.num_games} games")


def add_pgn_data(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pgn-data", help="parse PGN files into a training .npz")
    p.add_argument("--pgn", nargs="+", required=True, help="PGN files")
    p.add_argument("--out", required=True, help="output .npz")
    p.set_defaults(func=_pgn_data)


def add_pgn_train(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.supervised").add_parser(sub)


def _export(args: argparse.Namespace) -> Any:
    import json

    from trainer.checkpoint import load_model
    from trainer.export import export_onnx

    model, state = load_model(args.checkpoint)
    meta = dict(state.get("metadata") or {})
    meta["steps"] = state["step"]
    for kv in args.meta or []:
        key, _, value = kv.partition("=")
        meta[key] = value
    diff = export_onnx(model, args.out, meta)
    print(json.dumps({"out": args.out, "steps": state["step"], "max_abs_diff": diff}))


def add_export(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export a checkpoint to an ONNX net")
    p.add_argument("checkpoint", help="checkpoint .pt")
    p.add_argument("out", help="output .onnx")
    p.add_argument("--meta", nargs="*", metavar="KEY=VALUE", help="extra metadata_props")
    p.set_defaults(func=_export)


COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [add_pgn_data, add_pgn_train, add_export]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zerosum-train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
