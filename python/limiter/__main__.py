"""python -m limiter ARGS...: the limiter command line.

The `limiter` executable installed beside this Python (the wheel puts it in the environment's
bin/) or on PATH runs every subcommand; without one, the offline subcommands (report, export,
compare, import, occupancy) run in-process.
"""

import os
import shutil
import sys


def _executable():
    beside = os.path.join(os.path.dirname(sys.executable), "limiter")
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which("limiter")


def main(args):
    executable = _executable()
    if executable:
        os.execv(executable, [executable] + args)
    from . import _core
    return _core.run_to_terminal(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
