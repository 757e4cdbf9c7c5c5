"""Zerosum's trainer: the PyTorch side of the project (models, checkpoints, ONNX export, training).

Everything that imports torch lives here; the engine only ever sees the exported ONNX nets, which
follow :mod:`engine.contract`.
"""
