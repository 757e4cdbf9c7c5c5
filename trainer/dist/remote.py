"""The self-play actor's side of Ray, kept apart from the driver so that an actor's process
imports neither the learner nor torch (it needs only the search and onnxruntime)."""

from __future__ import annotations

from typing import Any

import ray

from trainer.dist.selfplay_actor import SelfPlayActor


class Blocking:
    """A Ray actor handle whose method calls wait for their result, so that it stands where the
    plain object would (the learner, for a self-play actor)."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # pickling probes (__setstate__...) are not remote methods
            raise AttributeError(name)
        method = getattr(self._handle, name)
        return lambda *args, **kwargs: ray.get(method.remote(*args, **kwargs))


class RaySelfPlayActor(SelfPlayActor):
    """A :class:`SelfPlayActor` placed by Ray: it finds the learner by name and takes its
    settings from it, so that the arguments Ray keeps to restart it are a few small values."""

    def __init__(self, worker: int, learner_name: str, threads: int, provider: str) -> None:
        learner = Blocking(ray.get_actor(learner_name))
        super().__init__(worker, learner.selfplay_config(), learner, threads, provider)
