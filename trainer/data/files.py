"""Files the trainer writes whole or not at all (no torch here: self-play workers, which write
records, need only numpy and onnxruntime)."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np


def save_tagged_npz(path: str | os.PathLike[str], fmt: str, version: int,
                    arrays: dict[str, Any]) -> None:
    """A compressed .npz carrying its format name and version, written atomically."""
    buf = io.BytesIO()
    np.savez_compressed(buf, format=np.array(fmt), version=np.array(version), **arrays)
    atomic_write(path, lambda f: f.write(buf.getbuffer()))


def load_tagged_npz(path: str | os.PathLike[str], fmt: str, version: int) -> dict[str, Any]:
    """The arrays of a file written by ``save_tagged_npz``; ValueError for another format or
    version."""
    with np.load(path, allow_pickle=False) as z:
        if "format" not in z or str(z["format"]) != fmt:
            raise ValueError(f"{path} is not a {fmt} file")
        if int(z["version"]) != version:
            raise ValueError(f"{path}: {fmt} version {int(z['version'])}, expected {version}")
        return {k: z[k] for k in z.files if k not in ("format", "version")}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], write: Any) -> None:
    """Call ``write(file)`` on a temp file beside ``path``, fsync it, then rename it over ``path``.

    A failure at any point leaves ``path`` as it was and no temp file behind.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600; use the usual mode
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
