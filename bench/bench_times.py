"""What bench/wall.sh leaves per label, read back for the bench scripts' summaries:
field(out, label, "wall", "s") and field(out, label, "max RSS", "KB") from LABEL.time, and
loop(out, label), the workload's own "loop N s" figure from LABEL.log; NaN where missing."""
import os


def field(out, label, key, unit):
    try:
        text = open(os.path.join(out, label + ".time")).read().split(key + " ")[1]
        return float(text.split(" " + unit)[0])
    except (OSError, IndexError, ValueError):
        return float("nan")


def loop(out, label):
    try:
        for line in open(os.path.join(out, label + ".log")):
            if "loop " in line:
                return float(line.split("loop ")[1].split(" s")[0])
    except OSError:
        pass
    return float("nan")
