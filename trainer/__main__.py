"""Zerosum's trainer (``zerosum-train``, or ``python -m trainer``): make nets for the engine,
measure them, ship them.

Make a net
  distill      from Stockfish's labels alone: label, train, export, quantize; resumable
  loop         AlphaZero self-play from the bundled net by a recipe (trainer/recipes/); resumable
  sf-campaign  Stockfish-labelled games at volume, in the background; resumable
  train        train on records directories, export to ONNX
Measure it
  match        engine against engine at a clock: Elo with its 95% interval, SPRT
  ladder       the engine against sunfish, Stockfish at several UCI_Elo, maia-1900
  tune         SPSA over the search's UCI options by game pairs at a clock
Ship it
  quantize     the int8 copy that Precision auto plays on CPUs with int8 dot products
  export, average, book (an opening book learned by search, as a Polyglot .bin)
  grow         a larger net (more blocks, more filters) computing what a net computes
Other data and modes
  selfplay, sf-games, sf-label, endgames, pgn-data, pgn-train
  muzero-train, muzero-export (and loop --mode muzero)

A command's flags and defaults: python -m trainer COMMAND --help.
"""
# Each command is a module-level ``add_*`` function registering a subparser whose ``func`` takes
# the parsed arguments; to add one, write its ``add_parser`` and list it in ``COMMANDS``. Heavy
# work is imported inside the command functions, so that help stays fast.

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any, Callable, Sequence


def _pgn_data(args: argparse.Namespace) -> Any:
    from trainer.data.pgn_data import PositionData

    data = PositionData.from_pgn(args.pgn)
    data.save(args.out)
    print(f"wrote {args.out}: {len(data)} positions from {data.num_games} games")


def add_pgn_data(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pgn-data", help="parse PGN files into a training .npz")
    p.add_argument("--pgn", nargs="+", required=True, help="PGN files")
    p.add_argument("--out", required=True, help="output .npz")
    p.set_defaults(func=_pgn_data)


def add_pgn_train(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.learn.supervised").add_parser(sub)


def _export(args: argparse.Namespace) -> Any:
    import json

    from trainer.learn.checkpoint import load_model
    from trainer.learn.export import export_onnx

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


def add_average(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.learn.average").add_parser(sub)


def add_book(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.play.book").add_parser(sub)


def add_quantize(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.learn.quantize").add_parser(sub)


def add_grow(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.learn.grow").add_parser(sub)


def add_rl(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.cli_rl").add_subcommands(sub)


def add_campaign(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.data.campaign").add_parser(sub)


def add_distill(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.distill").add_parser(sub)


def add_tune(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.arena.tune").add_parser(sub)


def add_muzero(sub: argparse._SubParsersAction) -> None:
    importlib.import_module("trainer.muzero.cli").add_subcommands(sub)


# Commands whose modules parse their own arguments: ``<entry>(argv) -> int``. main() hands them
# the rest of the command line before argparse sees it (REMAINDER drops leading options).
PASSTHROUGH = {"match": ("trainer.arena.match_cli", "match_main"), "ladder": ("trainer.arena.ladder", "ladder_main")}


def _passthrough(name: str, text: str) -> Callable[[argparse._SubParsersAction], None]:
    def add(sub: argparse._SubParsersAction) -> None:
        sub.add_parser(name, help=text, add_help=False)
    return add


COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    add_pgn_data, add_pgn_train, add_export, add_quantize, add_average, add_grow, add_rl,
    add_campaign, add_distill, add_book, add_tune, add_muzero,
    _passthrough("match", "engine against engine, with Elo"),
    _passthrough("ladder", "the engine against a ladder"),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zerosum-train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="command")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in PASSTHROUGH:
        module, entry = PASSTHROUGH[argv[0]]
        return int(getattr(importlib.import_module(module), entry)(argv[1:]))
    args = build_parser().parse_args(argv)
    args._argv = argv[1:]  # the command's own arguments (a recipe yields to those given)
    result = args.func(args)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
