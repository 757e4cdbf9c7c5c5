"""The reinforcement loop on a Ray cluster: many self-play actors, one learner, one driver.

Roles, one file each, every one a plain class that also runs without Ray (muzero-general's shape):

- ``learner.py``   :class:`Learner`: the single-machine loop (trainer/loop.py) less its own
  self-play. It alone writes the run directory: the games the actors send (each once), the
  checkpoints, the nets, the state. Train, export and evaluate are the loop's own phases.
- ``selfplay_actor.py`` :class:`SelfPlayActor`: a :class:`trainer.play.selfplay.SelfPlayWorker` that
  gets the net as ONNX bytes and hands every finished game to the learner at once.
- ``driver.py``    :class:`Driver`: connects to Ray, places the learner on its own node, starts
  self-play actors while the cluster has room (elastic), replaces crashed ones (Ray restarts them),
  and steps the learner through the phases with progress bars. The only module importing Ray.

Why the generations stay synchronous (self-play, then training): the records, the state file and
resuming are then exactly the single-machine loop's, so a run may move between one machine and a
cluster, and ``train``/``selfplay`` read its records unchanged.
"""
