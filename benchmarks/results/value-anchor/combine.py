"""PV: V1's checkpoint with the policy head of section 23's PH (runs/pol/PH). Both were trained
from sp1 with everything else frozen (V1: --train-only value_, PH: --train-only policy_), so
their trunks are sp1's to the bit and the two heads combine exactly, with no training.

    python benchmarks/results/value-anchor/combine.py
    python -m trainer export runs/vh/PV.pt runs/vh/PV.onnx --meta name=PV
"""
import torch

ph = torch.load("runs/pol/PH/checkpoints/ckpt-00001099.pt", map_location="cpu", weights_only=False)
v1 = torch.load("runs/vh/V1/checkpoints/ckpt-00001500.pt", map_location="cpu", weights_only=False)
a, b = ph["model"], v1["model"]
# the trunks must be equal: only the heads may differ
assert {k.split(".")[0] for k in a if not torch.equal(a[k], b[k])} <= {
    "policy_conv", "policy_out", "value_conv", "value_fc1", "value_fc2"}
b.update({k: v for k, v in a.items() if k.startswith("policy_")})
v1["optimizer"] = None
torch.save(v1, "runs/vh/PV.pt")
