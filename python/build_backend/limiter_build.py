"""A PEP 517 build backend in the tree: `pip install .` runs CMake on this repository and packs
the module limiter._core, the package python/limiter/ and the `limiter` executable into a wheel.

In the tree rather than scikit-build-core because only Debian's registry is reachable where the
project is built and Debian has no scikit-build-core; it needs nothing beyond the standard library
and CMake, so pip's isolated build environment installs nothing (pyproject.toml: requires = []).
The C++ dependencies and pybind11 come from Debian: scripts/install-deps.sh --tests.

The build folder is build-python/ in the source tree, kept between installs so a second install
compiles only what changed. CMAKE_BUILD_PARALLEL_LEVEL sets the jobs (default: every core).
With the CUDA toolkit (nvcc on PATH or /usr/local/cuda/bin/nvcc) the wheel also holds the
in-process collector, limiter._collector, for limiter.profile(); that build compiles the
collector and the CLI's kernel suite too. Without it, or with LIMITER_PYTHON_CUDA=OFF, the host
side only (limiter.profile() says why). LIMITER_PYTHON_CUDA=ON insists on the toolkit.
"""

import base64
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import zipfile

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "limiter"
SUMMARY = "What limits each CUDA kernel: records of limiter runs as pandas DataFrames, reports and comparisons"


def _version():
    with open(os.path.join(SOURCE, "CMakeLists.txt"), encoding="utf-8") as cmake:
        return re.search(r"project\(limiter VERSION ([0-9.]+)", cmake.read()).group(1)


def _tag():
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{python}-{python}-{platform}"


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "License: Apache-2.0\nRequires-Python: >=3.9\nRequires-Dist: pandas>=1.3\n")


def _with_cuda():
    """Whether to build the collector: LIMITER_PYTHON_CUDA=ON or OFF, else when nvcc is found."""
    choice = os.environ.get("LIMITER_PYTHON_CUDA", "").upper()
    if choice in ("ON", "OFF"):
        return choice == "ON"
    return bool(shutil.which("nvcc")) or os.access("/usr/local/cuda/bin/nvcc", os.X_OK)


def _build(build_dir):
    """Configures and builds the modules and the executable; returns the modules' and its paths."""
    cuda = _with_cuda()
    configure = ["cmake", "-S", SOURCE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                 f"-DLIMITER_WITH_CUDA={'ON' if cuda else 'OFF'}", "-DLIMITER_BUILD_TESTS=OFF", "-DLIMITER_PYTHON=ON",
                 f"-DPython_EXECUTABLE={sys.executable}"]
    targets = ["limiter_python", "limiter"] + (["limiter_python_collector"] if cuda else [])
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    for command in (configure, ["cmake", "--build", build_dir, "-j", jobs, "--target", *targets]):
        print("limiter build:", " ".join(command), file=sys.stderr, flush=True)
        subprocess.run(command, check=True, stdout=sys.stderr)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    modules = [os.path.join(build_dir, "python", "limiter", name + suffix)
               for name in (["_core", "_collector"] if cuda else ["_core"])]
    return modules, os.path.join(build_dir, "cli", "limiter")


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory, files):
    """FILES: (name in the wheel, bytes, executable) -> the wheel's file name."""
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    wheel_name = f"{NAME}-{version}-{_tag()}.whl"
    files = list(files) + [
        (f"{info}/METADATA", _metadata().encode(), False),
        (f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: limiter_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n".encode(), False),
        (f"{info}/LICENSE", open(os.path.join(SOURCE, "LICENSE"), "rb").read(), False),
    ]
    record = [_record_line(name, data) for name, data, _ in files] + [f"{info}/RECORD,,"]
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data, executable in files + [(f"{info}/RECORD", ("\n".join(record) + "\n").encode(), False)]:
            entry = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            # A regular file's type bits too: pip sets the execute bit only on regular files that carry it.
            entry.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
    return wheel_name


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, f"{NAME}-{_version()}.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as metadata:
        metadata.write(_metadata())
    return os.path.basename(info)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    modules, executable = _build(os.path.join(SOURCE, "build-python"))
    package = os.path.join(SOURCE, "python", "limiter")
    files = [(f"limiter/{name}", open(os.path.join(package, name), "rb").read(), False)
             for name in sorted(os.listdir(package)) if name.endswith(".py")]
    files += [(f"limiter/{os.path.basename(module)}", open(module, "rb").read(), False) for module in modules]
    files.append((f"{NAME}-{_version()}.data/scripts/limiter", open(executable, "rb").read(), True))
    return _write_wheel(wheel_directory, files)
