#!/usr/bin/env bash
# scripts/stage-python-device.sh HEADERS [BUILD]
# Stages the Python package for the GPU machine into build-device/python: its Python (3.12 there,
# 3.11 here) needs modules built against its own headers. HEADERS is a folder holding the GPU
# machine's usr/include/python3.X (and usr/include/<multiarch>/python3.X/pyconfig.h) and a
# pybind11 that supports that Python (torch's include/pybind11), e.g. unpacked from
#   tar czf py.tgz -C / usr/include/python3.12 usr/include/x86_64-linux-gnu/python3.12 \
#     "$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))' | cut -c2-)/include/pybind11"
# run there. The modules link BUILD's static libraries (default build/, with limiter_python and
# limiter_python_collector built), as the CMake targets do; the shared libraries they need and the
# GPU machine lacks (Boost.Program_options, simdjson) go beside them in build-device/python/lib.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
headers=$(cd "$1" && pwd)
build=$(cd "${2:-$root/build}" && pwd)
python_dir=$(find "$headers/usr/include" -maxdepth 1 -name 'python3.*' | head -1)
[ -f "$python_dir/Python.h" ] || { echo "stage-python-device: no usr/include/python3.X/Python.h under $headers" >&2; exit 1; }
version=$(basename "$python_dir" | sed 's/python//')
pybind=$(dirname "$(find "$headers" -path '*/pybind11/pybind11.h' | head -1)")
[ -d "$pybind" ] || { echo "stage-python-device: no pybind11/pybind11.h under $headers" >&2; exit 1; }
out=$root/build-device/python
rm -rf "$out" && mkdir -p "$out/limiter" "$out/lib"
includes=(-isystem "$(dirname "$pybind")" -isystem "$python_dir" -isystem "$headers/usr/include")
flags=(-O2 -DNDEBUG -fPIC -fvisibility=hidden -std=c++20)
suffix=.cpython-${version/./}-x86_64-linux-gnu.so
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
c++ "${flags[@]}" -I"$root/lib/src" -I"$root/lib/include" "${includes[@]}" -isystem /usr/local/cuda/include \
  -c "$root/python/limiter/_collector.cpp" -o "$scratch/_collector.o"
c++ "${flags[@]}" -DBOOST_ALL_NO_LIB -I"$root/cli" -I"$root/lib/include" -I"$root/reports/include" "${includes[@]}" \
  -c "$root/python/limiter/_core.cpp" -o "$scratch/_core.o"
simdjson=$(ldd "$build/cli/limiter" | awk '/libsimdjson/ {print $3}')
boost=$(find /usr/lib/x86_64-linux-gnu -name 'libboost_program_options.so.*' | head -1)
# The link lines of the CMake targets (python/CMakeLists.txt), with the GPU machine's suffix.
c++ -shared -Wl,--exclude-libs,ALL -o "$out/limiter/_collector$suffix" "$scratch/_collector.o" \
  -Wl,-rpath,'$ORIGIN/../lib:/usr/local/cuda/lib' "$build/lib/liblimiter_collect.a" "$build/lib/liblimiter_range_session.a" \
  "$build/lib/liblimiter_cupti_host.a" "$build/lib/liblimiter_core.a" -lz "$simdjson" /usr/local/cuda/lib/libcupti.so -ldl
c++ -shared -Wl,--exclude-libs,ALL -o "$out/limiter/_core$suffix" "$scratch/_core.o" -Wl,-rpath,'$ORIGIN/../lib' \
  "$build/cli/liblimiter_cli.a" "$boost" "$build/reports/liblimiter_reports.a" "$build/lib/liblimiter_core.a" -lz \
  "$simdjson" /usr/lib/x86_64-linux-gnu/libsqlite3.a -ldl -lm
strip --strip-unneeded "$out"/limiter/*.so
cp "$root"/python/limiter/*.py "$out/limiter/"
for library in "$boost" "$simdjson"; do  # under the names the modules ask for (their sonames)
  cp -L "$library" "$out/lib/$(objdump -p "$library" | awk '/SONAME/ {print $2}')"
done
echo "stage-python-device: build-device/python for Python $version: PYTHONPATH=build-device/python there"
