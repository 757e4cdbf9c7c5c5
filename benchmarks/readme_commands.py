"""Runs every command of the README's shell blocks as written, in order, from the repository root,
and prints what each did.

    python benchmarks/readme_commands.py [--limit 120] [--skip-first 2]

Many of the README's commands run for an hour or more as written (an hour of labelling, 14,000
training steps, 100 games). Each one gets ``--limit`` seconds: one that ends in time must exit 0;
one still running then is stopped with SIGINT, then SIGTERM, and counts as *started* (every long
command of the trainer is resumable, so a stop is a use the README promises, not a failure). The
first two commands (install and run, install and test) are CI's and are skipped by default.
The commands write under ``runs/`` (ignored by git), as the README says; a command that needs a
file an earlier one was stopped before writing (``runs/net.onnx``) fails, and says so.
Exit status 1 if any command failed.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    """The README's shell-block commands, continuation lines joined, comments dropped."""
    out: list[str] = []
    text = (REPO / "README.md").read_text()
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.split(" #")[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def run(line: str, limit: float, env: dict[str, str]) -> tuple[str, float, str]:
    t0 = time.monotonic()
    proc = subprocess.Popen(line, shell=True, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=limit)
        status = "ok" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
    except subprocess.TimeoutExpired:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            os.killpg(proc.pid, sig)
            try:
                out, _ = proc.communicate(timeout=20)
                break
            except subprocess.TimeoutExpired:
                continue
        status = f"started (stopped at {limit:.0f} s; resumable)"
    last = (out or "").strip().splitlines()
    return status, time.monotonic() - t0, last[-1] if last else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=float, default=120.0, help="seconds a command may run")
    ap.add_argument("--skip-first", type=int, default=2, help="leave out the first N commands")
    a = ap.parse_args()
    env = {**os.environ, "PATH": os.environ.get("PATH", "") + ":/usr/games"}
    failed = 0
    for line in readme_commands()[a.skip_first:]:
        status, seconds, last = run(line, a.limit, env)
        failed += status.startswith("FAILED")
        print(f"{status:<40} {seconds:7.1f}s  {line}\n{'':49}{last[:120]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
