"""PV: V1's checkpoint with the policy head of section 23's PH (runs/pol/PH). Both were trained
from sp1 with everything else frozen (V1: --train-only value_, PH: --train-only policy_), so
their trunks are sp1's to the bit and the two heads combine exactly, with no training.

    python benchmarks/results/value-anchor/combine.py
    python -m trainer export runs/vh/PV.pt runs/vh/PV.onnx --meta name=PV
"""
import torch

from trainer.learn.checkpoint import load_checkpoint, load_model, save_checkpoint

model, state = load_model("runs/vh/V1/checkpoints/ckpt-00001500.pt")
ph = load_checkpoint("runs/pol/PH/checkpoints/ckpt-00001099.pt")["model"]
weights = model.state_dict()
# the trunks must be equal: only the heads may differ
assert {k.split(".")[0] for k in ph if not torch.equal(ph[k], weights[k])} <= {
    "policy_conv", "policy_out", "value_conv", "value_fc1", "value_fc2"}
weights.update({k: v for k, v in ph.items() if k.startswith("policy_")})
model.load_state_dict(weights)
save_checkpoint("runs/vh/PV.pt", model, state["step"], metadata=state.get("metadata"))
