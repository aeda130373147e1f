"""The bench's tools that use the package: bench/stall_shares_agree.py (two records' stall shares
side by side, the largest difference in points)."""

import json
import os
import subprocess
import sys

from conftest import REPO, STALLS_RECORD

SCRIPT = os.path.join(REPO, "bench", "stall_shares_agree.py")


def _agree(a, b):
    done = subprocess.run([sys.executable, SCRIPT, a, b], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_record_agrees_with_itself():
    out = _agree(STALLS_RECORD, STALLS_RECORD)
    assert "largest difference of a reason's share: 0.0 points" in out, out
    assert out.startswith("| kernel | samples A | samples B | reason | share A | share B |"), out


def test_a_changed_share_is_the_largest_difference(tmp_path):
    import gzip
    with gzip.open(STALLS_RECORD, "rt") as f:
        record = json.load(f)
    kernel = record["stalls"]["kernels"][0]
    reasons = kernel["reasons"]
    top = max(reasons, key=reasons.get)
    moved = reasons[top] // 2  # half of the top reason's samples go to another reason
    other = next(r for r in reasons if r != top)
    reasons[top] -= moved
    reasons[other] += moved
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(record))
    out = _agree(STALLS_RECORD, str(changed))
    expected = 100 * moved / kernel["samples"]
    assert f"largest difference of a reason's share: {expected:.1f} points" in out, out
