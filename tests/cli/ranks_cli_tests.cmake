# Several records at once: the two ranks of a torchrun job recorded on an H100 (tests/data/ranks/,
# bench/results/2026-11-23-ranks.md), given as a directory, a glob or files.
set(_ranks tests/data/ranks)
limiter_cli_test(NAME ranks.directory MATCH "2 ranks of a torchrun job \\(world size 2\\) on 1 host"
                 ARGS report ${_ranks})
limiter_cli_test(NAME ranks.agent_left_out MATCH "h100_gloo_torchrun_agent.json' names no rank and holds no launch"
                 ARGS report ${_ranks})
limiter_cli_test(NAME ranks.glob MATCH "slowest rank: 1, "
                 ARGS report "${_ranks}/h100_gloo_rank*.json.gz")
limiter_cli_test(NAME ranks.files_json MATCH "\"kind\": \"limiter-rank-report\""
                 ARGS report ${_ranks}/h100_gloo_rank0.json.gz ${_ranks}/h100_gloo_rank1.json.gz --format json)
limiter_cli_test(NAME ranks.one_rank MATCH "^limiter report — NVIDIA H100 80GB HBM3" ARGS report ${_ranks} --rank 1)
limiter_cli_test(NAME ranks.no_such_rank EXIT 2 MATCH "--rank 5: no record of that rank among the 3 given \\(ranks: 0, 1\\)"
                 ARGS report ${_ranks} --rank 5)
limiter_cli_test(NAME ranks.launches_needs_rank EXIT 2 MATCH "--launches lists one rank's launches: add --rank N"
                 ARGS report ${_ranks} --launches)
limiter_cli_test(NAME ranks.glob_without_match EXIT 2 MATCH "no file matches 'tests/data/ranks/nothing\\*.json'"
                 ARGS report "tests/data/ranks/nothing*.json")
limiter_cli_test(NAME ranks.compare_by_rank MATCH "^=== rank 1 ===$"
                 ARGS compare ${_ranks} ${_ranks})
limiter_cli_test(NAME ranks.compare_csv_needs_rank EXIT 2 MATCH "for csv or html add --rank N"
                 ARGS compare ${_ranks} ${_ranks} --format csv)
limiter_cli_test(NAME ranks.compare_one_rank_csv MATCH "^status,kernel,short_name"
                 ARGS compare ${_ranks} ${_ranks} --rank 0 --format csv)
limiter_cli_test(NAME ranks.run_help_names_rank MATCH "%r = rank in a job" ARGS run --help)
# Two ranks on two H200s through NCCL: the rank the others wait for inside the all-reduce.
limiter_cli_test(NAME ranks.nccl_straggler MATCH "straggler: rank 1, [0-9.]+ ms of kernel time outside NCCL's kernels"
                 ARGS report ${_ranks}/h200x2_nccl)
