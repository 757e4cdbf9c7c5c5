"""MuZero mode: a learned model of chess (representation, dynamics, prediction) trained by
unrolling it along recorded games, exported as two ONNX graphs the engine searches in latent space.

    model.py   the three networks and the action planes
    data.py    trajectories cut from the record files
    train.py   the unrolled loss, the trainer (checkpoints, resume, TensorBoard, tqdm)
    export.py  initial and recurrent inference as ONNX, verified against torch
"""
