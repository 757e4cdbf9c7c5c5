"""Command line of the reinforcement-learning side: ``selfplay``, ``train``, ``loop``,
``endgames`` and ``sf-label``. ``add_subcommands(subparsers)`` registers them (the lead wires it
into ``trainer/__main__.py``); heavy imports happen inside the command functions.

Examples (2-core CPU)::

    python -m trainer loop --dir runs/rl1 --init tiny --generations 10
    python -m trainer loop --dir runs/rl1 --init tiny --generations 10 --ray auto  # on Ray
    python -m trainer selfplay --net runs/rl1/nets/gen-0003.onnx --out runs/rl1/games \\
        --generation 4 --worker 1 --games 64        # an extra self-play process
    python -m trainer train --data runs/rl1/games --out runs/t1 --init small --steps 2000
    python -m trainer endgames --out kqk.fen --count 5000
    python -m trainer sf-label --pgn games.pgn --count 2000 --out labels/
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trainer.data.books import DEFAULT_OPENINGS
from trainer.data.replay import MIX_TARGETS
from trainer.play.selfplay import (SELFPLAY_BACKENDS, SELFPLAY_PRECISIONS, SelfPlayConfig,
                                   selfplay_evaluator)
from engine.evaluator import Evaluator, default_net_path
from trainer.learn.train import PRECISIONS as TRAIN_PRECISIONS, BaseTrainer, TrainConfig

if TYPE_CHECKING:
    from trainer.loop import LoopConfig

_SP_DEFAULTS = SelfPlayConfig()
_TR_DEFAULTS = TrainConfig()


def _add_selfplay_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("self-play")
    d = _SP_DEFAULTS
    g.add_argument("--parallel", type=int, default=d.parallel, help="games at once")
    g.add_argument("--minibatch", type=int, default=d.minibatch, help="leaves per game per call")
    g.add_argument("--full-visits", type=int, default=d.full_visits)
    g.add_argument("--fast-visits", type=int, default=d.fast_visits)
    g.add_argument("--full-share", type=float, default=d.full_share,
                   help="share of moves with a full search (policy targets)")
    g.add_argument("--dirichlet-alpha", type=float, default=d.dirichlet_alpha)
    g.add_argument("--dirichlet-epsilon", type=float, default=d.dirichlet_epsilon)
    g.add_argument("--root", choices=("puct", "gumbel"), default=d.root,
                   help="full searches' root: PUCT with Dirichlet noise, or Gumbel AlphaZero")
    g.add_argument("--forced-playouts", type=float, default=d.forced_playouts,
                   help="KataGo's k for forced playouts and policy target pruning (puct; 0: off)")
    g.add_argument("--gumbel-considered", type=int, default=d.gumbel_considered,
                   help="moves a gumbel search considers (Gumbel-top-k)")
    g.add_argument("--gumbel-c-scale", type=float, default=d.gumbel_c_scale,
                   help="gumbel c_scale: weight of the searched values in the policy target")
    g.add_argument("--gumbel-no-rescale", dest="gumbel_rescale", action="store_false",
                   help="gumbel: W-L as it is, not min-max rescaled over the root's moves")
    g.add_argument("--policy-temperature", type=float, default=d.policy_temperature,
                   help="softmax temperature of the searches' priors (the engine's unless set)")
    g.add_argument("--temperature", type=float, default=d.temperature)
    g.add_argument("--temp-plies", type=int, default=d.temp_plies)
    g.add_argument("--temp-end", type=float, default=d.temp_end)
    g.add_argument("--resign-threshold", type=float, default=d.resign_threshold,
                   help="best Q (W-L) below which a side resigns; -1 turns it off")
    g.add_argument("--resign-plies", type=int, default=d.resign_plies)
    g.add_argument("--resign-playout", type=float, default=d.resign_playout,
                   help="share of games played out to measure false resignations")
    g.add_argument("--resign-earliest", type=int, default=d.resign_earliest)
    g.add_argument("--max-plies", type=int, default=d.max_plies)
    g.add_argument("--openings", default=str(DEFAULT_OPENINGS),
                   help="opening PGN (none: the start position)")
    g.add_argument("--start-fens", help="file of start FENs (e.g. from `endgames`)")
    g.add_argument("--syzygy", help="Syzygy directory: rescore covered positions (lc0-style)")
    g.add_argument("--selfplay-seed", type=int, default=d.seed)


def _selfplay_config(a: argparse.Namespace) -> SelfPlayConfig:
    from trainer.play.endgames import read_fens

    return SelfPlayConfig(
        parallel=a.parallel, minibatch=a.minibatch, full_visits=a.full_visits,
        fast_visits=a.fast_visits, full_share=a.full_share, dirichlet_alpha=a.dirichlet_alpha,
        dirichlet_epsilon=a.dirichlet_epsilon, root=a.root, forced_playouts=a.forced_playouts,
        gumbel_considered=a.gumbel_considered, gumbel_c_scale=a.gumbel_c_scale,
        gumbel_rescale=a.gumbel_rescale, policy_temperature=a.policy_temperature,
        temperature=a.temperature,
        temp_plies=a.temp_plies, temp_end=a.temp_end, resign_threshold=a.resign_threshold,
        resign_plies=a.resign_plies, resign_playout=a.resign_playout,
        resign_earliest=a.resign_earliest, max_plies=a.max_plies,
        openings=None if a.openings in (None, "", "none") else a.openings,
        start_fens=read_fens(a.start_fens) if a.start_fens else None, syzygy=a.syzygy,
        seed=a.selfplay_seed)


def _add_train_args(p: argparse.ArgumentParser, steps_help: str) -> None:
    g = p.add_argument_group("training")
    d = _TR_DEFAULTS
    g.add_argument("--steps", type=int, default=100, help=steps_help)
    g.add_argument("--batch-size", type=int, default=d.batch_size)
    g.add_argument("--lr", type=float, default=d.lr, help="peak learning rate")
    g.add_argument("--optimizer", choices=("adamw", "sgd"), default=d.optimizer)
    g.add_argument("--weight-decay", type=float, default=d.weight_decay)
    g.add_argument("--warmup", type=int, default=d.warmup)
    g.add_argument("--schedule", choices=("cosine", "step", "constant"), default=None,
                   help="LR schedule after warm-up (default: cosine over the planned steps; "
                        "constant for an open-ended loop)")
    g.add_argument("--total-steps", type=int, default=None, help="schedule horizon")
    g.add_argument("--clip", type=float, default=d.clip, help="gradient-norm clip")
    g.add_argument("--q-weight", type=float, default=d.q_weight,
                   help="share of root Q/D in the value target")
    g.add_argument("--policy-power", type=float, default=d.policy_power,
                   help="policy targets raised to this power and renormalised (Stockfish "
                        "labels, the softmax of MultiPV scores at 60 cp: 2 gives it at 30 cp)")
    g.add_argument("--value-weight", type=float, default=d.value_weight)
    g.add_argument("--mlh-weight", type=float, default=d.mlh_weight)
    g.add_argument("--log-every", type=int, default=d.log_every)
    g.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every)
    g.add_argument("--keep", type=int, default=d.keep, help="checkpoints kept")
    g.add_argument("--device", default=d.device, help="cpu or cuda")
    g.add_argument("--train-threads", type=int, default=d.threads, help="torch threads")
    g.add_argument("--train-precision", choices=TRAIN_PRECISIONS, default=d.precision,
                   help="bf16: the forward pass in bfloat16 under autocast (about 1.6x faster "
                        "on a CPU with AVX-512 BF16 or AMX); weights and optimizer stay fp32")
    g.add_argument("--train-only", nargs="+", default=[], metavar="PREFIX",
                   help="train only the parameters whose names start so (policy_: the policy "
                        "head), the rest frozen")
    g.add_argument("--seed", type=int, default=d.seed)
    g.add_argument("--window", type=int, default=30_000, help="replay window (positions)")
    g.add_argument("--dedup", action="store_true", help="drop repeated positions in the window")
    g.add_argument("--mix-data", nargs="+", default=[], metavar="DIR",
                   help="records (e.g. Stockfish-labelled) mixed into every batch")
    g.add_argument("--mix-share", type=float, default=0.0,
                   help="share of each batch drawn from --mix-data")
    g.add_argument("--mix-targets", choices=MIX_TARGETS, default="both",
                   help="what the --mix-data rows teach: both heads, or the value (and "
                        "moves-left) heads alone, their policy targets dropped")


def _train_config(a: argparse.Namespace, horizon: int | None) -> TrainConfig:
    schedule = a.schedule or ("cosine" if (a.total_steps or horizon) else "constant")
    if not a.policy_power > 0:  # 0 would make every target uniform over its nonzero moves
        raise SystemExit(f"--policy-power must be above 0, not {a.policy_power}")
    return TrainConfig(
        batch_size=a.batch_size, lr=a.lr, optimizer=a.optimizer, weight_decay=a.weight_decay,
        warmup=a.warmup, schedule=schedule, total_steps=a.total_steps or horizon or 1,
        clip=a.clip, q_weight=a.q_weight, policy_power=a.policy_power,
        value_weight=a.value_weight,
        mlh_weight=a.mlh_weight, log_every=a.log_every, checkpoint_every=a.checkpoint_every,
        keep=a.keep, seed=a.seed, device=a.device, threads=a.train_threads,
        precision=a.train_precision, train_only=a.train_only)


# ------------------------------------------------------------------- commands


def _selfplay(a: argparse.Namespace) -> int:
    from engine.evaluator import NetError
    from trainer.play.selfplay import SelfPlayWorker

    try:  # a missing net or a GPU that is not there: the message, not a traceback
        ev = selfplay_evaluator(a.backend, a.net, a.threads, a.precision)
    except (NetError, ValueError) as exc:
        raise SystemExit(f"selfplay: {exc}") from None
    worker = SelfPlayWorker(ev, _selfplay_config(a), a.out, a.generation, a.worker,
                            Path(a.net).name)
    stats = worker.run(a.games, progress=True)
    print(json.dumps(stats.summary(), indent=1))
    return 0


def _train(a: argparse.Namespace) -> int:
    from trainer.loop import export_and_check
    from trainer.data.replay import mix_metadata, training_window
    from trainer.learn.train import Trainer

    from trainer.recipe import resolve_init

    _check_mix(a)
    a.init = resolve_init(a.init)
    try:  # a bad --init or --train-only: the message, not a traceback
        t = Trainer.create(a.init, _train_config(a, a.steps), a.out, resume=a.resume)
    except ValueError as exc:
        raise SystemExit(f"train: {exc}") from exc
    window = training_window(a.data, a.window, a.dedup, a.mix_data, a.mix_share, a.mix_targets)
    print(f"window: {window.refresh()} positions; {json.dumps(window.stats())}")
    train_and_report(t, window, a.steps)
    if a.export:
        kinds = sorted({str(r.get("kind", "self-play")) for r in _record_kinds(a.data)})
        extra = {"training": f"trainer train on records ({', '.join(kinds)})",
                 "data": [str(d) for d in a.data], "init": str(a.init),
                 **mix_metadata(a.mix_data, a.mix_share, a.mix_targets)}
        print(json.dumps(export_and_check(t, Path(a.export), generation=-1, extra=extra)))
    return 0


def train_and_report(t: BaseTrainer[Any, Any], data: Any, steps: int) -> None:
    """The train commands' run (AlphaZero's and MuZero's): the net, training to ``steps`` with a
    progress bar, a last checkpoint, the mean metrics."""
    print(f"net {t.model.cfg.name}: {t.model.num_params():,} parameters, from step {t.step}")
    metrics = t.train(data, steps)
    t.save()
    t.close()
    print(json.dumps({"step": t.step, "positions": t.positions, **metrics}))


def _record_kinds(dirs: list[str]) -> list[dict[str, Any]]:
    """The ``meta`` of the first record in each directory (what kind of data it holds)."""
    from trainer.data.records import Record

    metas = []
    for d in dirs:
        first = next(iter(sorted(Path(d).glob("*.npz"))), None)
        if first is not None:
            metas.append(Record.load(first).meta)
    return metas


def _check_mix(a: argparse.Namespace) -> None:
    """--mix-share, --mix-targets and --mix-data go together; the share is a fraction of a
    batch."""
    if a.mix_share and not a.mix_data:
        raise SystemExit("--mix-share needs --mix-data (the records to mix in)")
    if a.mix_data and not 0.0 < a.mix_share < 1.0:
        raise SystemExit(f"--mix-share must lie strictly between 0 and 1 with --mix-data, "
                         f"not {a.mix_share}")
    if a.mix_targets != "both" and not a.mix_data:
        raise SystemExit("--mix-targets says what the --mix-data rows teach: it needs --mix-data")


def loop_config(a: argparse.Namespace) -> LoopConfig:
    """The :class:`trainer.loop.LoopConfig` of parsed ``loop`` arguments."""
    from trainer.arena.heldout import record_files
    from trainer.loop import LoopConfig

    _check_mix(a)
    if a.mode == "muzero" and a.mix_data:
        raise SystemExit("--mix-data mixes positions into the AlphaZero window; MuZero trains "
                         "on trajectories")
    if a.eval_tc is not None:
        from trainer.arena.match import TimeControl
        try:
            TimeControl.parse(a.eval_tc)
        except ValueError as exc:
            raise SystemExit(f"--eval-tc: {exc}") from exc
    if a.precision != "fp32" and a.mode == "muzero":
        raise SystemExit("--precision int8 quantizes AlphaZero nets; MuZero plays its two "
                         "graphs in fp32")
    if a.export_ema is not None and not 0.0 < a.export_ema <= 1.0:
        raise SystemExit("--export-ema: the trained net's weight, in (0, 1]")
    if a.export_ema is not None and a.mode == "muzero":
        raise SystemExit("--export-ema averages AlphaZero nets; MuZero exports two graphs")
    if a.policy_power != 1.0 and a.mode == "muzero":
        raise SystemExit("--policy-power sharpens AlphaZero training targets; MuZero's trainer "
                         "takes its targets as they are")
    if a.no_eval_previous and a.gate is not None:
        raise SystemExit("--gate plays the previous net: it cannot go with --no-eval-previous")
    for flag, dirs in (("--mix-data", a.mix_data), ("--heldout", a.heldout)):
        try:  # found now, not hours later when the first generation trains or exports
            record_files(dirs) if dirs else None
        except ValueError as exc:
            raise SystemExit(f"{flag}: {exc}")
    horizon = a.generations * a.steps if a.generations else None
    return LoopConfig(run_dir=a.dir, init=a.init, mode=a.mode,
                      generations=a.generations, games=a.games,
                      steps=a.steps, window=a.window, dedup=a.dedup,
                      extra_data=a.extra_data or [], mix_data=a.mix_data,
                      mix_share=a.mix_share, mix_targets=a.mix_targets,
                      heldout=a.heldout or [],
                      worker=a.worker, threads=a.threads, precision=a.precision,
                      eval_games=a.eval_games, eval_nodes=a.eval_nodes, eval_tc=a.eval_tc,
                      eval_concurrency=a.eval_concurrency, gate=a.gate,
                      eval_previous=not a.no_eval_previous, export_ema=a.export_ema,
                      selfplay=_selfplay_config(a), train=_train_config(a, horizon))


def _loop(a: argparse.Namespace) -> int:
    from dataclasses import asdict

    from trainer import recipe
    from trainer.loop import Loop

    used: dict[str, Any] = {}
    if a.recipe is None:  # the measured self-play recipe; MuZero has none yet
        a.recipe = recipe.DEFAULT_LOOP_RECIPE if a.mode == "alphazero" else "none"
    if a.recipe != "none":
        found = recipe.load(a.recipe)
        if "loop" not in found:
            raise SystemExit(f"recipe {a.recipe} has no [loop] table (it is for another "
                             "command)")
        table = found["loop"]
        used = recipe.apply(a._parser, a, table, getattr(a, "_argv", sys.argv[2:]))
    elif a.init == "bundled":
        a.init = recipe.resolve_init(a.init)
    cfg = loop_config(a)
    if a.show_config:
        print(json.dumps({"recipe": a.recipe, "from_recipe": sorted(used), **asdict(cfg)},
                         indent=1))
        return 0
    if a.ray is None:
        return Loop(cfg, change_config=a.change_config).run_loop()
    try:
        from trainer.dist.driver import DistConfig, run
    except ModuleNotFoundError as exc:
        if exc.name != "ray":
            raise
        raise SystemExit("--ray needs Ray: pip install \"zerosum[dist]\" (or pip install ray)")
    return run(cfg, DistConfig(address=a.ray, actors=a.actors, actor_gpus=a.actor_gpus))


def _endgames(a: argparse.Namespace) -> int:
    from trainer.play.endgames import curriculum, write_fens

    fens = curriculum(a.count, a.kinds, a.seed)
    write_fens(a.out, fens)
    print(f"wrote {len(fens)} positions ({', '.join(a.kinds)}) to {a.out}; use them with "
          f"--start-fens {a.out}")
    return 0


def _sf_label(a: argparse.Namespace) -> int:
    import chess

    from trainer.play.endgames import curriculum, read_fens
    from trainer.data.sflabel import find_stockfish, positions_from_pgn, write_labels

    boards: list[Any] = []
    if a.pgn:
        boards += positions_from_pgn(a.pgn, a.count, a.seed)
    if a.fens:
        boards += [chess.Board(f) for f in read_fens(a.fens)][: a.count]
    if a.endgames:
        boards += [chess.Board(f) for f in curriculum(a.endgames, seed=a.seed)]
    if not boards:
        raise SystemExit("no positions: give --pgn, --fens or --endgames")
    paths = write_labels(a.out, boards, chunk=a.chunk, stockfish=find_stockfish(a.stockfish),
                         depth=a.depth or None, nodes=a.nodes or None, multipv=a.multipv,
                         temperature_cp=a.temperature_cp, threads=a.sf_threads)
    print(f"wrote {len(paths)} record files to {a.out}")
    return 0


def _sf_games(a: argparse.Namespace) -> int:
    from trainer.data.sflabel import find_stockfish, opening_boards, play_and_label, write_records

    starts = opening_boards(a.openings, a.games, seed=a.seed)
    kw = dict(nodes=a.nodes, multipv=a.multipv, temperature_cp=a.temperature_cp,
              play_temperature_cp=a.play_temperature_cp, random_move_p=a.random_move_p,
              max_plies=a.max_plies, adjudicate_cp=a.adjudicate_cp,
              label_opening=not a.no_opening_labels, fen_only_p=a.fen_only_p,
              side_p=a.side_p, seed=a.seed)
    labels = play_and_label(find_stockfish(a.stockfish), starts, threads=a.sf_threads, **kw)
    paths = write_records(a.out, labels, {"kind": "sf-games", **kw}, chunk=a.chunk)
    print(f"wrote {len(paths)} record files to {a.out}")
    return 0


def add_subcommands(sub: argparse._SubParsersAction) -> None:
    """Registers selfplay, train, loop, endgames and sf-label on ``sub``."""
    fmt = argparse.ArgumentDefaultsHelpFormatter

    p = sub.add_parser("selfplay", formatter_class=fmt,
                       help="play self-play games with an ONNX net into a records directory")
    p.add_argument("--net", default=str(default_net_path()), help="ONNX net (the bundled one)")
    p.add_argument("--out", required=True, help="records directory")
    p.add_argument("--games", type=int, default=64)
    p.add_argument("--generation", type=int, default=0, help="generation number in file names")
    p.add_argument("--worker", type=int, default=0, help="worker id (unique per process)")
    p.add_argument("--threads", type=int, default=2, help="onnxruntime (torch-cpu: torch) threads")
    p.add_argument("--backend", choices=SELFPLAY_BACKENDS, default="cpu",
                   help="onnxruntime's CPU or CUDA provider, or the net imported into torch on "
                        "the CPU or the GPU (for a machine whose onnxruntime has no CUDA)")
    p.add_argument("--precision", choices=SELFPLAY_PRECISIONS, default="fp32",
                   help="the net's arithmetic: fp16/bf16 on the torch backends (the GPU's "
                        "tensor cores), int8 on cpu (the net quantized beside itself)")
    _add_selfplay_args(p)
    p.set_defaults(func=_selfplay)

    p = sub.add_parser("train", formatter_class=fmt,
                       help="train on the replay window of records directories")
    p.add_argument("--data", nargs="+", required=True, help="records directories, oldest first")
    p.add_argument("--out", required=True, help="directory for checkpoints and logs")
    p.add_argument("--init", default="small",
                   help="preset name, checkpoint .pt, an ONNX net this trainer exported, or "
                        "bundled (the engine's net)")
    p.add_argument("--resume", action="store_true",
                   help="continue from the newest checkpoint in OUT (exactly, given the same data)")
    p.add_argument("--export", help="export the result to this ONNX path")
    _add_train_args(p, "train until this global step")
    p.set_defaults(func=_train)

    p = sub.add_parser("loop", formatter_class=fmt,
                       usage="%(prog)s --dir DIR [--recipe NAME] [--generations N] [flags]",
                       help="self-play -> train -> export -> evaluate, repeated; resumable",
                       description="AlphaZero's loop, generation after generation, resumable "
                                   "(the same command goes on). The settings are a recipe's "
                                   "(trainer/recipes/NAME.toml: gumbel by default, from the "
                                   "bundled net) with any flag given here on top; DIR/config."
                                   "json records them, and a resumed run refuses other settings "
                                   "unless --change-config. The flags' defaults below are "
                                   "those without a recipe (--recipe none).")
    p.add_argument("--dir", required=True, help="run directory")
    p.add_argument("--recipe", default=None,
                   help="packaged recipe (gumbel, puct) or a .toml path; none: the bare "
                        "defaults (default: gumbel, and none with --mode muzero)")
    p.add_argument("--change-config", action="store_true",
                   help="resume a run with settings other than those it started with")
    p.add_argument("--show-config", action="store_true",
                   help="print the resolved settings and stop")
    p.add_argument("--init", default="tiny",
                   help="preset name, checkpoint .pt, an ONNX net this trainer exported, or "
                        "bundled (the engine's net)")
    p.add_argument("--mode", choices=("alphazero", "muzero"), default="alphazero",
                   help="muzero: a MuZero model searched in latent space (trainer/muzero)")
    p.add_argument("--generations", type=int, default=0, help="stop after this many (0: never)")
    p.add_argument("--games", type=int, default=32, help="self-play games per generation")
    p.add_argument("--extra-data", nargs="*", help="record dirs counted as older (warm starts)")
    p.add_argument("--worker", type=int, default=0)
    p.add_argument("--threads", type=int, default=2, help="onnxruntime threads for self-play")
    p.add_argument("--precision", choices=("fp32", "int8"), default="fp32",
                   help="self-play's arithmetic (int8: each generation's net quantized beside "
                        "it, about 1.9x fp32 on a CPU with VNNI or AMX)")
    p.add_argument("--eval-games", type=int, default=20, help="games per evaluation match")
    p.add_argument("--eval-nodes", type=int, default=100, help="nodes per move in evaluation")
    p.add_argument("--eval-tc", default=None, metavar="BASE+INC",
                   help="evaluate at this clock (10+0.1) instead of --eval-nodes")
    p.add_argument("--eval-concurrency", type=int, default=1)
    p.add_argument("--no-eval-previous", action="store_true",
                   help="evaluate against generation 0 only (not with --gate)")
    p.add_argument("--gate", type=float, default=None,
                   help="score the new net needs against the best to play self-play")
    p.add_argument("--export-ema", type=float, default=None, metavar="A",
                   help="each generation's net is A x the trained net + (1 - A) x the previous "
                        "best (a moving average of the nets; training goes on unaveraged)")
    p.add_argument("--heldout", nargs="+", metavar="DIR",
                   help="Stockfish-labelled records kept out of training: each new net's "
                        "agreement with them goes into its history")
    g = p.add_argument_group("distributed (Ray; pip install .[dist])")
    g.add_argument("--ray", nargs="?", const="auto", default=None, metavar="auto|local|ADDRESS",
                   help="run on a Ray cluster: self-play actors (workers --worker+1 on, each "
                        "--threads CPUs) and one learner on this machine; auto: the cluster "
                        "`ray start` made here, local: a new one on this machine, HOST:PORT: "
                        "that head")
    g.add_argument("--actors", type=int, default=0,
                   help="most self-play actors (0: as many as the cluster's free CPUs hold)")
    g.add_argument("--actor-gpus", type=float, default=0.0,
                   help="GPU share per self-play actor (>0: onnxruntime on CUDA)")
    _add_selfplay_args(p)
    _add_train_args(p, "training steps per generation")
    p.set_defaults(func=_loop, _parser=p)

    p = sub.add_parser("endgames", formatter_class=fmt,
                       help="random KQvK / KRvK placements as start positions (a curriculum)")
    p.add_argument("--out", required=True, help="FEN file to write")
    p.add_argument("--count", type=int, default=2000)
    p.add_argument("--kinds", nargs="+", default=["KQK", "KRK"], choices=["KQK", "KRK"])
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_endgames)

    p = sub.add_parser("sf-label", formatter_class=fmt,
                       help="positions labelled by Stockfish (MultiPV policy, WDL) as records")
    p.add_argument("--out", required=True, help="records directory")
    p.add_argument("--pgn", nargs="*", help="PGN files to draw positions from")
    p.add_argument("--fens", help="FEN file")
    p.add_argument("--endgames", type=int, default=0, help="add this many KQvK/KRvK positions")
    p.add_argument("--count", type=int, default=1000, help="positions from PGN / FEN")
    p.add_argument("--stockfish", help="Stockfish binary")
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--nodes", type=int, default=0, help="node limit instead of depth (0: off)")
    p.add_argument("--multipv", type=int, default=8)
    p.add_argument("--temperature-cp", type=float, default=100.0, help="softmax temperature")
    p.add_argument("--sf-threads", type=int, default=1)
    p.add_argument("--chunk", type=int, default=256, help="positions per record file")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_sf_label)

    p = sub.add_parser("sf-games", formatter_class=fmt,
                       help="games played from book openings by Stockfish's sampled MultiPV "
                            "moves (with random blunders), every position labelled, as records")
    p.add_argument("--out", required=True, help="records directory (one per process)")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--openings", default=str(DEFAULT_OPENINGS), help="PGN book of start lines")
    p.add_argument("--stockfish", help="Stockfish binary")
    # The defaults are play_and_label's own, so they are stated in one place.
    from trainer.data.sflabel import play_and_label
    sf = {k: v.default for k, v in inspect.signature(play_and_label).parameters.items()}
    p.add_argument("--nodes", type=int, default=sf["nodes"], help="Stockfish nodes per position")
    p.add_argument("--multipv", type=int, default=sf["multipv"])
    p.add_argument("--temperature-cp", type=float, default=sf["temperature_cp"],
                   help="policy-target softmax")
    p.add_argument("--play-temperature-cp", type=float, default=sf["play_temperature_cp"],
                   help="softmax temperature of the move actually played")
    p.add_argument("--random-move-p", type=float, default=sf["random_move_p"],
                   help="chance of a uniformly random move (a blunder) instead")
    p.add_argument("--max-plies", type=int, default=sf["max_plies"])
    p.add_argument("--adjudicate-cp", type=float, default=sf["adjudicate_cp"],
                   help="stop a game once one side is this far ahead for "
                        f"{sf['adjudicate_plies']} plies")
    p.add_argument("--no-opening-labels", action="store_true",
                   help="do not label the book line's own positions (start position onwards)")
    p.add_argument("--fen-only-p", type=float, default=sf["fen_only_p"],
                   help="share of positions stored without history (as `position fen` gives)")
    p.add_argument("--side-p", type=float, default=sf["side_p"],
                   help="chance that a position also has a random move's position labelled "
                        "beside it (not played on)")
    p.add_argument("--sf-threads", type=int, default=1)
    p.add_argument("--chunk", type=int, default=256, help="positions per record file")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_sf_games)


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (``python -m trainer.cli_rl ...``) until __main__ lists these."""
    parser = argparse.ArgumentParser(prog="zerosum-train")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
