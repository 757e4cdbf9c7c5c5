"""The MuZero learner: the unrolled loss over K steps and a trainer like trainer/train.py's.

Loss of a batch (MuZero, Schrittwieser et al. 2020, appendix G and its pseudocode):

    s0 = h(planes);  p_k, v_k = f(s_k);  s_k, r_k = g(s_{k-1}, a_k)      k = 1..K
    L = CE(pi_0, p_0) + CE(z_0, v_0)
      + sum_k 1/K * [ CE(pi_k, p_k) + CE(z_k, v_k) + CE(u_k, r_k) ]

pi: visit distributions (self-play) or teacher policies (Stockfish's MultiPV softmax); z: WDL
targets (the AlphaZero trainer's blend of game result and root value); u: the reward class of
the move played (chess: discount 1, a reward only when the move ends the game). Each term is
a mean over the samples that have that target at that step (see data.py for the masks). The
state passed into g at each step has its gradient halved (``scale_gradient(s, 0.5)``), so the
dynamics' total gradient stays bounded however deep the unroll.

Checkpoints, resume, logs and progress bars follow trainer/train.py: the batch of step t comes
from a generator seeded by (seed, t), so a resumed run replays the batches an uninterrupted one
would have drawn; checkpoints are written atomically by trainer/checkpoint.py.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from trainer.checkpoint import load_checkpoint, restore_optimizer, save_checkpoint
from trainer.muzero.data import TrajectoryBatch, TrajectoryData
from trainer.muzero.model import MuZeroConfig, MuZeroNet, get_config
from trainer.train import TrainConfig, checkpoints, lr_at, make_optimizer

MODE = "muzero"


@dataclass
class MuZeroTrainConfig(TrainConfig):
    unroll: int = 5
    """K: unroll steps of the dynamics."""
    reward_weight: float = 1.0
    dynamics_grad_scale: float = 0.5
    """factor on the gradient flowing back into the state at each step."""


def scale_gradient(x: Tensor, scale: float) -> Tensor:
    """Identity forwards, gradient times ``scale`` backwards."""
    return x * scale + x.detach() * (1 - scale)


def _masked_ce(target: Tensor, logits: Tensor, mask: Tensor) -> Tensor:
    rows = -(target * F.log_softmax(logits, dim=-1)).sum(-1)
    return (rows * mask).sum() / mask.sum().clamp(min=1)


def unrolled_loss(model: MuZeroNet, b: TrajectoryBatch, cfg: MuZeroTrainConfig,
                  device: torch.device) -> tuple[Tensor, dict[str, float]]:
    """The weighted loss over K+1 predictions, with per-step parts and accuracies."""
    t = lambda a: torch.from_numpy(a).to(device)  # noqa: E731
    planes, actions = t(b.planes), t(b.actions)
    policy, has_pol = t(b.policy), t(b.has_policy).float()
    value, has_val = t(b.value), t(b.has_value).float()
    reward, has_rew = t(b.reward), t(b.has_reward).float()
    k_steps = actions.shape[1]
    state = model.represent(planes)
    loss = torch.zeros((), device=device)
    metrics: dict[str, float] = {}
    for k in range(k_steps + 1):
        if k > 0:
            state, r_logits = model.dynamics(scale_gradient(state, cfg.dynamics_grad_scale),
                                             actions[:, k - 1])
            onehot = F.one_hot(reward[:, k - 1], 3).float()
            r_loss = _masked_ce(onehot, r_logits, has_rew[:, k - 1])
        p_logits, v_logits = model.predict(state)
        p_loss = _masked_ce(policy[:, k], p_logits, has_pol[:, k])
        v_loss = _masked_ce(value[:, k], v_logits, has_val[:, k])
        step = cfg.policy_weight * p_loss + cfg.value_weight * v_loss
        if k > 0:
            step = (step + cfg.reward_weight * r_loss) / k_steps
            metrics[f"reward_loss_{k}"] = r_loss.item()
        loss = loss + step
        metrics[f"policy_loss_{k}"] = p_loss.item()
        metrics[f"value_loss_{k}"] = v_loss.item()
        with torch.no_grad():
            n = has_pol[:, k].sum().item()
            if n:
                hit = (p_logits.argmax(1) == policy[:, k].argmax(1)).float() * has_pol[:, k]
                metrics[f"policy_top1_{k}"] = hit.sum().item() / n
    metrics["policy_loss"] = metrics["policy_loss_0"]
    metrics["value_loss"] = metrics["value_loss_0"]
    metrics["loss"] = loss.item()
    return loss, metrics


def load_muzero(path: str | Path) -> tuple[MuZeroNet, dict[str, Any]]:
    """A MuZero model from its checkpoint, and the checkpoint dict."""
    state = load_checkpoint(path)
    if (state.get("metadata") or {}).get("mode") != MODE:
        raise ValueError(f"{path} is not a MuZero checkpoint (metadata mode is "
                         f"{(state.get('metadata') or {}).get('mode')!r})")
    model = MuZeroNet(MuZeroConfig.from_dict(state["config"]))
    model.load_state_dict(state["model"])
    return model, state


class MuZeroTrainer:
    """A MuZero model, its optimizer and step counter, checkpoints and logs in ``out_dir``."""

    def __init__(self, model: MuZeroNet, cfg: MuZeroTrainConfig, out_dir: str | Path,
                 state: dict[str, Any] | None = None) -> None:
        self.cfg = cfg
        self.out_dir = Path(out_dir)
        self.ckpt_dir = self.out_dir / "checkpoints"
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.device = torch.device(cfg.device)
        if cfg.device.startswith("cuda") and not torch.cuda.is_available():
            raise SystemExit("--device cuda was asked for but torch sees no GPU here")
        torch.set_num_threads(cfg.threads)
        self.model = model.to(self.device)
        self.optimizer = make_optimizer(self.model, cfg)  # type: ignore[arg-type]
        self.step = 0
        self.positions = 0
        if state is not None:
            if state.get("optimizer") is not None:
                restore_optimizer(self.optimizer, state)
            self.step = int(state["step"])
            self.positions = int(state.get("metadata", {}).get("positions", 0))
        self._writer: Any = None

    @classmethod
    def create(cls, init: str | MuZeroConfig, cfg: MuZeroTrainConfig, out_dir: str | Path,
               resume: bool = True) -> "MuZeroTrainer":
        """Resumes from the newest checkpoint in ``out_dir`` (when ``resume``), else starts from
        ``init``: a preset name, a MuZeroConfig, or a MuZero checkpoint (weights only)."""
        found = checkpoints(Path(out_dir) / "checkpoints") if resume else []
        if found:
            model, state = load_muzero(found[-1])
            return cls(model, cfg, out_dir, state)
        torch.manual_seed(cfg.seed)
        if isinstance(init, MuZeroConfig):
            return cls(MuZeroNet(init), cfg, out_dir)
        if str(init).endswith(".pt"):
            return cls(load_muzero(init)[0], cfg, out_dir)
        return cls(MuZeroNet(get_config(str(init))), cfg, out_dir)

    @property
    def writer(self) -> Any:
        if self._writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
                self._writer = SummaryWriter(log_dir=str(self.out_dir / "tb"))
            except ImportError:
                self._writer = False
        return self._writer or None

    def save(self, extra: dict[str, Any] | None = None) -> Path:
        path = self.ckpt_dir / f"ckpt-{self.step:08d}.pt"
        meta = {"positions": self.positions, "train_config": asdict(self.cfg), **(extra or {}),
                "mode": MODE}
        save_checkpoint(path, self.model, self.step, self.optimizer, meta)  # type: ignore[arg-type]
        for old in checkpoints(self.ckpt_dir)[:-max(1, self.cfg.keep)]:
            old.unlink(missing_ok=True)
        return path

    def train(self, data: TrajectoryData, until_step: int,
              should_stop: Callable[[], bool] = lambda: False,
              progress: bool = True, tag: str = "muzero") -> dict[str, float]:
        """Trains until the global step ``until_step``; returns the mean metrics."""
        from tqdm import tqdm

        cfg = self.cfg
        self.model.train()
        sums: dict[str, float] = {}
        window: dict[str, float] = {}
        count = window_n = 0
        t0 = time.monotonic()
        bar = tqdm(total=until_step, initial=self.step, desc=tag, unit="step",
                   dynamic_ncols=True, mininterval=1.0, disable=not progress)
        try:
            while self.step < until_step and not should_stop():
                rng = np.random.default_rng([cfg.seed, self.step])
                b = data.sample(cfg.batch_size, cfg.unroll, rng, cfg.q_weight)
                lr = lr_at(self.step, cfg)
                for g in self.optimizer.param_groups:
                    g["lr"] = lr
                loss, m = unrolled_loss(self.model, b, cfg, self.device)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                m["grad_norm"] = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(),
                                                                      cfg.clip))
                self.optimizer.step()
                self.step += 1
                self.positions += len(b.planes)
                for k, v in m.items():
                    sums[k] = sums.get(k, 0.0) + v
                    window[k] = window.get(k, 0.0) + v
                count += 1
                window_n += 1
                bar.update(1)
                bar.set_postfix(loss=f"{m['loss']:.3f}", pol=f"{m['policy_loss']:.3f}",
                                val=f"{m['value_loss']:.3f}", lr=f"{lr:.1e}")
                if self.step % cfg.log_every == 0 or self.step == until_step:
                    self._log(lr, tag, {k: v / window_n for k, v in window.items()})
                    window, window_n = {}, 0
                if self.step % cfg.checkpoint_every == 0:
                    self.save()
        finally:
            bar.close()
        out = {k: v / count for k, v in sums.items()} if count else {}
        out["steps_per_s"] = count / max(1e-9, time.monotonic() - t0)
        return out

    def _log(self, lr: float, tag: str, means: dict[str, float]) -> None:
        rec: dict[str, Any] = {"step": self.step, "positions": self.positions, "lr": lr,
                               "time": time.time(), "tag": tag, **means}
        with open(self.out_dir / "train_log.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")
        if self.writer is not None:
            for k, v in rec.items():
                if k not in ("step", "time", "tag"):
                    self.writer.add_scalar(f"muzero/{k}", v, self.step)
            self.writer.flush()

    def close(self) -> None:
        if self._writer:
            self._writer.close()
