# limiter kernels / limiter calibrate: the parts that need no GPU (--list, --only, bad input,
# and the committed recording shown when there is no GPU: CUDA_VISIBLE_DEVICES= hides them all).
limiter_cli_test(NAME kernels.list MATCH "reduce7_multiple_elements_32M +reduction +bandwidth" ARGS kernels --list)
limiter_cli_test(NAME kernels.list_only MATCH "^2 experiments" ARGS kernels --list --only tail_effect)
limiter_cli_test(NAME kernels.list_claim MATCH "seed: 1\\.19x" ARGS kernels --list --only tail_launch_bounds_2_waves)
limiter_cli_test(NAME kernels.unknown_only EXIT 2 MATCH "unknown kernel or family 'reduce9'"
                 ARGS kernels --only reduce9)
limiter_cli_test(NAME kernels.bad_sizes EXIT 2 MATCH "unknown --sizes 'huge'" ARGS kernels --sizes huge)
limiter_cli_test(NAME kernels.bad_runs EXIT 2 MATCH "--runs must be at least 1" ARGS kernels --runs 0)
limiter_cli_test(NAME kernels.help MATCH "--timing-only" ARGS kernels --help)
limiter_cli_test(NAME kernels.no_gpu_no_recording EXIT 3 MATCH "No recording of the suite has been committed yet"
                 ARGS kernels --recording no/such/recording.json)
set_tests_properties(cli.kernels.no_gpu_no_recording PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=")
# The committed H200 recording (tests/data/kernels/h200_kernels_run.json), shown without a GPU.
set(_kernels_recording tests/data/kernels/h200_kernels_run.json)
limiter_cli_test(NAME kernels.no_gpu_shows_recording MATCH "RECORDING — not measured on this machine"
                 ARGS kernels --recording ${_kernels_recording})
limiter_cli_test(NAME kernels.recording_verdicts MATCH "matmul_register_blocked_8x8 .* instruction .* yes"
                 ARGS kernels --only matmul --recording ${_kernels_recording})
limiter_cli_test(NAME kernels.recording_ladder MATCH "reduce7_multiple_elements_32M .* bandwidth .* yes"
                 ARGS kernels --only reduction --recording ${_kernels_recording})
set_tests_properties(cli.kernels.no_gpu_shows_recording cli.kernels.recording_verdicts cli.kernels.recording_ladder
                     PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=")
limiter_cli_test(NAME calibrate.help MATCH "--sizes arg \\(=full\\)" ARGS calibrate --help)
limiter_cli_test(NAME calibrate.no_gpu EXIT 3 MATCH "limiter calibrate" ARGS calibrate)
set_tests_properties(cli.calibrate.no_gpu PROPERTIES ENVIRONMENT "CUDA_VISIBLE_DEVICES=")
# The known-answer programs and the intended stalls, listed without a GPU.
limiter_cli_test(NAME kernels.list_programs MATCH "sync_bound +sync-bound" ARGS kernels --list --programs)
limiter_cli_test(NAME kernels.programs_unknown EXIT 2 MATCH "unknown program 'reduction'"
                 ARGS kernels --programs --only reduction)
limiter_cli_test(NAME kernels.list_intended_stall MATCH "barrier_heavy +warp_stalls +latency +barrier"
                 ARGS kernels --list --only warp_stalls)
