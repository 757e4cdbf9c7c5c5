"""The MuZero learner: the unrolled loss over K steps and a trainer like trainer/learn/train.py's.

Loss of a batch (MuZero, Schrittwieser et al. 2020, appendix G and its pseudocode):

    s0 = h(planes);  p_k, v_k = f(s_k);  s_k, r_k = g(s_{k-1}, a_k)      k = 1..K
    L = CE(pi_0, p_0) + CE(z_0, v_0)
      + sum_k 1/K * [ CE(pi_k, p_k) + CE(z_k, v_k) + CE(u_k, r_k) + c * |s_k - h(x_k)|^2 ]

pi: visit distributions (self-play) or teacher policies (Stockfish's MultiPV softmax); z: WDL
targets (the AlphaZero trainer's blend of game result and root value); u: the reward class of
the move played (chess: discount 1, a reward only when the move ends the game); c: the
consistency weight (0 by default), the error taken relative to |h(x_k)|^2, x_k the position
actually reached, h(x_k) without gradient. Each term is
a mean over the samples that have that target at that step (see data.py for the masks). The
state passed into g at each step has its gradient halved (``scale_gradient(s, 0.5)``), so the
dynamics' total gradient stays bounded however deep the unroll.

Checkpoints, resume, logs and progress bars are trainer/learn/train.py's BaseTrainer: the batch of step
t comes from a generator seeded by (seed, t), so a resumed run replays the batches an
uninterrupted one would have drawn; checkpoints are written atomically by trainer/learn/checkpoint.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from trainer.learn.checkpoint import load_checkpoint
from trainer.muzero.data import TrajectoryBatch, TrajectoryData
from trainer.muzero.model import MuZeroConfig, MuZeroNet, from_alphazero, get_config
from trainer.learn.train import BaseTrainer, TrainConfig

MODE = "muzero"


@dataclass
class MuZeroTrainConfig(TrainConfig):
    unroll: int = 5
    """K: unroll steps of the dynamics."""
    reward_weight: float = 1.0
    dynamics_grad_scale: float = 0.5
    """factor on the gradient flowing back into the state at each step."""
    consistency_weight: float = 0.0
    """weight of the consistency loss: at each step k the dynamics' state against h of the
    position actually reached (no gradient into that target), as a squared error relative to
    the target's norm (EfficientZero's idea in its simplest form). Why: the latent search is
    only as good as g agrees with h; with h and f taken from an AlphaZero net and frozen, this
    teaches g to put each position where f already reads it well."""
    distill_weight: float = 0.0
    """weight of the distillation loss: at each step k f's policy and WDL on the dynamics' state
    against f(h(x_k)) on the position actually reached (KL divergence, no gradient into the
    target). Why: the latent search reads f's outputs, not the state; a small error in the state
    can still move the value by more than the gaps between sibling moves."""

    @property
    def reads_real_positions(self) -> bool:
        """Whether a loss needs h of the positions actually reached (``step_planes``)."""
        return self.consistency_weight > 0 or self.distill_weight > 0


def scale_gradient(x: Tensor, scale: float) -> Tensor:
    """Identity forwards, gradient times ``scale`` backwards."""
    return x * scale + x.detach() * (1 - scale)


def _masked_ce(target: Tensor, logits: Tensor, mask: Tensor) -> Tensor:
    rows = -(target * F.log_softmax(logits, dim=-1)).sum(-1)
    return (rows * mask).sum() / mask.sum().clamp(min=1)


def _masked_kl(target_logits: Tensor, logits: Tensor, mask: Tensor) -> Tensor:
    """KL(softmax(target) || softmax(logits)) per row, masked: 0 when f reads g's state as it
    reads the real one (a cross-entropy would keep the target's entropy)."""
    rows = F.kl_div(F.log_softmax(logits, -1), F.log_softmax(target_logits, -1),
                    reduction="none", log_target=True).sum(-1)
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
    predicts = cfg.policy_weight > 0 or cfg.value_weight > 0
    state = model.represent(planes)
    loss = torch.zeros((), device=device)
    metrics: dict[str, float] = {}
    for k in range(k_steps + 1):
        target: Tensor | None = None
        if k > 0:
            state, r_logits = model.dynamics(scale_gradient(state, cfg.dynamics_grad_scale),
                                             actions[:, k - 1])
            r_loss = _masked_ce(F.one_hot(reward[:, k - 1], 3).float(), r_logits,
                                has_rew[:, k - 1])
            loss = loss + cfg.reward_weight * r_loss / k_steps
            metrics[f"reward_loss_{k}"] = r_loss.item()
        if k > 0 and b.step_planes is not None and cfg.reads_real_positions:
            real = (t(b.rows[:, k]) >= 0).float()
            with torch.no_grad():
                target = model.represent(t(b.step_planes[:, k - 1]))
            err = (state - target).flatten(1).pow(2).sum(1)
            rel = err / target.flatten(1).pow(2).sum(1).clamp(min=1e-6)
            c_loss = (rel * real).sum() / real.sum().clamp(min=1)
            loss = loss + cfg.consistency_weight * c_loss / k_steps
            metrics[f"consistency_{k}"] = c_loss.item()
        distills = target is not None and cfg.distill_weight > 0
        if not (predicts or distills) and 0 < k < k_steps:
            # g learns from the consistency and reward losses alone: f runs (without gradient)
            # only at the ends of the unroll, for the figures
            continue
        with torch.set_grad_enabled(torch.is_grad_enabled() and (predicts or distills)):
            p_logits, v_logits = model.predict(state)
        if distills:
            assert target is not None
            with torch.no_grad():
                t_pol, t_wdl = model.predict(target)
            d_loss = _masked_kl(t_pol, p_logits, real) + _masked_kl(t_wdl, v_logits, real)
            loss = loss + cfg.distill_weight * d_loss / k_steps
            metrics[f"distill_{k}"] = d_loss.item()
        p_loss = _masked_ce(policy[:, k], p_logits, has_pol[:, k])
        v_loss = _masked_ce(value[:, k], v_logits, has_val[:, k])
        step = cfg.policy_weight * p_loss + cfg.value_weight * v_loss
        loss = loss + (step / k_steps if k > 0 else step)
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


class MuZeroTrainer(BaseTrainer[MuZeroNet, TrajectoryData]):
    """The MuZero learner: trajectory batches unrolled K steps; checkpoints marked ``mode``."""

    scalar_prefix = "muzero"
    mode = MODE

    def __init__(self, model: MuZeroNet, cfg: MuZeroTrainConfig, out_dir: str | Path,
                 state: dict[str, Any] | None = None) -> None:
        super().__init__(model, cfg, out_dir, state)
        self.cfg: MuZeroTrainConfig = cfg

    @staticmethod
    def load(path: str | Path) -> tuple[MuZeroNet, dict[str, Any]]:
        return load_muzero(path)

    @staticmethod
    def fresh_model(init: str | MuZeroConfig | MuZeroNet) -> MuZeroNet:
        """``init``: a preset name, a MuZeroConfig, a MuZero checkpoint, an AlphaZero net
        (``.onnx`` exported by this trainer) to take h and f from (:func:`from_alphazero`), or a
        model made already."""
        if isinstance(init, MuZeroNet):
            return init
        if isinstance(init, MuZeroConfig):
            return MuZeroNet(init)
        if str(init).endswith(".pt"):
            return load_muzero(init)[0]
        if str(init).endswith(".onnx"):
            from trainer.learn.onnx_import import model_from_onnx

            return from_alphazero(model_from_onnx(init))
        return MuZeroNet(get_config(str(init)))

    def sample(self, data: TrajectoryData, rng: np.random.Generator) -> TrajectoryBatch:
        b = data.sample(self.cfg.batch_size, self.cfg.unroll, rng, self.cfg.q_weight)
        if self.cfg.reads_real_positions:
            b.step_planes = data.step_planes(b.rows)
        return b

    def loss(self, batch: TrajectoryBatch) -> tuple[Tensor, dict[str, float]]:
        return unrolled_loss(self.model, batch, self.cfg, self.device)
