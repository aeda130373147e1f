#!/usr/bin/env bash
# scripts/check-format.sh [--fix]
# Checks every tracked C++ and CUDA source against .clang-format (clang-format 14, Debian's
# clang-format package, installed by scripts/install-deps.sh --tests); names each file that
# differs and fails. --fix formats them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$format" ] || { echo "check-format: clang-format not found; run scripts/install-deps.sh --tests" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
differ=()
for file in "${files[@]}"; do
  "$format" --dry-run -Werror "$file" > /dev/null 2>&1 || differ+=("$file")
done
if [ ${#differ[@]} -gt 0 ]; then
  printf 'check-format: not formatted: %s\n' "${differ[@]}" >&2
  echo "check-format: ${#differ[@]} of ${#files[@]} files differ from .clang-format; run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
