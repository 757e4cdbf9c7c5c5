"""Does the loop learn? KQvK and KRvK from a random initialisation, before vs after.

    python benchmarks/learn_endgames.py [--minutes 30] [--generations 64] [--out DIR]

1. A net of the ``--config`` preset with random weights is exported (generation 0).
2. It is measured: playing the strong side of 400 random KQvK / KRvK placements (strong side to
   move, a fixed test set unseen in training) against a defender moving at random, the share
   of games it mates within ``--max-moves`` moves, with the policy alone (1 visit: its top
   move) and with a small search (``--visits``).
3. The real loop (trainer/loop.py: self-play with batching, playout cap and noise -> replay
   window -> training -> export) runs on random placements of both endings, both sides played
   by the net, for ``--generations`` generations or until ``--minutes`` run out.
4. The final net is measured on the same test set; before/after figures are printed.

The default (tiny net, 64 generations of 96 games and 120 steps) takes about 15-30 minutes on
two CPU cores. Why the value target leans on the search's root value (``--q-weight 0.8``): in
symmetric self-play most games are drawn (the lone king takes the piece, or the strong side
repeats), so game results alone teach "everything is a draw"; the root Q of positions where
the search sees a mate carries the win back, generation by generation (value iteration).
``--syzygy`` rescores results with the tables instead (lc0-style): the net then learns to keep
its piece but, with WDL alone and no preference for shorter wins in the search, not to mate.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from engine.evaluator import OnnxEvaluator
from trainer.play.endgames import curriculum, mate_test
from trainer.loop import Loop, LoopConfig
from trainer.play.selfplay import SelfPlayConfig
from trainer.learn.train import TrainConfig


def measure(net: Path, fens: list[str], visits: list[int], max_moves: int) -> dict[str, object]:
    ev = OnnxEvaluator(str(net), threads=2)
    out: dict[str, object] = {}
    for v in visits:
        for kind in ("KQK", "KRK"):
            sub = [f for i, f in enumerate(fens) if (i % 2 == 0) == (kind == "KQK")]
            out[f"{kind}@{v}"] = mate_test(ev, sub, visits=v, max_moves=max_moves).summary()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="runs/learn-endgames", help="run directory (fresh)")
    ap.add_argument("--config", default="tiny")
    ap.add_argument("--generations", type=int, default=64)
    ap.add_argument("--minutes", type=float, default=30.0, help="stop starting generations after")
    ap.add_argument("--games", type=int, default=96, help="self-play games per generation")
    ap.add_argument("--steps", type=int, default=120, help="training steps per generation")
    ap.add_argument("--test-positions", type=int, default=400)
    ap.add_argument("--max-moves", type=int, default=40)
    ap.add_argument("--visits", type=int, default=32, help="search visits in the mate test")
    ap.add_argument("--q-weight", type=float, default=0.8,
                    help="share of the search's root value in the value target")
    ap.add_argument("--temp-plies", type=int, default=0)
    ap.add_argument("--full-share", type=float, default=0.5)
    ap.add_argument("--syzygy", help="rescore self-play results with these Syzygy tables "
                    "(lc0-style; default: pure self-play)")
    args = ap.parse_args()

    run = Path(args.out)
    if (run / "state.json").exists():
        raise SystemExit(f"{run} holds a run already; pass a fresh --out")
    train_fens = curriculum(20_000, seed=1)  # both sides to move, colours at random
    test_fens = curriculum(args.test_positions, seed=12345, strong_to_move=True)
    sp = SelfPlayConfig(parallel=32, minibatch=8, full_visits=96, fast_visits=24,
                        full_share=args.full_share, temp_plies=args.temp_plies,
                        resign_threshold=-1.0, max_plies=120,
                        openings=None, start_fens=train_fens, syzygy=args.syzygy)
    tr = TrainConfig(batch_size=256, lr=3e-3, warmup=50, schedule="cosine",
                     total_steps=args.generations * args.steps, q_weight=args.q_weight, checkpoint_every=100,
                     log_every=20)
    cfg = LoopConfig(run_dir=str(run), init=args.config, generations=0, games=args.games,
                     steps=args.steps, window=40_000, eval_games=0, selfplay=sp, train=tr)
    loop = Loop(cfg)
    loop.initialise()
    t0 = time.monotonic()
    before = measure(loop.net_path(0), test_fens, [1, args.visits], args.max_moves)
    print("before:", json.dumps(before), flush=True)
    gen = 0
    while gen < args.generations and time.monotonic() - t0 < args.minutes * 60:
        gen += 1
        loop.cfg.generations = gen
        if loop.run_loop() != 0:
            break
    final = loop.net_path(loop.state["generation"] - 1)
    after = measure(final, test_fens, [1, args.visits], args.max_moves)
    window = loop.history(loop.state["generation"] - 1).get("train", {}).get("window", {})
    result = {"config": args.config, "generations": loop.state["generation"] - 1,
              "minutes": round((time.monotonic() - t0) / 60, 1), "net": str(final),
              "max_moves": args.max_moves, "before": before, "after": after,
              "last_window": window}
    (run / "learn_endgames.json").write_text(json.dumps(result, indent=1))
    print(f"\n{'test':10s} {'before':>8s} {'after':>8s}   (mate rate vs a random defender within "
          f"{args.max_moves} moves, {args.test_positions // 2} positions each)")
    for key in before:
        b, a = before[key]["rate"], after[key]["rate"]  # type: ignore[index]
        print(f"{key:10s} {b:8.1%} {a:8.1%}")
    print(f"{result['generations']} generations in {result['minutes']} minutes; details in "
          f"{run / 'learn_endgames.json'}")


if __name__ == "__main__":
    main()
