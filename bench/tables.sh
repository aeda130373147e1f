# shellcheck shell=bash
# Sourced by bench/run.sh (and so by its workflows): the rows of bench/workloads.tsv and
# bench/modes.tsv, their words, and the staged binaries the rows name.

# Lines of a table (tab-separated, # comments): "NAME<tab>...". Prints the fields after NAME.
table_row() { awk -F'\t' -v name="$2" '!/^#/ && $1 == name { sub(/^[^\t]*\t/, ""); print; exit }' "$1"; }

# Words of a table row or inline mode: environment (leading VAR=value) and the rest. The row's
# $bench, $bin, $limiter, $bench_app, $scratch and ${VAR:-default} are expanded here.
split_words() {  # text; sets env_words and rest_words
  local text=$1 words=()
  [ "$text" = - ] && text=
  eval "words=($text)" || { echo "bench/${0##*/}: cannot read '$text'" >&2; exit 2; }
  env_words=() rest_words=()
  for word in "${words[@]}"; do
    if [ ${#rest_words[@]} = 0 ] && [[ "$word" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then env_words+=("$word")
    else rest_words+=("$word"); fi
  done
}

# The binaries of STAGE: a staged folder (bin/) or a build tree (cli/limiter, bench/, tests/gpu/);
# default build-device here or in the checkout. Sets stage, bin, limiter and bench_app;
# LIMITER_CLI and LIMITER_BENCH_APP win, as in scripts/device-test.sh.
find_binaries() {  # stage (may be empty), checkout root
  local app
  stage=${1:-$( [ -d build-device ] && echo build-device || echo "$2/build-device")}
  stage=$(cd "$stage" 2> /dev/null && pwd || echo "$stage")
  if [ -d "$stage/bin" ] || [ ! -d "$stage/cli" ]; then bin=$stage/bin; limiter=$bin/limiter; app=$bin
  else bin=$stage/tests/gpu; limiter=$stage/cli/limiter; app=$stage/bench; fi
  limiter=${LIMITER_CLI:-$limiter}
  # shellcheck disable=SC2034  # bench_app, bin: read by the tables' commands (eval)
  bench_app=${LIMITER_BENCH_APP:-$app/limiter_bench_launch_overhead}
}
