"""The reinforcement loop: self-play -> train -> export -> evaluate, generation after generation.

Run directory::

    RUN/state.json          {"generation", "phase", "step", "best", ...}, rewritten atomically
    RUN/games/              g<gen>-w<worker>-<n>.npz records + .pgn (trainer/data/records.py)
    RUN/nets/gen-<g>.onnx   gen-0000 is the initial net
    RUN/checkpoints/        ckpt-<step>.pt (last few kept)
    RUN/history/gen-<g>.json per-generation summary: self-play, training, export, evaluation
    RUN/train_log.jsonl, RUN/tb/ (TensorBoard), RUN/plots/*.png, RUN/eval/*.pgn

``mode`` "muzero" runs the same loop with a MuZero model (trainer/muzero): self-play by the
latent search, training by the unrolled loss on trajectories of the newest records, the
two-graph export; evaluation is the same match, the engine recognising the net.

Why a phase in the state file, and every phase idempotent: ``kill -9`` at any moment followed by
the same command resumes where it stopped. Self-play counts the finished records of the
generation and plays only the rest (records are atomic, so none is lost or written twice);
training resumes from the last checkpoint and redraws the same batches (the window is complete
by then); export is redone, evaluation resumes with the games its PGN holds. Ctrl-C (or SIGTERM)
asks for a clean stop: self-play abandons its unfinished games, training saves a checkpoint, an
evaluation plays its match out (a second Ctrl-C cuts it short, and a cut match is not recorded as
the generation's result), the state is saved.

Self-play and learner meet only at ``games/`` and the exported net, so ``trainer selfplay``
workers in other processes (or machines) may feed the same directory; trainer/dist runs the same
phases on a Ray cluster, self-play on many actors and the rest in one learner.
"""

from __future__ import annotations

import json
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from trainer.data.files import atomic_write
from trainer.data.records import list_records
from trainer.data.replay import mix_metadata, training_window
from trainer.play.selfplay import SelfPlayConfig, SelfPlayWorker
from trainer.learn.train import TrainConfig, Trainer

REPO = Path(__file__).resolve().parents[1]


@dataclass
class LoopConfig:
    run_dir: str
    init: str = "tiny"
    """preset name or checkpoint (.pt) to start from."""
    mode: str = "alphazero"
    """alphazero or muzero."""
    generations: int = 0
    """generations to reach (0: until stopped)."""
    games: int = 32
    """self-play games per generation."""
    steps: int = 100
    """training steps per generation."""
    window: int = 30_000
    dedup: bool = False
    extra_data: list[str] = field(default_factory=list)
    """record directories counted as older than the run's games (warm starts)."""
    mix_data: list[str] = field(default_factory=list)
    """records (e.g. Stockfish-labelled) that make ``mix_share`` of every training batch."""
    mix_share: float = 0.0
    mix_targets: str = "both"
    """"value": the mixed rows teach the value heads alone (``trainer.data.replay.MixedWindow``)."""
    heldout: list[str] = field(default_factory=list)
    """Stockfish-labelled records kept out of training: each new net's agreement with them is
    written to its history (``trainer/arena/heldout.py``)."""
    worker: int = 0
    threads: int = 2
    """onnxruntime threads for self-play."""
    precision: str = "fp32"
    """self-play's arithmetic: fp32, or int8 (each generation's net quantized beside it first;
    the matches and the exported net stay fp32)."""
    eval_games: int = 20
    eval_nodes: int = 100
    eval_tc: str | None = None
    """a clock for the evaluation matches (``10+0.1``) instead of ``eval_nodes``: a recipe can
    gain at 100 nodes and lose at a time control (run g did), so the gate can measure both."""
    eval_concurrency: int = 1
    eval_openings: str | None = None
    eval_previous: bool = True
    """also play the previous best net (the gate needs it); off: generation 0 only, which
    halves the evaluation's cost when each match needs 100 games for a usable interval."""
    gate: float | None = None
    """minimum score against the best net for a new net to play self-play (None: always)."""
    export_ema: float | None = None
    """weight ``a`` of the newly trained net in each generation's net: ``gen-<g>.onnx`` is
    ``a * trained + (1 - a) * previous best`` (the trained one alone kept in ``nets/trained/``),
    while training goes on from the trained weights. None: the trained net itself. Why: one
    generation of self-play training from sp1 lost 40 Elo at 10+0.1 and its mean with sp1 won 23
    (benchmarks/results/selfplay-runs.md section 22); a moving average of the nets, as KataGo's
    SWA, keeps what a generation learns and damps what it wanders into."""
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)


PHASES = ("selfplay", "train", "export", "evaluate")


class StopFlag:
    """First Ctrl-C or SIGTERM: finish cleanly; a second Ctrl-C: interrupt at once."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: dict[int, Any] = {}

    def __call__(self) -> bool:
        return self.requested

    def install(self) -> None:
        """Takes over SIGINT and SIGTERM (main thread only) until :meth:`restore`."""
        def handler(signum: int, frame: Any) -> None:
            if self.requested and signum == signal.SIGINT:
                raise KeyboardInterrupt
            self.requested = True
            print("\nstopping after the current step (Ctrl-C again to interrupt)", flush=True)

        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, handler)

    def restore(self) -> None:
        """Puts back the handlers :meth:`install` replaced (callers in a longer-lived process,
        such as tests, get their own Ctrl-C back)."""
        for sig, h in self._previous.items():
            signal.signal(sig, h)
        self._previous.clear()


def _with_defaults(saved: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``saved`` with the keys it lacks taken from ``defaults``, nested dicts alike."""
    out = dict(saved)
    for k, v in defaults.items():
        if k not in out:
            out[k] = v
        elif isinstance(v, dict) and isinstance(out[k], dict):
            out[k] = _with_defaults(out[k], v)
    return out


class Loop:
    def __init__(self, cfg: LoopConfig, change_config: bool = True) -> None:
        """``change_config`` False: a resumed run whose config.json differs from ``cfg`` stops
        (the command line's ``loop``); True: ``cfg`` runs from here on, the old one kept."""
        self.cfg = cfg
        self.change_config = change_config
        self.run = Path(cfg.run_dir)
        self.games_dir = self.run / "games"
        self.nets = self.run / "nets"
        self.state_path = self.run / "state.json"
        self.stop = StopFlag()
        self.state: dict[str, Any] = {}
        self._writer: Any = None
        self.progress = True
        """tqdm bars for training (off where another process shows the progress)."""

    # --------------------------------------------------------------- state

    def net_path(self, gen: int) -> Path:
        return self.nets / f"gen-{gen:04d}.onnx"

    def save_state(self) -> None:
        data = json.dumps(self.state, indent=1).encode()
        atomic_write(self.state_path, lambda f: f.write(data))

    def history(self, gen: int) -> dict[str, Any]:
        p = self.run / "history" / f"gen-{gen:04d}.json"
        return json.loads(p.read_text()) if p.exists() else {"generation": gen}

    def save_history(self, gen: int, key: str, value: Any) -> None:
        h = self.history(gen)
        h[key] = value
        data = json.dumps(h, indent=1).encode()
        atomic_write(self.run / "history" / f"gen-{gen:04d}.json", lambda f: f.write(data))

    def scalars(self, values: dict[str, float], step: int) -> None:
        """TensorBoard scalars in RUN/tb beside the trainer's (nothing without TensorBoard)."""
        if self._writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
                self._writer = SummaryWriter(log_dir=str(self.run / "tb"))
            except ImportError:
                self._writer = False
        if self._writer:
            for k, v in values.items():
                self._writer.add_scalar(k, v, step)
            self._writer.flush()

    def record_selfplay(self, gen: int, parts: list[dict[str, Any]]) -> None:
        """Adds self-play summaries (one per worker run, each with its ``worker`` id) to the
        generation's history, and positions/s per worker and in all to TensorBoard."""
        if not parts:
            return
        self.save_history(gen, "selfplay_parts", self.history(gen).get("selfplay_parts", [])
                          + parts)
        values = {f"selfplay/positions_per_s/worker_{p['worker']:03d}": p["positions_per_s"]
                  for p in parts}
        values["selfplay/positions_per_s"] = sum(p["positions_per_s"] for p in parts)
        self.scalars(values, gen)

    @property
    def muzero(self) -> bool:
        if self.cfg.mode not in ("alphazero", "muzero"):
            raise ValueError(f"unknown loop mode {self.cfg.mode!r}; expected alphazero or muzero")
        return self.cfg.mode == "muzero"

    def trainer(self) -> Any:
        if self.muzero:
            from trainer.muzero.train import MuZeroTrainConfig, MuZeroTrainer

            return MuZeroTrainer.create(self.cfg.init, MuZeroTrainConfig(**asdict(self.cfg.train)),
                                        self.run)
        return Trainer.create(self.cfg.init, self.cfg.train, self.run)

    def export(self, t: Any, gen: int, path: Path | None = None) -> dict[str, Any]:
        path = path or self.net_path(gen)
        if self.muzero:
            from trainer.muzero.loop_support import export_and_check_muzero

            return export_and_check_muzero(t, path, generation=gen)
        return export_and_check(t, path, generation=gen,
                                extra=mix_metadata(self.cfg.mix_data, self.cfg.mix_share,
                                                  self.cfg.mix_targets))

    def export_averaged(self, t: Any, gen: int) -> dict[str, Any]:
        """``export_ema``: the trained net to ``nets/trained/``, then its weighted mean with the
        best net (the one this generation's games came from) as ``gen-<g>.onnx``. Redone whole
        on a resume: the best net changes only after the evaluation."""
        from trainer.learn.average import average_onnx

        a = self.cfg.export_ema
        assert a is not None
        if self.muzero:
            raise ValueError("export_ema averages AlphaZero nets; a MuZero net is two graphs")
        trained = self.nets / "trained" / f"gen-{gen:04d}.onnx"
        trained.parent.mkdir(parents=True, exist_ok=True)
        info = self.export(t, gen, trained)
        previous = self.run / self.state["best"]
        moved = average_onnx([previous, trained], self.net_path(gen), weights=[1.0 - a, a])
        return {**info, "path": str(self.net_path(gen)), "trained": str(trained),
                "ema": {"weight": a, "previous": previous.name, **moved}}

    def initialise(self) -> None:
        """Generation 0: the initial net exported, checkpointed at step 0, the state file."""
        cfg_data = json.dumps(asdict(self.cfg), indent=1).encode()
        cfg_path = self.run / "config.json"
        if self.state_path.exists():
            self.state = json.loads(self.state_path.read_text())
            old = json.loads(cfg_path.read_text()) if cfg_path.exists() else None
            if old is not None:
                # A setting added since the run began ran at its default (--policy-power).
                old = _with_defaults(old, json.loads(json.dumps(asdict(LoopConfig("")))))
            if old is not None and old != json.loads(cfg_data):
                if not self.change_config:
                    new = json.loads(cfg_data)
                    diff = {k: (old.get(k), v) for k, v in new.items() if old.get(k) != v}
                    raise SystemExit(f"{self.run} was started with other settings (old, new): "
                                     f"{diff}; resume with the same ones, or pass "
                                     "--change-config")
                # Resumed with other settings: config.json says what runs from here on, and
                # the one it replaces is kept under the generation it stopped at.
                gen = self.state["generation"]
                cfg_path.replace(self.run / f"config-before-gen-{gen:04d}.json")
                atomic_write(cfg_path, lambda f: f.write(cfg_data))
            return
        self.run.mkdir(parents=True, exist_ok=True)
        atomic_write(cfg_path, lambda f: f.write(cfg_data))
        t = self.trainer()
        if t.step == 0 and not list((self.run / "checkpoints").glob("ckpt-*.pt")):
            t.save({"generation": 0})
        self.export(t, 0)
        self.state = {"generation": 1, "phase": "selfplay", "step": t.step,
                      "best": str(self.net_path(0).relative_to(self.run)), "created": time.time()}
        self.save_state()

    # --------------------------------------------------------------- phases

    def finished(self) -> bool:
        """Whether the planned generations are all done."""
        return bool(self.cfg.generations) and self.state["generation"] > self.cfg.generations

    def run_phase(self) -> bool:
        """Runs the current phase; when it completes, moves the saved state on to the next
        phase (the next generation after ``evaluate``). Returns whether it completed."""
        gen, phase = self.state["generation"], self.state["phase"]
        print(f"== generation {gen}: {phase}", flush=True)
        if not getattr(self, f"phase_{phase}")(gen):
            return False
        nxt = PHASES[(PHASES.index(phase) + 1) % len(PHASES)]
        if nxt == "selfplay":
            self.state["generation"] = gen + 1
        self.state["phase"] = nxt
        self.save_state()
        return True

    def stopped(self) -> int:
        """Saves the state after a stop; the exit code of a stopped run."""
        self.save_state()
        print(f"stopped at generation {self.state['generation']} ({self.state['phase']}); "
              f"run the same command to continue")
        return 130

    def run_loop(self) -> int:
        """Runs generations until ``generations`` is reached or a stop is asked; returns an exit
        code (0 done, 130 stopped)."""
        self.stop.install()
        try:
            self.initialise()
            while not self.stop():
                if self.finished():
                    print(f"done: {self.cfg.generations} generations in {self.run}")
                    return 0
                if not self.run_phase():
                    break
            return self.stopped()
        finally:
            self.stop.restore()

    def phase_selfplay(self, gen: int) -> bool:
        from trainer.play.selfplay import selfplay_evaluator

        have = len(list_records(self.games_dir, generation=gen))
        need = self.cfg.games - have
        if need > 0:
            net = self.run / self.state["best"]
            worker: Any
            if self.muzero:
                from engine.evaluator import OnnxMuZero
                from trainer.muzero.selfplay import MuZeroSelfPlay

                worker = MuZeroSelfPlay(OnnxMuZero.load(str(net), threads=self.cfg.threads),
                                        self.cfg.selfplay, self.games_dir, gen, self.cfg.worker,
                                        net.name)
            else:
                ev = selfplay_evaluator("cpu", str(net), self.cfg.threads, self.cfg.precision)
                worker = SelfPlayWorker(ev, self.cfg.selfplay, self.games_dir, gen,
                                        self.cfg.worker, net.name)
            stats = worker.run(need, should_stop=self.stop, progress=True)
            summary = {"worker": self.cfg.worker, **stats.summary()}
            self.record_selfplay(gen, [summary])
            print(f"self-play: {stats.games} games, {stats.positions} positions, "
                  f"{summary['positions_per_s']:.1f} positions/s, mean batch "
                  f"{summary['mean_batch']:.0f}, false resignations "
                  f"{stats.false_resign}/{stats.would_resign}", flush=True)
        return len(list_records(self.games_dir, generation=gen)) >= self.cfg.games

    def phase_train(self, gen: int) -> bool:
        t = self.trainer()
        window: Any
        if self.muzero:
            from trainer.muzero.loop_support import TrajectoryWindow

            window = TrajectoryWindow([*self.cfg.extra_data, self.games_dir], self.cfg.window)
        else:
            window = training_window([*self.cfg.extra_data, self.games_dir], self.cfg.window,
                                     self.cfg.dedup, self.cfg.mix_data, self.cfg.mix_share,
                                     self.cfg.mix_targets)
        window.refresh()
        target = self.train_target(gen)
        data = window.data if self.muzero else window
        metrics = t.train(data, target, should_stop=self.stop, progress=self.progress,
                          tag=f"train g{gen}")
        t.save({"generation": gen})
        t.close()
        self.state["step"] = t.step
        if "loss" in metrics:  # steps were taken in this call
            self.scalars({"learner/steps_per_s": metrics["steps_per_s"]}, t.step)
        if t.step >= target and ("loss" in metrics or "train" not in self.history(gen)):
            self.save_history(gen, "train", {"step": t.step, "positions": t.positions,
                                             "window": window.stats(), **metrics})
        return t.step >= target

    def train_target(self, gen: int) -> int:
        """The step generation ``gen`` trains to: the previous generation's last step plus
        ``steps``. Taken from the history, not ``gen * steps``, so that a run resumed with
        another ``--steps`` changes the generations after it and leaves those before alone."""
        if gen <= 1:
            return self.cfg.steps
        prev = self.history(gen - 1).get("train", {}).get("step")
        return (prev if prev is not None else (gen - 1) * self.cfg.steps) + self.cfg.steps

    def phase_export(self, gen: int) -> bool:
        t = self.trainer()
        info = self.export(t, gen) if self.cfg.export_ema is None else self.export_averaged(t, gen)
        self.save_history(gen, "export", info)
        if self.cfg.heldout:
            from trainer.arena.heldout import agreement, record_files

            figures = agreement(self.net_path(gen), record_files(self.cfg.heldout),
                                threads=self.cfg.threads)
            self.save_history(gen, "heldout", figures)
            print(f"gen {gen} held out: value MAE {figures['value_mae']:.3f}, policy top-1 "
                  f"{figures['policy_top1']:.3f}", flush=True)
        return True

    def phase_evaluate(self, gen: int) -> bool:
        new = self.net_path(gen)
        best = self.run / self.state["best"]
        results: dict[str, Any] = {}
        if self.cfg.eval_games > 0:
            opponents = {"previous": best, "reference": self.net_path(0)}
            if not self.cfg.eval_previous and self.cfg.gate is None:
                del opponents["previous"]
            for label, other in opponents.items():
                if label == "reference" and other == best and "previous" in results:
                    results[label] = results["previous"]
                    continue
                try:
                    results[label] = evaluate(new, other, self.cfg, self.run / "eval"
                                              / f"gen-{gen:04d}-vs-{label}.pgn")
                except ImportError as exc:
                    results["skipped"] = f"no match runner: {exc}"
                    break
                # A match stopped by Ctrl-C is not this generation's result: nothing is recorded
                # or promoted, and the next run resumes the match from the games in its PGN.
                if results[label].pop("interrupted", False):
                    print(f"gen {gen} vs {label}: interrupted after "
                          f"{results[label]['games']} games; not recorded", flush=True)
                    return False
        promoted = True
        if self.cfg.gate is not None and "previous" in results:
            promoted = results["previous"]["score"] >= self.cfg.gate
        if promoted:
            self.state["best"] = str(new.relative_to(self.run))
        results["promoted"] = promoted
        self.save_history(gen, "evaluate", results)
        for label in ("previous", "reference"):
            r = results.get(label)
            if r:
                print(f"gen {gen} vs {label}: {r['wins']}W {r['draws']}D {r['losses']}L, "
                      f"score {r['score']:.3f}, Elo {r['elo']:+.0f} +/- {r['error']:.0f}")
        try:
            make_plots(self.run)
        except Exception as exc:  # plots are a convenience; never stop the loop for them
            print(f"plots failed: {exc}")
        return True


def export_and_check(trainer: Trainer, path: Path, generation: int,
                     extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Exports the trainer's model with its metadata (``extra`` added to, or replacing, the
    defaults), then loads it with the engine's evaluator and runs a batch: a net the engine
    cannot use must not enter the loop."""
    from engine.evaluator import OnnxEvaluator
    from trainer.learn.export import export_onnx, random_planes

    meta = {"steps": trainer.step, "positions": trainer.positions, "generation": generation,
            "training": "zerosum self-play reinforcement", **(extra or {})}
    diff = export_onnx(trainer.model, path, meta)
    ev = OnnxEvaluator(str(path), threads=1)
    out = ev.evaluate(random_planes(4))
    ok = (out.policy.shape == (4, 1858) and np.allclose(out.wdl.sum(1), 1.0, atol=1e-4)
          and bool(np.isfinite(out.policy).all()))
    if not ok:
        raise RuntimeError(f"the engine's evaluator rejects {path}")
    return {"path": str(path), "max_abs_diff": diff, "steps": trainer.step,
            "positions": trainer.positions, "engine_loads": ok}


def evaluate(new: Path, other: Path, cfg: LoopConfig, pgn_path: Path) -> dict[str, Any]:
    """A match through the engine (trainer/arena/match.py): each opening with both colours, fixed
    nodes per move (or ``eval_tc``'s clock); score and Elo with its 95% interval from the new
    net's side. The same openings every generation, so that generations are compared on equal
    terms."""
    from trainer.arena.match import (DEFAULT_OPENINGS, TimeControl, play_match, read_openings,
                               zerosum_spec)

    pgn_path.parent.mkdir(parents=True, exist_ok=True)
    book = cfg.eval_openings or cfg.selfplay.openings or str(DEFAULT_OPENINGS)
    openings = read_openings(book, (cfg.eval_games + 1) // 2, seed=1) if Path(book).is_file() \
        else None
    from trainer.arena.match_pgn import played_games

    opts = {"Threads": 1, "NNThreads": 1}
    a = zerosum_spec(new, f"zerosum-{new.stem}", **opts)
    b = zerosum_spec(other, f"zerosum-{other.stem}", **opts)
    tc = TimeControl.parse(cfg.eval_tc or f"nodes={cfg.eval_nodes}")
    try:  # a loop killed mid-match keeps the games it finished (PATH.partial)
        previous = played_games(pgn_path, a.name, b.name, openings, tc)
    except ValueError as exc:  # another match's file (settings changed): play it again
        print(f"evaluate: not resuming from {pgn_path}: {exc}", flush=True)
        previous = []
    previous = previous if len(previous) <= cfg.eval_games else []
    if previous:
        print(f"evaluate: resuming with {len(previous)} of {cfg.eval_games} games played",
              flush=True)
    res = play_match(a, b, openings=openings, games=cfg.eval_games, tc=tc,
                     concurrency=cfg.eval_concurrency, pgn_path=pgn_path,
                     max_plies=cfg.selfplay.max_plies, progress=False, previous=previous)
    print(res.summary(), flush=True)
    d = res.to_dict()
    return {"opponent": other.name, "tc": str(tc), "nodes": tc.nodes, "error": d["elo_error"],
            "lower": d["elo_lower"], "upper": d["elo_upper"], "note": d["elo_note"],
            **{k: d[k] for k in ("games", "wins", "draws", "losses", "score", "elo", "los",
                                 "failures", "seconds", "interrupted")}}


def make_plots(run: Path) -> None:
    """PNGs of the training losses, Elo by generation and self-play game lengths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = run / "plots"
    out.mkdir(exist_ok=True)

    def save(fig: Any, ax: Any, xlabel: str, ylabel: str, name: str) -> None:
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        fig.tight_layout()
        fig.savefig(out / name, dpi=90)
        plt.close(fig)

    log = run / "train_log.jsonl"
    if log.exists():
        rows = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
        fig, ax = plt.subplots(figsize=(7, 4))
        for key in ("policy_loss", "value_loss", "mlh_loss"):
            pts = [(r["step"], r[key]) for r in rows if key in r]
            if pts:
                ax.plot(*zip(*pts), label=key)
        save(fig, ax, "step", "loss", "losses.png")
    hist = [json.loads(p.read_text()) for p in sorted((run / "history").glob("gen-*.json"))]
    fig, ax = plt.subplots(figsize=(7, 4))
    cumulative, pts = 0.0, []
    for h in hist:
        prev = h.get("evaluate", {}).get("previous")
        if prev:
            cumulative += prev["elo"] if np.isfinite(prev["elo"]) else 0.0
            pts.append((h["generation"], cumulative))
    if pts:
        ax.plot(*zip(*pts), "o-", label="sum of gains vs previous")
    ref = [(h["generation"], h["evaluate"]["reference"]) for h in hist
           if h.get("evaluate", {}).get("reference")]
    if ref:
        ax.errorbar([g for g, _ in ref], [r["elo"] for _, r in ref],
                    yerr=[min(r["error"], 1000) for _, r in ref], fmt="s-", label="vs gen 0")
    save(fig, ax, "generation", "Elo", "elo.png")
    lengths = [(h["generation"], float(np.mean([p["mean_plies"] for p in h["selfplay_parts"]])))
               for h in hist if h.get("selfplay_parts")]
    fig, ax = plt.subplots(figsize=(7, 4))
    if lengths:
        ax.plot(*zip(*lengths), "o-")
    save(fig, ax, "generation", "mean game length (plies)", "game_lengths.png")
    held = [(h["generation"], h["heldout"]) for h in hist if h.get("heldout")]
    if held:
        fig, ax = plt.subplots(figsize=(7, 4))
        gens = [g for g, _ in held]
        ax.plot(gens, [f["value_mae"] for _, f in held], "o-", label="value MAE")
        ax.plot(gens, [f["policy_top1"] for _, f in held], "s-", label="policy top-1")
        save(fig, ax, "generation", "against Stockfish's labels (held out)", "heldout.png")
