// Nsight Compute CSV import: both page forms, unit conversion, display names, errors.
// Data: tests/data/ncu/synthetic_{details,raw}.csv (hand-made, every form in little space) and
// real ncu 2025.3.1 exports from an H200: h200_probe_* (verdict probe, kernels/probe) and
// import_probe_h200_* (tests/data/ncu/import_probe.cu: nvcc -arch=sm_90, then `ncu --csv`,
// `ncu --csv --page raw`, `ncu --csv --metrics ...`).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "limiter/error.hpp"
#include "limiter/import.hpp"

namespace limiter {
namespace {

const std::string kNcuData = std::string(LIMITER_TEST_DATA_DIR) + "/ncu/";

RunRecord import_file(const std::string& name) {
  std::ifstream in(kNcuData + name, std::ios::binary);
  if (!in) throw std::runtime_error("test data missing: " + kNcuData + name);
  return import_ncu_csv(in, name);
}

RunRecord import_text(const std::string& text) {
  std::istringstream in(text);
  return import_ncu_csv(in, "inline.csv");
}

// The InputError message of importing `text`, or "" when it imports.
std::string import_error(const std::string& text) {
  try {
    import_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* const kRawHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid "
    "Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\",\"launch__registers_per_thread\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"ns\",\"register/thread\"\n";

// --- details page ------------------------------------------------------------------------

TEST(ImportNcuDetails, LaunchesInIdOrderWithNamesAsNcuGivesThem) {
  const RunRecord run = import_file("synthetic_details.csv");
  EXPECT_EQ(run.source, "ncu-csv");
  EXPECT_EQ(run.counter_model, CounterModel::perfworks);
  ASSERT_EQ(run.launches.size(), 3u);
  EXPECT_EQ(run.launches[0].name, "copy_kernel(const float *, float *, int)");
  EXPECT_EQ(run.launches[1].name, "void fwd_3D_orderX2b<4, 9>(float *, const float *, int)");
  EXPECT_EQ(run.launches[2].name, "copy_kernel(const float *, float *, int)");
  for (std::size_t i = 0; i < run.launches.size(); ++i) EXPECT_EQ(run.launches[i].sequence, i);
}

TEST(ImportNcuDetails, LaunchConfigurationFromColumnsAndLaunchStatistics) {
  const RunRecord run = import_file("synthetic_details.csv");
  const KernelLaunch& stencil = run.launches[1];
  EXPECT_EQ(stencil.grid, (Dim3{16, 8, 3}));
  EXPECT_EQ(stencil.block, (Dim3{32, 4, 2}));
  EXPECT_EQ(stencil.registers_per_thread, 32);
  EXPECT_EQ(stencil.static_shared_bytes, 6910u);  // "6.91 Kbyte/block": ncu's rounding, kept
  EXPECT_EQ(stencil.dynamic_shared_bytes, 0u);
  EXPECT_EQ(stencil.stream_id, 7u);
  EXPECT_EQ(stencil.context_id, 1u);
  EXPECT_EQ(stencil.device, 0);
  const KernelLaunch& copy = run.launches[0];
  EXPECT_EQ(copy.grid, (Dim3{4096, 1, 1}));
  EXPECT_EQ(copy.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(copy.registers_per_thread, 16);
  EXPECT_EQ(copy.dynamic_shared_bytes, 1024u);
}

TEST(ImportNcuDetails, DisplayNamesBecomeRawMetricNamesInBaseUnits) {
  const RunRecord run = import_file("synthetic_details.csv");
  const auto& c0 = run.launches[0].counters;
  EXPECT_DOUBLE_EQ(c0.at("gpu__time_duration.sum"), 12350.0);                        // 12.35 usecond
  EXPECT_DOUBLE_EQ(run.launches[1].counters.at("gpu__time_duration.sum"), 1.5e6);    // 1.5 msecond
  EXPECT_DOUBLE_EQ(run.launches[2].counters.at("gpu__time_duration.sum"), 11904.0);  // "11,904" ns
  EXPECT_DOUBLE_EQ(c0.at("dram__cycles_elapsed.avg.per_second"), 2.62e9);            // cycle/nsecond
  EXPECT_DOUBLE_EQ(c0.at("gpc__cycles_elapsed.avg.per_second"), 1.98e9);             // Ghz
  EXPECT_DOUBLE_EQ(c0.at("gpc__cycles_elapsed.max"), 1048576.0);
  EXPECT_DOUBLE_EQ(c0.at("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), 81.25);
  EXPECT_DOUBLE_EQ(c0.at("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 20.5);
  EXPECT_DOUBLE_EQ(c0.at("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), 79.1);
  EXPECT_DOUBLE_EQ(c0.at("launch__shared_mem_config_size"), 32770.0);  // 32.77 Kbyte
  EXPECT_DOUBLE_EQ(c0.at("launch__thread_count"), 1048576.0);
  EXPECT_DOUBLE_EQ(c0.at("launch__grid_size"), 4096.0);
  // Same label, other section, other meaning: Memory Workload Analysis' bandwidth.
  EXPECT_DOUBLE_EQ(c0.at("dram__bytes.sum.per_second"), 2.77e9);  // Gbyte/second
}

TEST(ImportNcuDetails, RawNamesPassThroughUnknownLabelsStayTextAndRulesAreSkipped) {
  const RunRecord run = import_file("synthetic_details.csv");
  const auto& c0 = run.launches[0].counters;
  EXPECT_DOUBLE_EQ(c0.at("lts__t_sectors_op_read.sum"), 1048576.0);
  EXPECT_DOUBLE_EQ(run.launches[2].counters.at("lts__t_sectors_op_read.sum"), 1048577.0);
  EXPECT_DOUBLE_EQ(c0.at("Some Future Metric"), 1234.0);             // unknown label: kept as is
  EXPECT_FALSE(c0.contains("smsp__inst_executed_op_local_ld.sum"));  // "n/a": not collected
  EXPECT_FALSE(c0.contains("launch__func_cache_config"));            // text, not a counter
  EXPECT_FALSE(c0.contains(""));                                     // rule rows
  EXPECT_EQ(c0.size(), 17u);
}

TEST(ImportNcuDetails, DeviceFromColumns) {
  const RunRecord run = import_file("synthetic_details.csv");
  EXPECT_EQ(run.device.arch, "sm_90");
  EXPECT_EQ(run.device.name, "");  // the "Device" column holds an index here
  EXPECT_EQ(run.device.chip, "");
  EXPECT_EQ(run.device.sm_count, 0);
  EXPECT_DOUBLE_EQ(run.device.sm_clock_hz.value(), 1.98e9);
  EXPECT_DOUBLE_EQ(run.device.memory_clock_hz.value(), 2.62e9);
}

// --- raw page ----------------------------------------------------------------------------

TEST(ImportNcuRaw, UnitsRowConvertsEveryColumn) {
  const RunRecord run = import_file("synthetic_raw.csv");  // BOM and CRLF line ends
  ASSERT_EQ(run.launches.size(), 3u);
  const auto& c0 = run.launches[0].counters;
  EXPECT_DOUBLE_EQ(c0.at("gpu__time_duration.sum"), 1520.0);              // 1.52 usecond
  EXPECT_DOUBLE_EQ(c0.at("dram__bytes_read.sum"), 4.19e6);                // Mbyte
  EXPECT_DOUBLE_EQ(c0.at("dram__bytes_read.sum.per_second"), 2.77e12);    // Tbyte/second
  EXPECT_DOUBLE_EQ(c0.at("sm__cycles_elapsed.avg.per_second"), 1.755e9);  // Ghz
  EXPECT_DOUBLE_EQ(c0.at("smsp__inst_issued.sum"), 690000.0);             // 0.69 Minst
  EXPECT_DOUBLE_EQ(c0.at("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 20.5);
  EXPECT_DOUBLE_EQ(c0.at("launch__grid_size"), 4096.0);  // "4,096"
  EXPECT_DOUBLE_EQ(run.launches[1].counters.at("smsp__inst_issued.sum"), 20410000.0);
  EXPECT_FALSE(run.launches[2].counters.contains("dram__bytes_read.sum.per_second"));  // n/a
  EXPECT_FALSE(c0.contains("launch__func_cache_config"));
  EXPECT_FALSE(c0.contains("device__attribute_display_name"));
  EXPECT_FALSE(c0.contains("Kernel Name"));
}

TEST(ImportNcuRaw, LaunchFieldsAndDevice) {
  const RunRecord run = import_file("synthetic_raw.csv");
  const KernelLaunch& stencil = run.launches[1];
  EXPECT_EQ(stencil.name, "void fwd_3D_orderX2b<4, 9>(float *, const float *, int)");
  EXPECT_EQ(stencil.grid, (Dim3{16, 8, 3}));  // the column's x,y,z, not launch__grid_size's total
  EXPECT_EQ(stencil.block, (Dim3{32, 4, 2}));
  EXPECT_EQ(stencil.registers_per_thread, 32);
  EXPECT_EQ(stencil.static_shared_bytes, 6912u);  // 6.912 Kbyte/block, exactly
  EXPECT_EQ(stencil.dynamic_shared_bytes, 0u);
  EXPECT_EQ(stencil.stream_id, 13u);
  EXPECT_EQ(run.launches[0].dynamic_shared_bytes, 1024u);

  EXPECT_EQ(run.device.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run.device.arch, "sm_90");
  EXPECT_EQ(run.device.sm_count, 132);
  EXPECT_EQ(run.device.l2_bytes, 52430000u);
  EXPECT_DOUBLE_EQ(run.device.sm_clock_hz.value(), (1.755e9 + 1.755e9 + 1.74e9) / 3);
  EXPECT_FALSE(run.device.memory_clock_hz.has_value());
}

TEST(ImportNcuRaw, TotalsOnlyBecomeOneDimensionalLaunches) {
  const RunRecord run = import_text(
      "\"ID\",\"Kernel "
      "Name\",\"launch__grid_size\",\"launch__block_size\",\"device__attribute_compute_capability_major\","
      "\"device__attribute_compute_capability_minor\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\"\n"
      "\"0\",\"k\",\"1,000\",\"128\",\"8\",\"6\"\n");
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].grid, (Dim3{1000, 1, 1}));
  EXPECT_EQ(run.launches[0].block, (Dim3{128, 1, 1}));
  EXPECT_EQ(run.device.arch, "sm_86");
}

// --- real exports --------------------------------------------------------------------------

TEST(ImportNcuReal, H200ProbeBothPagesAgree) {
  const RunRecord details = import_file("h200_probe_details.csv");
  const RunRecord raw = import_file("h200_probe_raw.csv");
  ASSERT_EQ(details.launches.size(), 7u);
  ASSERT_EQ(raw.launches.size(), 7u);
  EXPECT_EQ(raw.device.name, "NVIDIA H200");
  EXPECT_EQ(raw.device.arch, "sm_90");
  EXPECT_EQ(raw.device.sm_count, 132);
  EXPECT_EQ(raw.device.l2_bytes, 62914560u);
  EXPECT_EQ(raw.device.memory_bus_width_bits, 6016);
  EXPECT_EQ(details.device.arch, "sm_90");
  EXPECT_EQ(details.device.sm_count, 132);
  const KernelLaunch& copy = raw.launches[0];
  EXPECT_EQ(copy.name, "stream_copy(const float4 *, float4 *, unsigned long)");
  EXPECT_EQ(copy.grid, (Dim3{1056, 1, 1}));
  EXPECT_EQ(copy.block, (Dim3{256, 1, 1}));
  EXPECT_DOUBLE_EQ(copy.counters.at("gpu__time_duration.sum"), 264480.0);
  EXPECT_DOUBLE_EQ(copy.counters.at("dram__bytes_read.sum"), 536884224.0);
  for (std::size_t i = 0; i < raw.launches.size(); ++i) {
    EXPECT_EQ(details.launches[i].name, raw.launches[i].name);
    EXPECT_EQ(details.launches[i].grid, raw.launches[i].grid);
    EXPECT_EQ(details.launches[i].block, raw.launches[i].block);
    EXPECT_EQ(details.launches[i].registers_per_thread, raw.launches[i].registers_per_thread);
    for (const auto& [metric, value] : details.launches[i].counters) {
      if (!raw.launches[i].counters.contains(metric)) continue;
      // The details page rounds to what it displays (2 decimals, or 3-4 digits after a prefix).
      EXPECT_NEAR(value, raw.launches[i].counters.at(metric), 5e-3 * std::max(1.0, std::abs(value)))
          << metric << " of launch " << i;
    }
  }
}

TEST(ImportNcuReal, ImportProbeDefaultSectionsAndRawPage) {
  const RunRecord details = import_file("import_probe_h200_details.csv");
  const RunRecord raw = import_file("import_probe_h200_raw.csv");
  const RunRecord metrics = import_file("import_probe_h200_details_metrics.csv");
  for (const RunRecord* run : {&details, &raw, &metrics}) {
    ASSERT_EQ(run->launches.size(), 3u);
    EXPECT_EQ(run->launches[1].name, "void fwd_3D_orderX2b<4, 9>(const float *, float *, int)");
    EXPECT_EQ(run->launches[1].grid, (Dim3{64, 2, 1}));
    EXPECT_EQ(run->launches[1].block, (Dim3{128, 2, 1}));
    EXPECT_EQ(run->launches[0].dynamic_shared_bytes, 1024u);
    EXPECT_EQ(run->device.arch, "sm_90");
    EXPECT_EQ(run->device.sm_count, 132);
  }
  EXPECT_EQ(metrics.device.name, "NVIDIA H200");
  EXPECT_EQ(metrics.device.global_memory_bytes, 150109880320u);
  EXPECT_DOUBLE_EQ(metrics.launches[0].counters.at("dram__bytes_read.sum.per_second"),
                   720703296703.30);  // byte/s
  EXPECT_DOUBLE_EQ(details.launches[0].counters.at("gpu__time_duration.sum"), 5344.0);
  EXPECT_DOUBLE_EQ(details.launches[0].counters.at("gpc__cycles_elapsed.avg.per_second"),
                   1490222679.64);  // hz
}

// --- forms and errors ----------------------------------------------------------------------

TEST(ImportNcu, DetailsWithoutIdColumnSplitsOnRepeatedMetric) {
  const RunRecord run = import_text(
      "\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"k\",\"gpu__time_duration.sum\",\"ns\",\"10\"\n"
      "\"k\",\"dram__bytes_read.sum\",\"Kbyte\",\"2\"\n"
      "\"k\",\"gpu__time_duration.sum\",\"ns\",\"11\"\n");
  ASSERT_EQ(run.launches.size(), 2u);
  EXPECT_DOUBLE_EQ(run.launches[0].counters.at("dram__bytes_read.sum"), 2000.0);
  EXPECT_DOUBLE_EQ(run.launches[1].counters.at("gpu__time_duration.sum"), 11.0);
}

TEST(ImportNcu, ShortAndBinaryUnitForms) {
  const RunRecord run = import_text(
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"a__us\",\"us\",\"264.48\"\n"
      "\"0\",\"k\",\"a__ms\",\"ms\",\"1.25\"\n"
      "\"0\",\"k\",\"a__s\",\"second\",\"2.5e-05\"\n"
      "\"0\",\"k\",\"a__mhz\",\"MHz\",\"1,755\"\n"
      "\"0\",\"k\",\"a__cycle_per_usecond\",\"cycle/usecond\",\"1,980\"\n"
      "\"0\",\"k\",\"a__gbs\",\"GB/s\",\"3.35\"\n"
      "\"0\",\"k\",\"a__kib\",\"KiB\",\"2\"\n"
      "\"0\",\"k\",\"a__per_cycle\",\"byte/cycle\",\"1,504\"\n"
      "\"0\",\"k\",\"a__pct_per_register\",\"%/register\",\"0.5\"\n"
      "\"0\",\"k\",\"a__warps\",\"warp\",\"44.67\"\n"
      "\"0\",\"k\",\"a__nan\",\"%\",\"nan\"\n"
      "\"0\",\"k\",\"a__instances\",\"inst\",\"1;2;3\"\n");
  const auto& c = run.launches.at(0).counters;
  EXPECT_DOUBLE_EQ(c.at("a__us"), 264480.0);
  EXPECT_DOUBLE_EQ(c.at("a__ms"), 1.25e6);
  EXPECT_DOUBLE_EQ(c.at("a__s"), 25000.0);
  EXPECT_DOUBLE_EQ(c.at("a__mhz"), 1.755e9);
  EXPECT_DOUBLE_EQ(c.at("a__cycle_per_usecond"), 1.98e9);
  EXPECT_DOUBLE_EQ(c.at("a__gbs"), 3.35e9);
  EXPECT_DOUBLE_EQ(c.at("a__kib"), 2048.0);
  EXPECT_DOUBLE_EQ(c.at("a__per_cycle"), 1504.0);
  EXPECT_DOUBLE_EQ(c.at("a__pct_per_register"), 0.5);
  EXPECT_DOUBLE_EQ(c.at("a__warps"), 44.67);
  EXPECT_FALSE(c.contains("a__nan"));        // no value, not an error
  EXPECT_FALSE(c.contains("a__instances"));  // per-instance list: no scalar to keep
}

TEST(ImportNcu, QuotedFieldsMayHoldQuotesAndLineBreaks) {
  const RunRecord run =
      import_text(std::string(kRawHeader) +
                  "\"0\",\"1\",\"a\",\"h\",\"op\"\"x\"\"(int,\nfloat)\",\"1\",\"7\",\"(1, 1, 1)\","
                  "\"(1, 1, 1)\",\"0\",\"9.0\",\"5\",\"8\"\n"
                  "\"1\",\"1\",\"a\",\"h\",\"k2\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"6\",\"8\"\n");
  ASSERT_EQ(run.launches.size(), 2u);
  EXPECT_EQ(run.launches[0].name, "op\"x\"(int,\nfloat)");
  EXPECT_EQ(run.launches[1].name, "k2");
}

TEST(ImportNcu, EmptyInputSaysHowToExport) {
  const std::string message = import_error("");
  EXPECT_NE(message.find("inline.csv"), std::string::npos) << message;
  EXPECT_NE(message.find("does not look like an Nsight Compute CSV"), std::string::npos) << message;
  EXPECT_NE(message.find("--page raw --print-units base"), std::string::npos) << message;
}

TEST(ImportNcu, MissingHeaderIsRejected) {
  const std::string message = import_error("==PROF== Connected to process 1\nhello\n\"0\",\"k\",\"5\"\n");
  EXPECT_NE(message.find("no header row"), std::string::npos) << message;
  EXPECT_NE(message.find("ncu --csv --page raw"), std::string::npos) << message;
}

TEST(ImportNcu, HeaderWithoutRowsIsRejected) {
  const std::string message = import_error(kRawHeader);
  EXPECT_NE(message.find("inline.csv:1:"), std::string::npos) << message;
  EXPECT_NE(message.find("no kernel rows"), std::string::npos) << message;
}

TEST(ImportNcu, TruncatedRowNamesItsLine) {
  const std::string message =
      import_error(std::string(kRawHeader) + "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\"\n");
  EXPECT_NE(message.find("inline.csv:3:"), std::string::npos) << message;
  EXPECT_NE(message.find("has 8 fields but the header needs 13"), std::string::npos) << message;
}

TEST(ImportNcu, TruncatedDetailsRowNamesItsLine) {
  const std::string message = import_error(
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"gpu__time_duration.sum\",\"ns\",\"10\"\n"
      "\"0\",\"k\",\"dram__bytes_read.sum\"\n");
  EXPECT_NE(message.find("inline.csv:3:"), std::string::npos) << message;
  EXPECT_NE(message.find("has 3 fields but the header needs 5"), std::string::npos) << message;
}

TEST(ImportNcu, NonNumericValueNamesLineColumnAndValue) {
  const std::string message = import_error(
      std::string(kRawHeader) +
      "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"fast\",\"8\"\n");
  EXPECT_NE(message.find("inline.csv:3: column 12 ('gpu__time_duration.sum')"), std::string::npos) << message;
  EXPECT_NE(message.find("'fast', which is not a number (unit 'ns')"), std::string::npos) << message;
}

TEST(ImportNcu, DecimalCommaIsNotReadAsThousands) {
  const std::string message = import_error(
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"9,00\"\n");
  EXPECT_NE(message.find("inline.csv:2: column 5 ('Metric Value')"), std::string::npos) << message;
  EXPECT_NE(message.find("'9,00'"), std::string::npos) << message;
}

TEST(ImportNcu, TextWhereALaunchSizeBelongsIsAnError) {
  const std::string message = import_error(
      std::string(kRawHeader) +
      "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"5\",\"many\"\n");
  EXPECT_NE(message.find("launch__registers_per_thread"), std::string::npos) << message;
  EXPECT_NE(message.find("'many'"), std::string::npos) << message;
}

TEST(ImportNcu, MalformedLaunchDimensionIsAnError) {
  const std::string message = import_error(
      std::string(kRawHeader) +
      "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(256, x, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"5\",\"8\"\n");
  EXPECT_NE(message.find("inline.csv:3: column 8 ('Block Size')"), std::string::npos) << message;
}

TEST(ImportNcu, UnterminatedQuoteNamesTheLineItOpened) {
  const std::string message = import_error(std::string(kRawHeader) + "\"0\",\"1\",\"a\",\"h\",\"k(int\n1,7\n");
  EXPECT_NE(message.find("inline.csv:3: a quoted field is never closed"), std::string::npos) << message;
}

}  // namespace
}  // namespace limiter
