"""The limiter command line, run in-process by the extension module: one code path with the CLI."""

import warnings

from . import _core


class LimiterError(RuntimeError):
    """A limiter command failed; the message is the CLI's one line that names the fix.

    ``exit_code`` is the CLI's: 2 bad input, 3 system, 1 internal error.
    """

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


_ERROR_PREFIXES = ("limiter: error: ", "limiter: internal error: ")


def _forward_warnings(stderr):
    for line in stderr.splitlines():
        if "warning:" in line:
            warnings.warn(line.split("warning:", 1)[1].strip(), stacklevel=4)


def run(args, ok_codes=(0,)):
    """Runs ``limiter ARGS...`` and returns (exit code, standard output as text).

    Warnings on standard error become Python warnings; an exit code outside OK_CODES raises
    LimiterError with the CLI's message.
    """
    code, out, err = _core.run_captured([str(a) for a in args])
    stderr = err.decode("utf-8", errors="replace")
    if code not in ok_codes:
        lines = [l for l in stderr.splitlines() if l.strip()]
        message = next((l[len(p):] for l in lines for p in _ERROR_PREFIXES if l.startswith(p)), None)
        raise LimiterError(message or (lines[0] if lines else f"limiter exited with code {code}"), code)
    _forward_warnings(stderr)
    return code, out.decode("utf-8", errors="replace")


def report_arguments(format, top, launches, kernels, names, peaks):
    """The options shared by `limiter report` and `limiter compare`, as the CLI spells them."""
    args = ["--format", format]
    if top is not None:
        args += ["--top", int(top)]
    if launches:
        args.append("--launches")
    if kernels:
        args += ["-k", kernels]
    if names:
        args += ["--names", names]
    if peaks:
        args += ["--peaks", peaks]
    return args
