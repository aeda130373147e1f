# limiter run's table of flags (lib/include/limiter/run_flags.hpp) as a user meets it: --help,
# --timeline, a variable that sets a flag, and the variables limiter run hands the app (no GPU:
# the app is `env`, which prints them).
limiter_cli_test(NAME run.help_lists_timeline MATCH "^  --timeline  " ARGS run --help)
limiter_cli_test(NAME run.help_lists_knobs MATCH "^  LIMITER_RANGE_SYNC \\(=none\\)  " ARGS run --help)
limiter_cli_test(NAME run.timeline_goes_with_every_launch EXIT 2
                 MATCH "^limiter: error: --timeline goes with --every-launch, not with the default run: "
                 ARGS run --timeline -- true)
limiter_cli_test(NAME run.conflict_names_both_sides EXIT 2
                 MATCH "^limiter: error: --trace cannot be combined with --per-kernel-count: --trace records the activity timeline alone"
                 ARGS run --trace --per-kernel-count 3 -- true)
limiter_cli_test(NAME run.variable_sets_its_flag EXIT 2 MATCH "^limiter: error: --trace and --stalls each choose one mode"
                 ENV LIMITER_TRACE=1 ARGS run --stalls -- true)
limiter_cli_test(NAME run.malformed_variable EXIT 2
                 MATCH "^limiter: error: LIMITER_PER_KERNEL_COUNT must be a whole number, not 'abc'$"
                 ENV LIMITER_PER_KERNEL_COUNT=abc ARGS run -- true)
# These two start the app through liblimiter_inject.so, which builds only with CUDA (not in the
# asan preset nor a host-only build).
if(TARGET limiter_inject)
  limiter_cli_test(NAME run.app_gets_the_timeline MATCH "^LIMITER_TIMELINE=1$" ARGS run -q --every-launch --timeline -- env)
  limiter_cli_test(NAME run.older_name_read_and_passed_on MATCH "^LIMITER_LAUNCH_SKIP=2$"
                   ENV LIMITER_SKIP=2 ARGS run -q --every-launch -- env)
endif()
