"""SPSA over the engine's UCI options, by game pairs at a clock, the way Stockfish's fishtest tunes.

Why SPSA: a match result is a noisy, nearly flat function of a handful of constants; SPSA moves
every parameter at once from the sign of one game pair a step, which is what makes hundreds of
pairs enough. Each step k perturbs every parameter by +/- c_k (a random sign each), plays a pair
(one opening, each side White once) between the engine at theta + c_k*delta and at theta -
c_k*delta, and moves theta by a_k / c_k * (score of + minus score of -) * delta.

The gains are fishtest's: for N planned pairs, A = 0.1 N, alpha = 0.602, gamma = 0.101,
c_k = c_end * N^gamma / k^gamma and a_k = r_end * c_end^2 * (A + N)^alpha / (A + k)^alpha, so the
perturbation ends at ``c_end`` and the step's ratio a_k / c_k^2 at ``r_end``. A parameter is given
as its start, its bounds and those two numbers (fishtest's rule of thumb: c_end about a twentieth
of the range, r_end 0.002).

The run lives in one directory: ``spsa.json`` holds the config and every step (its perturbation,
result and theta after it), written atomically after each round, so a killed run resumes where it
stopped and, since step k's signs come from ``(seed, k)``, goes on as it would have. The file is
the tuning's path: plot ``theta`` against ``k`` to see whether it settled.

Config (TOML)::

    [match]           # optional; flags override
    tc = "10+0.1"
    [params.CPuct]
    start = 1.745
    min = 0.5
    max = 4.0
    c_end = 0.15
    r_end = 0.002
"""

from __future__ import annotations

import json
import random
import time
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from trainer.data.files import atomic_write

ALPHA = 0.602
GAMMA = 0.101


@dataclass(frozen=True)
class Param:
    name: str
    start: float
    lo: float
    hi: float
    c_end: float
    r_end: float = 0.002
    integer: bool = False

    def c(self, k: int, n: int) -> float:
        return self.c_end * n ** GAMMA / k ** GAMMA

    def a(self, k: int, n: int) -> float:
        big_a = 0.1 * n
        return self.r_end * self.c_end ** 2 * (big_a + n) ** ALPHA / (big_a + k) ** ALPHA

    def clip(self, x: float) -> float:
        return min(self.hi, max(self.lo, x))

    def value(self, x: float) -> float | int:
        """What the engine is sent: rounded for an integer option."""
        return int(round(x)) if self.integer else round(x, 6)


def read_config(path: str | Path) -> tuple[list[Param], dict[str, Any]]:
    """The parameters and the optional ``[match]`` table of a tuning config."""
    with open(path, "rb") as f:
        cfg = tomllib.load(f)
    params = []
    for name, p in cfg.get("params", {}).items():
        try:
            params.append(Param(name, float(p["start"]), float(p["min"]), float(p["max"]),
                                float(p["c_end"]), float(p.get("r_end", 0.002)),
                                bool(p.get("integer", False))))
        except KeyError as exc:
            raise SystemExit(f"{path}: params.{name} lacks {exc}") from None
        if not params[-1].lo <= params[-1].start <= params[-1].hi:
            raise SystemExit(f"{path}: params.{name}: start outside [min, max]")
    if not params:
        raise SystemExit(f"{path}: no [params.NAME] tables")
    return params, dict(cfg.get("match", {}))


def signs(seed: int, k: int, n: int) -> list[int]:
    """Step k's perturbation signs: a function of (seed, k) only, so a resume goes on the same."""
    rng = random.Random(f"spsa-{seed}-{k}")
    return [rng.choice((-1, 1)) for _ in range(n)]


PairPlayer = Callable[[dict[str, float | int], dict[str, float | int], int], float]
"""(options of +, options of -, step k) -> points of + minus points of - over the pair (-2..2)."""


def spsa(root: str | Path, params: Sequence[Param], pairs: int, play_pair: PairPlayer,
         seed: int = 0, concurrency: int = 1, config: dict[str, Any] | None = None,
         log: Callable[[str], None] = print) -> dict[str, float]:
    """Runs (or resumes) the tuning in ``root`` up to ``pairs`` steps; returns the final theta.

    ``concurrency`` pairs are played at once (each its own step k, all from the same theta), their
    updates applied together; 1 is plain SPSA."""
    path = Path(root) / "spsa.json"
    Path(root).mkdir(parents=True, exist_ok=True)
    setup = {"params": [asdict(p) for p in params], "pairs": pairs, "seed": seed,
             "config": config or {}}
    if path.exists():
        state = json.loads(path.read_text())
        if {k: state[k] for k in setup} != setup:
            raise SystemExit(f"{path} is a tuning with other settings: remove it or use another "
                             "directory")
    else:
        state = {**setup, "theta": {p.name: p.start for p in params}, "steps": []}
    theta: dict[str, float] = dict(state["theta"])
    k = len(state["steps"]) + 1
    if k > 1:
        log(f"tune: resuming at pair {k} of {pairs}")
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        while k <= pairs:
            ks = list(range(k, min(pairs, k + concurrency - 1) + 1))
            plans = []
            for kk in ks:
                d = signs(seed, kk, len(params))
                plus = {p.name: p.value(p.clip(theta[p.name] + p.c(kk, pairs) * s))
                        for p, s in zip(params, d)}
                minus = {p.name: p.value(p.clip(theta[p.name] - p.c(kk, pairs) * s))
                         for p, s in zip(params, d)}
                plans.append((kk, d, plus, minus))
            t0 = time.time()
            results = list(pool.map(lambda pl: play_pair(pl[2], pl[3], pl[0]), plans))
            for (kk, d, plus, minus), r in zip(plans, results):
                for p, s in zip(params, d):
                    theta[p.name] = p.clip(theta[p.name] + p.a(kk, pairs) / p.c(kk, pairs) * r * s)
                state["steps"].append({"k": kk, "signs": d, "plus": plus, "minus": minus,
                                       "result": r, "theta": dict(theta)})
            state["theta"] = theta
            atomic_write(path, lambda f: f.write(json.dumps(state, indent=1).encode()))
            k = ks[-1] + 1
            log(f"tune: pair {ks[-1]}/{pairs} results {results} ({time.time() - t0:.0f}s) "
                + " ".join(f"{n}={v:.4g}" for n, v in theta.items()))
    return theta


def match_pair_player(weights: str | None, tc: str, openings_path: str | None,
                      fixed: dict[str, Any], pairs: int, seed: int,
                      max_plies: int | None = None) -> PairPlayer:
    """Plays each pair as a two-game match of Zerosum against Zerosum from one opening of the
    book (a random sample, so successive pairs see different openings)."""
    from trainer.data.books import DEFAULT_OPENINGS
    from trainer.arena.match import play_match, zerosum_spec
    from trainer.data.openings import load_openings

    zerosum_spec(weights)  # a missing net is refused here, before the first pair
    book = load_openings(openings_path or str(DEFAULT_OPENINGS), pairs, seed=seed)

    def play(plus: dict[str, float | int], minus: dict[str, float | int], k: int) -> float:
        a = zerosum_spec(weights, name="plus", **{**fixed, **plus})
        b = zerosum_spec(weights, name="minus", **{**fixed, **minus})
        openings = [book[(k - 1) % len(book)]] if book else None
        res = play_match(a, b, openings=openings, games=2, tc=tc, progress=False,
                         max_plies=max_plies)
        return float(res.wins - res.losses)

    return play


def _main(a: Any) -> int:
    params, match_cfg = read_config(a.config)
    tc = a.tc or match_cfg.get("tc", "10+0.1")
    fixed = {**match_cfg.get("options", {}), **dict(kv.split("=", 1) for kv in a.option or [])}
    config = {"tc": tc, "weights": a.weights, "options": fixed, "openings": a.openings}
    player = match_pair_player(a.weights, tc, a.openings, fixed, a.pairs, a.seed)
    theta = spsa(a.dir, params, a.pairs, player, seed=a.seed, concurrency=a.concurrency,
                 config=config)
    print(json.dumps({p.name: p.value(theta[p.name]) for p in params}))
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("tune", help="SPSA over UCI options by game pairs at a clock (fishtest's "
                                    "gains); resumable",
                       description="Tune the engine's search options by SPSA. The path is in "
                                   "DIR/spsa.json; killed? Run the same command.")
    p.add_argument("--config", required=True, help="TOML: [params.NAME] start/min/max/c_end")
    p.add_argument("--dir", required=True, help="run directory (spsa.json)")
    p.add_argument("--pairs", type=int, default=400, help="game pairs (SPSA steps)")
    p.add_argument("--tc", help="clock or nodes=N (default: the config's, else 10+0.1)")
    p.add_argument("--weights", help="net (default: the bundled one)")
    p.add_argument("--openings", help="PGN book (default: the packaged one)")
    p.add_argument("--option", nargs="*", metavar="NAME=VALUE",
                   help="UCI options both sides get, untuned")
    p.add_argument("--concurrency", type=int, default=1,
                   help="pairs at once (1 on 2 cores; more where cores are many)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_main)

