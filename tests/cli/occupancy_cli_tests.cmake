# limiter occupancy: the JSON keys, the register cliff, an answer that is "cannot launch" (exit
# 0), and bad input (exit 2 with a message that names the fix).
# expect.sh matches line by line: one test per JSON line that matters.
set(_occupancy_json_args occupancy --arch sm_90 --threads 256 --registers 64 --grid 1000 --sms 132 --format json)
foreach(_case
    "arch|\"arch\": \"sm_90\","
    "blocks_per_sm|\"blocks_per_sm\": 4,"
    "active_warps|\"active_warps_per_sm\": 32,"
    "occupancy|\"occupancy\": 0\\.5,"
    "limited_by|\"limited_by\": \"registers\","
    "limit_warps|^    \"warps\": 8,"
    "limit_blocks|^    \"blocks\": 32,"
    "limit_registers|^    \"registers\": 4,"
    "limit_shared|^    \"shared_memory\": 228$"
    "waves|\"waves\": 1\\.89"
    "full_waves|\"full_waves\": 1,"
    "tail_blocks|\"tail_blocks\": 472,"
    "tail_idle|\"tail_idle_fraction\": 0\\.05")
  string(REPLACE "|" ";" _pair "${_case}")
  list(GET _pair 0 _name)
  list(GET _pair 1 _regex)
  limiter_cli_test(NAME occupancy.json_${_name} MATCH "${_regex}" ARGS ${_occupancy_json_args})
endforeach()
limiter_cli_test(NAME occupancy.register_cliff
  MATCH "3 blocks/SM, 24 warps of 64, occupancy 37\\.5% \\(limited by registers\\)"
  ARGS occupancy --arch sm_90 --threads 256 --registers 72)
limiter_cli_test(NAME occupancy.shared_memory_limit
  MATCH "4 blocks/SM.*limited by shared_memory"
  ARGS occupancy --arch 9.0 --threads 256 --registers 32 --shared 49152)
limiter_cli_test(NAME occupancy.seed002_g80
  MATCH "3 blocks/SM, 24 warps of 24, occupancy 100\\.0% \\(limited by warps\\)"
  ARGS occupancy --arch sm_10 --threads 256 --registers 10 --shared 4096)
limiter_cli_test(NAME occupancy.tail
  MATCH "128 blocks on 13 SMs × 4 = 52 per wave → 2\\.462 waves: 2 full \\+ a tail of 24 blocks"
  ARGS occupancy --arch sm_35 --threads 256 --registers 56 --grid 128 --sms 13)
limiter_cli_test(NAME occupancy.cannot_launch
  MATCH "cannot launch: .*at most 64 registers per thread fit"
  ARGS occupancy --arch sm_90 --threads 1024 --registers 65)
limiter_cli_test(NAME occupancy.cannot_launch_json
  MATCH "\"cannot_launch\": \"1025 threads per block are more than the 1024 a block may have on sm_80\""
  ARGS occupancy --arch sm_80 --threads 1025 --registers 32 --format json)
limiter_cli_test(NAME occupancy.zero_threads EXIT 2
  MATCH "--threads must be a block size of at least 1"
  ARGS occupancy --arch sm_90 --threads 0 --registers 32)
limiter_cli_test(NAME occupancy.non_numeric EXIT 2
  MATCH "'abc'.*--registers"
  ARGS occupancy --arch sm_90 --threads 128 --registers abc)
limiter_cli_test(NAME occupancy.unknown_arch EXIT 2
  MATCH "unknown architecture 'sm_99': known are sm_10,.*sm_90"
  ARGS occupancy --arch sm_99 --threads 128 --registers 32)
limiter_cli_test(NAME occupancy.grid_needs_sms EXIT 2
  MATCH "--grid needs --sms"
  ARGS occupancy --arch sm_90 --threads 128 --registers 32 --grid 1000)
limiter_cli_test(NAME occupancy.carveout_too_large EXIT 2
  MATCH "carve-out of 300000 bytes is more than sm_90"
  ARGS occupancy --arch sm_90 --threads 128 --registers 32 --carveout 300000)
limiter_cli_test(NAME occupancy.help
  MATCH "usage: limiter occupancy --arch sm_XX --threads N --registers R \\[--shared BYTES\\] \\[--carveout BYTES\\]"
  ARGS occupancy --help)
limiter_cli_test(NAME occupancy.help_lists_sms
  MATCH "^  --sms arg +the GPU's number of SMs"
  ARGS occupancy --help)
limiter_cli_test(NAME occupancy.cannot_launch_has_no_waves
  MATCH "^  \"waves\": null,"
  ARGS occupancy --arch sm_90 --threads 2000 --registers 32 --grid 10 --sms 132 --format json)
limiter_cli_test(NAME occupancy.zero_grid EXIT 2
  MATCH "--grid must be at least 1 block"
  ARGS occupancy --arch sm_90 --threads 128 --registers 32 --grid 0 --sms 132)
