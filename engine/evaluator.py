"""The network backend: the one module that imports onnxruntime.

An evaluator takes a batch of input planes and returns the network's raw outputs; the search
never sees anything else of the network (lc0's "add positions to a batch, evaluate the batch").
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from engine import contract


class NetError(Exception):
    """A network file that cannot be used: missing, unreadable, or not of the contract."""


@dataclass(frozen=True)
class NetOutput:
    """One batch's outputs. policy: [B, 1858] logits; wdl: [B, 3] probabilities; mlh: [B] or None."""

    policy: npt.NDArray[np.float32]
    wdl: npt.NDArray[np.float32]
    mlh: npt.NDArray[np.float32] | None


class Evaluator(Protocol):
    """Evaluates a batch; ``evaluate`` blocks until the outputs are ready (and releases the GIL)."""

    name: str

    def evaluate(self, planes: npt.NDArray[np.float32]) -> NetOutput:
        """planes: [B, 112, 8, 8] float32."""
        ...


def _session(path: str, threads: int, provider: str) -> Any:
    """An onnxruntime session on ``path``; NetError for a missing or unreadable file."""
    import onnxruntime as ort

    full = os.path.expanduser(path)
    if not os.path.isfile(full):
        raise NetError(f"weights file {path!r} does not exist")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    providers = ["CPUExecutionProvider"]
    if provider == "cuda":
        if "CUDAExecutionProvider" not in ort.get_available_providers():
            raise NetError("the CUDA provider was asked for but onnxruntime has none here")
        providers.insert(0, "CUDAExecutionProvider")
    elif provider != "cpu":
        raise NetError(f"unknown provider {provider!r}; expected 'cpu' or 'cuda'")
    try:
        return ort.InferenceSession(full, opts, providers=providers)
    except Exception as exc:  # onnxruntime raises several unrelated types
        raise NetError(f"weights file {path!r} is not a readable ONNX net: {exc}") from None


BUNDLED_NET_FILE = "zerosum-6x64-c14.onnx"
"""The net the engine plays with by default; the one place that names it."""


def default_net_path() -> Path:
    """The bundled net, shipped in the ``nets`` package."""
    import nets

    return Path(nets.__file__).resolve().parent / BUNDLED_NET_FILE


PRECISIONS = ("auto", "fp32", "int8")
"""fp32: the file as given; int8: its quantized sibling (:func:`int8_path`); auto: the sibling on
the CPU backend where one exists and the CPU has int8 dot-product instructions
(:func:`cpu_has_int8_dot`), else the file as given."""

# CPU flags (as /proc/cpuinfo spells them) of the instructions onnxruntime's u8*s8 kernels need to
# beat fp32: x86 VNNI (AVX-512 or AVX), AMX, and arm64's dot product. Measured: the bundled int8
# net runs 1.5-2.1x fp32 on a Zen 4 with avx512_vnni, but 0.85x on an AVX2 EPYC without VNNI.
INT8_DOT_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8", "asimddp"})


def cpu_has_int8_dot(cpuinfo: str | None = None) -> bool:
    """Whether this CPU has an int8 dot-product instruction (:data:`INT8_DOT_FLAGS`); False
    where that cannot be read (no /proc/cpuinfo): fp32 is never the slow choice by much."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return False
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in ("flags", "features") and INT8_DOT_FLAGS & set(value.split()):
            return True
    return False

INT8_SUFFIX = "-int8"


def int8_path(path: str | os.PathLike[str]) -> Path:
    """Where the int8 copy of a net lies: ``NET-int8.onnx`` beside ``NET.onnx`` (a net whose name
    already ends in -int8 is its own). ``python -m trainer quantize`` writes it."""
    p = Path(os.path.expanduser(path))
    return p if p.stem.endswith(INT8_SUFFIX) else p.with_name(p.stem + INT8_SUFFIX + p.suffix)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file (an int8 net records its fp32 source's, to be told apart from a
    stale copy left beside a retrained net). Remembered per (file, inode, size, mtime): a self-play
    worker checks its int8 copy and then loads it, and should read the net once, not twice."""
    p = os.path.realpath(os.path.expanduser(path))
    st = os.stat(p)
    return _sha256(p, st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _sha256(path: str, inode: int, size: int, mtime_ns: int) -> str:
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def made_from(net: str | os.PathLike[str], source_sha256: str | None) -> bool:
    """Whether an int8 net that records ``source_sha256`` was quantized from ``net`` as it is
    now (False for a copy of an earlier version, or one that records no source)."""
    return source_sha256 is not None and source_sha256 == file_sha256(net)


def resolve_precision(path: str, precision: str, provider: str = "cpu",
                      int8_fast: bool | None = None) -> str:
    """The file to load for ``path`` at ``precision``; NetError if int8 is asked for and the
    quantized sibling is missing. ``int8_fast``: whether auto may pick int8 (None: ask the CPU,
    :func:`cpu_has_int8_dot`)."""
    if precision not in PRECISIONS:
        raise NetError(f"unknown precision {precision!r}; expected one of {', '.join(PRECISIONS)}")
    if precision == "fp32":
        return path
    quantized = int8_path(path)
    if precision == "auto":
        # int8 kernels are a CPU matter; on CUDA the fp32 net is the fast one.
        if provider != "cpu" or not quantized.is_file():
            return path
        fast = cpu_has_int8_dot() if int8_fast is None else int8_fast
        return str(quantized) if fast else path
    if not quantized.is_file():
        raise NetError(f"no int8 net {str(quantized)!r} beside {path!r}; make it with "
                       f"python -m trainer quantize {path} --out {quantized}")
    return str(quantized)


@dataclass
class OnnxEvaluator:
    """Runs a net of the contract with onnxruntime.

    provider: "cpu" or "cuda" (CUDA when asked and present, else a clear error).
    threads: onnxruntime's intra-op threads (0 = onnxruntime decides).
    precision: one of :data:`PRECISIONS`; ``path`` names the fp32 net either way, and
    ``loaded`` is the file actually run.
    """

    path: str
    threads: int = 2
    provider: str = "cpu"
    precision: str = "fp32"
    loaded: str = field(init=False)
    name: str = field(init=False)
    has_mlh: bool = field(init=False)
    metadata: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        if not os.path.isfile(os.path.expanduser(self.path)):
            raise NetError(f"weights file {self.path!r} does not exist")
        path = os.path.expanduser(resolve_precision(self.path, self.precision, self.provider))
        self.loaded = path
        self._session = _session(path, self.threads, self.provider)
        self._check_contract()
        self.name = Path(path).name
        self.metadata = dict(self._session.get_modelmeta().custom_metadata_map)
        source = self.metadata.get("source_sha256")
        if path != os.path.expanduser(self.path) and source is not None \
                and not made_from(self.path, source):
            # The int8 sibling was made from another version of this net (it was retrained).
            if self.precision == "int8":
                raise NetError(f"the int8 net {path!r} was made from another version of "
                               f"{self.path!r}; run python -m trainer quantize again")
            self.precision = "fp32"
            self.__post_init__()

    def _check_contract(self) -> None:
        inputs = {i.name: i for i in self._session.get_inputs()}
        outputs = {o.name: o for o in self._session.get_outputs()}
        expected = (
            f"input {contract.INPUT_NAME} [B,{contract.NUM_PLANES},8,8], outputs "
            f"{contract.POLICY_NAME} [B,{contract.POLICY_SIZE}] and {contract.WDL_NAME} [B,3]"
        )
        problems = []
        inp = inputs.get(contract.INPUT_NAME)
        if inp is None or list(inp.shape[1:]) != [contract.NUM_PLANES, 8, 8]:
            problems.append(f"input {contract.INPUT_NAME} is {inp.shape if inp else 'missing'}")
        for name, width in ((contract.POLICY_NAME, contract.POLICY_SIZE), (contract.WDL_NAME, 3)):
            out = outputs.get(name)
            if out is None or out.shape[-1] != width:
                problems.append(f"output {name} is {out.shape if out else 'missing'}")
        if problems:
            raise NetError(f"weights file {self.path!r} does not fit the contract: "
                           f"{'; '.join(problems)}; expected {expected}")
        self.has_mlh = contract.MLH_NAME in outputs
        self._outputs = [contract.POLICY_NAME, contract.WDL_NAME]
        if self.has_mlh:
            self._outputs.append(contract.MLH_NAME)

    def evaluate(self, planes: npt.NDArray[np.float32]) -> NetOutput:
        res = self._session.run(self._outputs, {contract.INPUT_NAME: planes})
        mlh = res[2].reshape(-1) if self.has_mlh else None
        return NetOutput(policy=res[0], wdl=res[1], mlh=mlh)


@dataclass
class UniformEvaluator:
    """A network that costs nothing: uniform policy, an even value. For measuring the tree alone."""

    name: str = "uniform"

    def evaluate(self, planes: npt.NDArray[np.float32]) -> NetOutput:
        b = planes.shape[0]
        wdl = np.tile(np.array([0.0, 1.0, 0.0], dtype=np.float32), (b, 1))
        return NetOutput(np.zeros((b, contract.POLICY_SIZE), np.float32), wdl, None)


@dataclass(frozen=True)
class RecurrentOutput:
    """One recurrent-inference batch: next states, rewards [B,3] (win/none/loss for the player
    who moved), and the prediction for the new states (policy logits, WDL probabilities)."""

    state: npt.NDArray[np.float32]
    reward: npt.NDArray[np.float32]
    net: NetOutput


class LatentModel(Protocol):
    """A MuZero model as the latent search sees it (``OnnxMuZero`` or a test's toy model)."""

    name: str

    def initial(self, planes: npt.NDArray[np.float32]) -> tuple[NetOutput, npt.NDArray[np.float32]]:
        """Policy and value of real positions, and their hidden states."""
        ...

    def recurrent(self, state: npt.NDArray[np.float32],
                  actions: npt.NDArray[np.int64]) -> RecurrentOutput:
        """The states reached by playing ``actions`` (policy indices) from ``state``."""
        ...


def is_muzero(metadata: dict[str, str]) -> bool:
    """Whether an initial-inference net's metadata says it is a MuZero model."""
    return metadata.get(contract.MODE_KEY) == contract.MUZERO_MODE


@dataclass
class OnnxMuZero:
    """A MuZero net: ``initial`` is the contract net itself (an ``OnnxEvaluator`` reading its
    extra state output), ``recurrent`` the graph its metadata names, beside it."""

    initial_net: OnnxEvaluator
    name: str = field(init=False)
    metadata: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        meta = self.initial_net.metadata
        if not is_muzero(meta) or not meta.get(contract.RECURRENT_KEY):
            raise NetError(f"weights file {self.initial_net.path!r} is not a MuZero net "
                           f"(metadata {contract.MODE_KEY}={meta.get(contract.MODE_KEY)!r})")
        first = self.initial_net._session
        if contract.STATE_NAME not in {o.name for o in first.get_outputs()}:
            raise NetError(f"MuZero net {self.initial_net.path!r} has no {contract.STATE_NAME}")
        rec = Path(os.path.expanduser(self.initial_net.path)).with_name(
            meta[contract.RECURRENT_KEY])
        self._recurrent = _session(str(rec), self.initial_net.threads, self.initial_net.provider)
        names = {i.name for i in self._recurrent.get_inputs()}
        outs = {o.name for o in self._recurrent.get_outputs()}
        need_in = {contract.STATE_INPUT, contract.ACTION_INPUT}
        need_out = {contract.STATE_NAME, contract.REWARD_NAME, contract.POLICY_NAME,
                    contract.WDL_NAME}
        if not need_in <= names or not need_out <= outs:
            raise NetError(f"recurrent graph {str(rec)!r} lacks inputs {sorted(need_in - names)} "
                           f"or outputs {sorted(need_out - outs)}")
        self.name = self.initial_net.name
        self.metadata = meta

    @classmethod
    def load(cls, path: str, threads: int = 2, provider: str = "cpu") -> "OnnxMuZero":
        return cls(OnnxEvaluator(path, threads=threads, provider=provider))

    def initial(self, planes: npt.NDArray[np.float32]) -> tuple[NetOutput, npt.NDArray[np.float32]]:
        res = self.initial_net._session.run(
            [contract.POLICY_NAME, contract.WDL_NAME, contract.STATE_NAME],
            {contract.INPUT_NAME: planes})
        return NetOutput(policy=res[0], wdl=res[1], mlh=None), res[2]

    def recurrent(self, state: npt.NDArray[np.float32],
                  actions: npt.NDArray[np.int64]) -> RecurrentOutput:
        res = self._recurrent.run(
            [contract.STATE_NAME, contract.REWARD_NAME, contract.POLICY_NAME, contract.WDL_NAME],
            {contract.STATE_INPUT: state, contract.ACTION_INPUT: actions.astype(np.int64)})
        return RecurrentOutput(res[0], res[1], NetOutput(policy=res[2], wdl=res[3], mlh=None))
