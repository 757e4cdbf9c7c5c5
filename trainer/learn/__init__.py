"""Learning: the model, its configs, training, checkpoints, ONNX export and import, int8
quantization, weight averaging. Imports only ``trainer.data``."""
