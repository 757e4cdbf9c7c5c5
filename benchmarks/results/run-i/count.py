"""Counts a self-play records directory for run i's scripts: prints its positions on stdout (for
the training step count) and games, positions, results, terminations and false resignations on
stderr.   python count.py RECORDS_DIR... [SECONDS]   (SECONDS: the self-play time, for a rate;
several folders are counted together, as a training window)"""
import collections
import os
import sys

from trainer.data.records import Record, list_records

dirs = [a for a in sys.argv[1:] if os.path.isdir(a)]
seconds = [a for a in sys.argv[1:] if not os.path.isdir(a)]
paths = [p for d in dirs for p in list_records(d)]
positions = played_out = false = 0
ends: collections.Counter[str] = collections.Counter()
for p in paths:
    r = Record.load(p)
    positions += len(r.full)
    m = r.meta
    ends[f"{m.get('result')} {m.get('termination')}"] += 1
    if m.get("no_resign") and m.get("would_resign"):
        played_out += 1
        false += bool(m.get("false_resign"))
print(positions)
rate = f" in {seconds[0]} s ({positions / float(seconds[0]):.0f} positions/s)" if seconds else ""
print(f"{len(paths)} games, {positions} positions{rate}; false resignations {false} of "
      f"{played_out} played-out games where a side would have resigned\n"
      + ", ".join(f"{k}: {v}" for k, v in ends.most_common()), file=sys.stderr)
