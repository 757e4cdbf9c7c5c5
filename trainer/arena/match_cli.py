"""``python -m trainer match``: the match runner's command line (trainer/arena/match.py plays)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

from trainer.data.books import DEFAULT_OPENINGS
from trainer.arena.match import (EngineSpec, GameRecord, TimeControl, play_match, stockfish_spec,
                           sunfish_spec, zerosum_spec)
from trainer.arena.match_pgn import played_games
from trainer.data.openings import Opening, chess960_openings, load_openings


def parse_engine_arg(tokens: Sequence[str]) -> EngineSpec:
    """``name=NAME cmd="COMMAND ARGS" [cwd=DIR] [option.KEY=VALUE ...]`` -> EngineSpec."""
    name: str | None = None
    cmd: list[str] | None = None
    cwd: str | None = None
    options: dict[str, Any] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep:
            raise ValueError(f"engine argument {token!r} is not KEY=VALUE")
        if key == "name":
            name = value
        elif key == "cmd":
            cmd = shlex.split(value)
        elif key == "cwd":
            cwd = value
        elif key.startswith("option."):
            options[key[len("option."):]] = value
        else:
            raise ValueError(f"engine argument {key!r}: want name, cmd, cwd or option.NAME")
    if not cmd:
        raise ValueError("an engine needs cmd=...")
    return EngineSpec(name or Path(cmd[0]).stem, cmd, options, cwd)


def key_values(items: Sequence[str] | None) -> dict[str, str]:
    """``NAME=VALUE`` items (UCI options on the command line) -> dict."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"{item!r} is not NAME=VALUE")
        out[key] = value
    return out


def build_match_parser(prog: str = "python -m trainer match") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description="Play an engine-vs-engine match and print the score and Elo.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Engine 1: --engine1 or --weights1. Engine 2: --engine2, --weights2, "
               "--stockfish-elo or --sunfish.\nExample: --weights1 a.onnx --stockfish-elo 1500 "
               "--tc 10+0.1 --games 20 --pgn out.pgn")
    g1 = p.add_mutually_exclusive_group(required=True)
    g1.add_argument("--engine1", nargs="+", metavar="KEY=VALUE",
                    help='name=NAME cmd="COMMAND" [cwd=DIR] [option.NAME=VALUE ...]')
    g1.add_argument("--weights1", help="engine 1 is Zerosum with this net")
    g2 = p.add_mutually_exclusive_group(required=True)
    g2.add_argument("--engine2", nargs="+", metavar="KEY=VALUE", help="as --engine1")
    g2.add_argument("--weights2", help="engine 2 is Zerosum with this net")
    g2.add_argument("--stockfish-elo", type=int, metavar="ELO",
                    help="engine 2 is Stockfish with UCI_LimitStrength at this UCI_Elo")
    g2.add_argument("--sunfish", action="store_true", help="engine 2 is sunfish-uci")
    p.add_argument("--option1", nargs="+", metavar="NAME=VALUE", help="extra UCI options, 1")
    p.add_argument("--option2", nargs="+", metavar="NAME=VALUE", help="extra UCI options, 2")
    p.add_argument("--name1", help="engine 1's name")
    p.add_argument("--name2", help="engine 2's name")
    p.add_argument("--tc", default="10+0.1", help="BASE+INC seconds or nodes=N (10+0.1)")
    p.add_argument("--games", type=int, default=20, help="games (20)")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (1)")
    p.add_argument("--openings", default=str(DEFAULT_OPENINGS),
                   help="opening PGN ('none': the start position)")
    p.add_argument("--opening-offset", type=int, default=0, help="first opening's index (0)")
    p.add_argument("--seed", type=int, help="random openings with this seed")
    p.add_argument("--opening-plies", type=int, metavar="N",
                   help="play only each line's first N plies, distinct lines only (all)")
    p.add_argument("--variant", choices=("standard", "fischerandom"), default="standard",
                   help="fischerandom: Chess960 from random start positions (each played "
                        "with both colours), UCI_Chess960 on for both engines")
    p.add_argument("--pgn", help="write the games here")
    p.add_argument("--json", help="write the result as JSON here")
    p.add_argument("--resume", action="store_true",
                   help="keep the finished games in --pgn (and its .partial) and play the rest")
    p.add_argument("--sprt", nargs=4, type=float, metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
                   help="stop early when the SPRT decides")
    p.add_argument("--max-plies", type=int, help="adjudicate a draw at this many plies")
    p.add_argument("--stall-timeout", type=float, default=30.0,
                   help="seconds past its clock before a silent engine is killed (30)")
    p.add_argument("--time-margin", type=float, default=0.0,
                   help="seconds a clock may go below zero before the flag falls (0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def match_main(argv: list[str] | None = None) -> int:
    """``python -m trainer match ...``: play a match, print the result line."""
    parser = build_match_parser()
    args = parser.parse_args(argv)
    try:
        tc = TimeControl.parse(args.tc)
        # zerosum_spec refuses a missing net; both are checked before either engine starts
        specs = [zerosum_spec(w) if w else None for w in (args.weights1, args.weights2)]
        if args.engine1:
            a = parse_engine_arg(args.engine1)
        else:
            a = specs[0] or zerosum_spec()
        if args.engine2:
            b = parse_engine_arg(args.engine2)
        elif specs[1] is not None:
            b = specs[1]
        elif args.stockfish_elo is not None:
            b = stockfish_spec(args.stockfish_elo)
        else:
            b = sunfish_spec()
        a = dataclasses.replace(a, name=args.name1 or a.name,
                                options={**a.options, **key_values(args.option1)})
        b = dataclasses.replace(b, name=args.name2 or b.name,
                                options={**b.options, **key_values(args.option2)})
        if args.variant == "fischerandom":
            openings: list[Opening] | None = chess960_openings(math.ceil(args.games / 2),
                                                               args.seed)
        else:
            openings = load_openings(args.openings, math.ceil(args.games / 2),
                                     args.opening_offset, args.seed, args.opening_plies)
        previous: list[GameRecord] = []
        if args.resume:
            if not args.pgn:
                raise ValueError("--resume needs --pgn, the file of the match to resume")
            if a.name == b.name:
                raise ValueError("--resume needs two engine names (--name1, --name2)")
            previous = played_games(args.pgn, a.name, b.name, openings, tc)
            if previous and previous[-1].number > args.games:
                raise ValueError(f"{args.pgn} holds game {previous[-1].number}: more than "
                                 f"--games {args.games}")
            print(f"resuming: {len(previous)} of {args.games} games already played")
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    result = play_match(a, b, openings=openings, games=args.games, tc=tc,
                        concurrency=args.concurrency, pgn_path=args.pgn,
                        sprt=tuple(args.sprt) if args.sprt else None,
                        max_plies=args.max_plies, progress=not args.no_progress,
                        stall_timeout=args.stall_timeout, time_margin=args.time_margin,
                        previous=previous)
    print(result.summary())
    for f in result.failures:
        print(f"  {f}")
    if args.json and not (len(previous) >= args.games and Path(args.json).is_file()):
        # (a resumed match that was already complete keeps the JSON first written: this call
        # played nothing, and its near-zero "seconds" would replace the match's own)
        Path(args.json).write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return 130 if result.interrupted else 0


if __name__ == "__main__":
    sys.exit(match_main(sys.argv[1:]))
