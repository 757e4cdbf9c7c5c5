"""The learner: trains the net on samples from the replay window.

Loss per batch (means over the batch; the policy term over positions with a full search only):
    policy_weight * CE(visit distribution ** policy_power (renormalised), policy logits)
  + value_weight  * CE((1 - q_weight) * game result + q_weight * root WDL, WDL logits)
  + mlh_weight    * Huber((moves-left - plies left) / 20)        [with the head, known targets]
Weight decay through the optimizer (AdamW, or SGD with Nesterov momentum), on weights only.
The learning rate warms up linearly, then follows a cosine (or step, or constant) schedule over
``total_steps``; gradients are clipped by norm.

Why each step's sample is drawn from a generator seeded by (seed, step): resuming from a
checkpoint then replays exactly the batches an uninterrupted run would have drawn (given the same
window), without storing generator state. Checkpoints go through trainer/learn/checkpoint.py (atomic,
weights_only loadable), named ``ckpt-<step>.pt``, the last ``keep`` kept.
"""

from __future__ import annotations

import json
import math
import time
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Generic, Self, TypeVar

import numpy as np
import torch
import torch.nn.functional as F

from trainer.learn.checkpoint import load_model, restore_optimizer, save_checkpoint
from trainer.learn.config import NetConfig, get_config
from trainer.learn.model import Net
from trainer.data.replay import Batch, MixedWindow, ReplayWindow

MLH_SCALE = 20.0


PRECISIONS = ("fp32", "bf16")
"""what :attr:`TrainConfig.precision` takes."""


@dataclass
class TrainConfig:
    batch_size: int = 256
    lr: float = 2e-3
    """peak learning rate."""
    optimizer: str = "adamw"
    """adamw or sgd (Nesterov momentum 0.9)."""
    weight_decay: float = 1e-4
    warmup: int = 100
    schedule: str = "cosine"
    """cosine (to lr_floor * lr at total_steps), step (x0.1 at 50% and 80%), constant."""
    total_steps: int = 10_000
    lr_floor: float = 0.05
    clip: float = 1.0
    policy_weight: float = 1.0
    policy_power: float = 1.0
    """the policy target raised to this power and renormalised. Why: a Stockfish label's target
    is the softmax of its MultiPV scores at 60 cp (trainer/data/sflabel.py), so power k is that
    softmax at 60/k cp, exactly, without relabelling: a sharper target spends the net's
    capacity on telling the best move from the near-best ones."""
    value_weight: float = 1.0
    mlh_weight: float = 0.1
    q_weight: float = 0.3
    """share of the root's search value in the value target (the rest: the game result)."""
    log_every: int = 25
    checkpoint_every: int = 200
    keep: int = 3
    seed: int = 0
    device: str = "cpu"
    threads: int = 2
    precision: str = "fp32"
    """fp32, or bf16: the forward pass under torch.autocast in bfloat16 (weights, gradients and
    optimizer state stay fp32). Why: on a CPU with AVX-512 BF16 or AMX, oneDNN's bf16
    convolutions train a 6x64 net about 1.6x faster (``benchmarks/train_speed.py``)."""
    train_only: list[str] = field(default_factory=list)
    """parameter-name prefixes (``policy_``, ``value_``, ``tower.5.``): only these train, the
    rest stay as they are (empty: all train). Why: to move one head, the policy say, on
    self-play targets while the value keeps what it knows (selfplay-runs.md section 23)."""


def lr_at(step: int, cfg: TrainConfig) -> float:
    """Linear warm-up, then the schedule; ``step`` counts from 0 over the whole run."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    t = min(1.0, (step - cfg.warmup) / max(1, cfg.total_steps - cfg.warmup))
    if cfg.schedule == "cosine":
        return cfg.lr * (cfg.lr_floor + (1 - cfg.lr_floor) * 0.5 * (1 + math.cos(math.pi * t)))
    if cfg.schedule == "step":
        return cfg.lr * (1.0 if t < 0.5 else 0.1 if t < 0.8 else 0.01)
    if cfg.schedule == "constant":
        return cfg.lr
    raise ValueError(f"unknown schedule {cfg.schedule!r}")


def make_optimizer(model: torch.nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    """AdamW or SGD+Nesterov; no weight decay on biases and norm parameters. With
    ``train_only``, the other parameters are frozen (no gradient, not in the optimizer)."""
    if cfg.train_only:
        for name, p in model.named_parameters():
            p.requires_grad_(any(name.startswith(x) for x in cfg.train_only))
        if not any(p.requires_grad for p in model.parameters()):
            names = sorted({n.split(".")[0] for n, _ in model.named_parameters()})
            raise ValueError(f"--train-only {' '.join(cfg.train_only)}: no parameter has such "
                             f"a name (they begin {', '.join(names)})")
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.dim() >= 2]
    rest = [p for p in params if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay},
              {"params": rest, "weight_decay": 0.0}]
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.99))
    if cfg.optimizer == "sgd":
        return torch.optim.SGD(groups, lr=cfg.lr, momentum=0.9, nesterov=True)
    raise ValueError(f"unknown optimizer {cfg.optimizer!r}")


def value_target(b: Batch, q_weight: float) -> np.ndarray:
    """Blend of the game result and the root's WDL (from its Q = W-L and D). D is capped at
    1 - |Q| first: clipping a negative W or L and renormalising instead would pull Q toward 0."""
    q = b.root_q.astype(np.float64).clip(-1, 1)
    d = np.minimum(b.root_d.astype(np.float64).clip(0, 1), 1 - np.abs(q))
    root = np.stack([(1 + q - d) / 2, d, (1 - q - d) / 2], axis=1)
    return ((1 - q_weight) * b.wdl + q_weight * root).astype(np.float32)


def compute_losses(model: Net, b: Batch, cfg: TrainConfig,
                   device: torch.device) -> tuple[torch.Tensor, dict[str, float]]:
    """The weighted loss and its parts and accuracies as floats."""
    planes = torch.from_numpy(b.planes).to(device)
    pol = torch.from_numpy(b.policy).to(device)
    has = torch.from_numpy(b.has_policy).to(device)
    if cfg.policy_power != 1.0:
        pol = pol.pow(cfg.policy_power)
        pol = pol / pol.sum(1, keepdim=True).clamp(min=1e-12)
    wdl_t = torch.from_numpy(value_target(b, cfg.q_weight)).to(device)
    out = model.heads(planes)
    # float(): under bf16 autocast the logits arrive in bfloat16; the losses are taken in fp32.
    logp = F.log_softmax(out.policy.float(), dim=1)
    n_pol = has.sum()
    pol_rows = -(pol * logp).sum(1)
    policy_loss = (pol_rows * has).sum() / n_pol.clamp(min=1)
    value_loss = -(wdl_t * F.log_softmax(out.wdl.float(), dim=1)).sum(1).mean()
    loss = cfg.policy_weight * policy_loss + cfg.value_weight * value_loss
    metrics = {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(),
               "policy_positions": float(n_pol.item())}
    with torch.no_grad():
        if n_pol.item():
            hit = (out.policy.argmax(1) == pol.argmax(1)) & has
            metrics["policy_top1"] = hit.sum().item() / n_pol.item()
        result = torch.from_numpy(b.wdl).to(device).argmax(1)
        metrics["value_acc"] = (out.wdl.argmax(1) == result).float().mean().item()
    if out.mlh is not None:
        plies = torch.from_numpy(b.plies_left).to(device)
        known = plies >= 0
        if known.any():
            mlh_loss = F.huber_loss(out.mlh.float().squeeze(1)[known] / MLH_SCALE,
                                    plies[known] / MLH_SCALE, delta=1.0)
            loss = loss + cfg.mlh_weight * mlh_loss
            metrics["mlh_loss"] = mlh_loss.item()
    metrics["loss"] = loss.item()
    return loss, metrics


def checkpoints(ckpt_dir: Path) -> list[Path]:
    """Checkpoints oldest first (by step in the name)."""
    return sorted(ckpt_dir.glob("ckpt-*.pt"))


M = TypeVar("M", bound=torch.nn.Module)
"""The model a learner trains."""
S = TypeVar("S")
"""Where a learner's batches come from (a replay window, trajectory data)."""


class BaseTrainer(Generic[M, S], ABC):
    """A model, its optimizer and step counter, with checkpoints and logs in ``out_dir``: what the
    AlphaZero and MuZero learners share. A subclass says how a checkpoint becomes a model
    (:meth:`load`), how ``init`` does (:meth:`fresh_model`), how a batch is drawn from its data
    (:meth:`sample`) and what its loss is (:meth:`loss`)."""

    scalar_prefix = "train"
    """TensorBoard tag prefix of the logged scalars."""
    mode: str | None = None
    """written into each checkpoint's metadata (``"mode"``) when set, so loaders can tell kinds."""

    def __init__(self, model: M, cfg: TrainConfig, out_dir: str | Path,
                 state: dict[str, Any] | None = None) -> None:
        if cfg.precision not in PRECISIONS:
            raise ValueError(f"unknown training precision {cfg.precision!r}; expected one of "
                             f"{', '.join(PRECISIONS)}")
        self.cfg = cfg
        self.out_dir = Path(out_dir)
        self.ckpt_dir = self.out_dir / "checkpoints"
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.device = torch.device(cfg.device)
        if cfg.device.startswith("cuda") and not torch.cuda.is_available():
            raise SystemExit("--device cuda was asked for but torch sees no GPU here")
        torch.set_num_threads(cfg.threads)
        self.model: M = model.to(self.device)
        self.optimizer = make_optimizer(self.model, cfg)
        self.step = 0
        self.positions = 0
        if state is not None:
            if state.get("optimizer") is not None:
                restore_optimizer(self.optimizer, state)
            self.step = int(state["step"])
            self.positions = int(state.get("metadata", {}).get("positions", 0))
        self._writer: Any = None

    @staticmethod
    @abstractmethod
    def load(path: str | Path) -> tuple[M, dict[str, Any]]:
        """The model in checkpoint ``path`` and the checkpoint dict."""

    @staticmethod
    @abstractmethod
    def fresh_model(init: Any) -> M:
        """The model to start from when there is no checkpoint to resume (weights only)."""

    @abstractmethod
    def sample(self, data: S, rng: np.random.Generator) -> Any:
        """The batch of one step, drawn with ``rng`` (seeded by (seed, step))."""

    @abstractmethod
    def loss(self, batch: Any) -> tuple[torch.Tensor, dict[str, float]]:
        """The weighted loss of ``batch`` and its parts as floats (with "loss", "policy_loss"
        and "value_loss" for the progress bar)."""

    @classmethod
    def create(cls, init: Any, cfg: TrainConfig, out_dir: str | Path,
               resume: bool = True) -> Self:
        """Resumes from the newest checkpoint in ``out_dir`` when there is one (and ``resume``),
        else starts from :meth:`fresh_model` of ``init`` (the step count and optimizer afresh)."""
        found = checkpoints(Path(out_dir) / "checkpoints") if resume else []
        if found:
            model, state = cls.load(found[-1])
            return cls(model, cfg, out_dir, state)
        torch.manual_seed(cfg.seed)
        return cls(cls.fresh_model(init), cfg, out_dir)

    @property
    def writer(self) -> Any:
        """TensorBoard writer, made on first use (its import is slow); None without TensorBoard."""
        if self._writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
                self._writer = SummaryWriter(log_dir=str(self.out_dir / "tb"))
            except ImportError:
                self._writer = False
        return self._writer or None

    def save(self, extra: dict[str, Any] | None = None) -> Path:
        """Writes ``ckpt-<step>.pt`` atomically and removes all but the last ``keep``."""
        path = self.ckpt_dir / f"ckpt-{self.step:08d}.pt"
        meta = {"positions": self.positions, "train_config": asdict(self.cfg), **(extra or {})}
        if self.mode is not None:
            meta["mode"] = self.mode
        save_checkpoint(path, self.model, self.step, self.optimizer, meta)  # type: ignore[arg-type]
        for old in checkpoints(self.ckpt_dir)[:-max(1, self.cfg.keep)]:
            old.unlink(missing_ok=True)
        return path

    def train(self, data: S, until_step: int,
              should_stop: Callable[[], bool] = lambda: False,
              progress: bool = True, tag: str | None = None) -> dict[str, float]:
        """Trains until ``until_step`` (a global step count); returns the mean metrics. ``tag``
        (the progress bar's and the log's) defaults to :attr:`scalar_prefix`."""
        from tqdm import tqdm

        cfg = self.cfg
        tag = self.scalar_prefix if tag is None else tag
        self.model.train()
        sums: dict[str, float] = {}
        count = 0
        window_sums: dict[str, float] = {}
        window_n = 0
        t0 = time.monotonic()
        bar = tqdm(total=until_step, initial=self.step, desc=tag, unit="step",
                   dynamic_ncols=True, mininterval=1.0, disable=not progress)
        try:
            while self.step < until_step and not should_stop():
                rng = np.random.default_rng([cfg.seed, self.step])
                b = self.sample(data, rng)
                lr = lr_at(self.step, cfg)
                for g in self.optimizer.param_groups:
                    g["lr"] = lr
                with self.autocast():
                    loss, m = self.loss(b)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                gnorm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.clip)
                self.optimizer.step()
                self.step += 1
                self.positions += len(b.planes)
                m["grad_norm"] = float(gnorm)
                for k, v in m.items():
                    sums[k] = sums.get(k, 0.0) + v
                    window_sums[k] = window_sums.get(k, 0.0) + v
                count += 1
                window_n += 1
                bar.update(1)
                bar.set_postfix(loss=f"{m['loss']:.3f}", pol=f"{m['policy_loss']:.3f}",
                                val=f"{m['value_loss']:.3f}", lr=f"{lr:.1e}")
                if self.step % cfg.log_every == 0 or self.step == until_step:
                    self._log(lr, tag, {k: v / window_n for k, v in window_sums.items()})
                    window_sums, window_n = {}, 0
                if self.step % cfg.checkpoint_every == 0:
                    self.save()
        finally:
            bar.close()
        out = {k: v / count for k, v in sums.items()} if count else {}
        out["steps_per_s"] = count / max(1e-9, time.monotonic() - t0)
        return out

    def autocast(self) -> torch.autocast:
        """The forward pass's precision context (:attr:`TrainConfig.precision`)."""
        return torch.autocast(self.device.type, dtype=torch.bfloat16,
                              enabled=self.cfg.precision == "bf16")

    def _log(self, lr: float, tag: str, means: dict[str, float]) -> None:
        """One line of ``train_log.jsonl`` and the same scalars to TensorBoard."""
        rec: dict[str, Any] = {"step": self.step, "positions": self.positions, "lr": lr,
                               "time": time.time(), "tag": tag, **means}
        with open(self.out_dir / "train_log.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")
        if self.writer is not None:
            for k, v in rec.items():
                if k not in ("step", "time", "tag"):
                    self.writer.add_scalar(f"{self.scalar_prefix}/{k}", v, self.step)
            self.writer.flush()

    def close(self) -> None:
        if self._writer:
            self._writer.close()


class Trainer(BaseTrainer[Net, ReplayWindow | MixedWindow]):
    """The AlphaZero learner: one net, trained on samples of a replay window."""

    @staticmethod
    def load(path: str | Path) -> tuple[Net, dict[str, Any]]:
        return load_model(path)

    @staticmethod
    def fresh_model(init: str | NetConfig) -> Net:
        """``init``: a preset name, a NetConfig, a checkpoint path or an ONNX net this trainer
        exported."""
        if isinstance(init, NetConfig):
            return Net(init)
        if str(init).endswith(".onnx"):
            from trainer.learn.onnx_import import model_from_onnx
            return model_from_onnx(init)
        if str(init).endswith(".pt"):
            return load_model(init)[0]
        return Net(get_config(str(init)))

    def sample(self, data: ReplayWindow | MixedWindow, rng: np.random.Generator) -> Batch:
        return data.sample(self.cfg.batch_size, rng)

    def loss(self, batch: Batch) -> tuple[torch.Tensor, dict[str, float]]:
        return compute_losses(self.model, batch, self.cfg, self.device)
