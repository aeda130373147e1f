// The cache condition of a record's exact counters (RunRecord::cache_control, `limiter run
// --cache-control none|all`): through every reader, a killed app's partial file, a hostile value,
// every report format and a comparison of records taken under different conditions.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "limiter/sqlite_export.hpp"

namespace limiter {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kFlushed = "L2 flushed before each launch (--cache-control all, as ncu's default)";

RunRecord run_under(std::optional<std::string> cache_control, double duration_ns = 1000.0) {
  RunRecord run;
  run.tool_version = "test";
  run.source = "cupti";
  run.device.name = "NVIDIA H100";
  run.device.arch = "sm_90";
  run.device.sm_count = 132;
  run.cache_control = std::move(cache_control);
  for (std::uint64_t i = 0; i < 2; ++i) {
    KernelLaunch launch;
    launch.sequence = i;
    launch.name = "scale";
    launch.grid = {64, 1, 1};
    launch.block = {256, 1, 1};
    launch.counters["gpu__time_duration.sum"] = duration_ns;
    run.launches.push_back(launch);
  }
  return run;
}

std::string message_of(const json& record) {
  try {
    run_from_json(record, "'run.json'");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CacheControlRecord, RoundTripsThroughEveryReader) {
  for (const char* value : {"none", "all"}) {
    const RunRecord run = run_under(value);
    EXPECT_EQ(to_json(run).at("cache_control"), value);
    EXPECT_EQ(run_from_json(json::parse(to_json(run).dump())), run);
    const fs::path path = fs::temp_directory_path() / "limiter_cache_control_roundtrip.json";
    write_run_file(run, path.string());
    EXPECT_EQ(read_run_file(path.string()), run);   // the streaming reader
    std::istringstream text(to_json(run).dump(1));  // the SAX reader
    RunRecord streamed;
    read_run_stream(
        text, "<text>", [&](const RunRecord& header) { streamed = header; },
        [&](KernelLaunch&& launch) { streamed.launches.push_back(std::move(launch)); });
    EXPECT_EQ(streamed, run);
    fs::remove(path);
  }
  // Unset (older records, imports, --trace/--stalls/--sampling alone): no key, and read as unset.
  const RunRecord unset = run_under(std::nullopt);
  EXPECT_FALSE(to_json(unset).contains("cache_control"));
  EXPECT_EQ(run_from_json(json::parse(to_json(unset).dump())).cache_control, std::nullopt);
}

TEST(CacheControlRecord, AKilledAppsRecoveredRecordSaysItToo) {
  RunRecord full = run_under("all");
  RunRecord header = full;
  header.launches.clear();
  const fs::path dir = fs::temp_directory_path();
  const std::string partial = (dir / "limiter_cache_control.partial").string();
  const std::string output = (dir / "limiter_cache_control.json").string();
  {
    std::ofstream out(partial);
    out << partial_run_header(header) << "\n";
    for (const auto& launch : full.launches) out << launch_json(launch).dump() << "\n";
    out << "{\"sequence\": 2, \"na";  // killed mid-write
  }
  EXPECT_EQ(read_partial_run(partial), full);
  EXPECT_EQ(finish_partial_run(partial, output, "killed"), 2u);
  const RunRecord recovered = read_run_file(output);
  EXPECT_EQ(recovered.cache_control, "all");
  EXPECT_EQ(recovered.ended, "killed");
  fs::remove(partial);
  fs::remove(output);
}

TEST(CacheControlRecord, AMalformedValueIsAnInputErrorNamingTheField) {
  json record = to_json(run_under("all"));
  record["cache_control"] = "sometimes";
  EXPECT_EQ(message_of(record), "'run.json': field \"cache_control\" must be \"none\" or \"all\", not \"sometimes\"");
  record["cache_control"] = std::string(10000, 'x');  // hostile: the message stays short
  const std::string long_message = message_of(record);
  EXPECT_NE(long_message.find("field \"cache_control\" must be \"none\" or \"all\", not \"xxx"), std::string::npos);
  EXPECT_LT(long_message.size(), 120u) << long_message;
  record["cache_control"] = 1;
  EXPECT_EQ(message_of(record), "'run.json': field \"cache_control\" must be a string or null, not a number (1)");
  std::istringstream streamed(record.dump());
  EXPECT_THROW(read_run_stream(
                   streamed, "<text>", [](const RunRecord&) {}, [](KernelLaunch&&) {}),
               InputError);
  record["cache_control"] = nullptr;  // as absent
  EXPECT_EQ(run_from_json(record).cache_control, std::nullopt);
}

TEST(CacheControlRecord, EveryReportStatesIt) {
  const RunSummary flushed = summarize(analyze_run(run_under("all")));
  std::ostringstream text, markdown, html, report_json;
  write_text_report(flushed, text);
  write_markdown_report(flushed, markdown);
  write_html_report(flushed, html);
  write_json_report(flushed, report_json);
  EXPECT_NE(text.str().find(std::string("\ncaches: ") + kFlushed + "\n"), std::string::npos) << text.str();
  EXPECT_NE(markdown.str().find("Caches: L2 flushed before each launch"), std::string::npos) << markdown.str();
  EXPECT_NE(html.str().find("caches: L2 flushed before each launch (--cache-control all, as ncu&#39;s default)"),
            std::string::npos);
  EXPECT_EQ(json::parse(report_json.str()).at("cache_control"), "all");

  std::ostringstream own;
  write_text_report(summarize(analyze_run(run_under("none"))), own);
  EXPECT_NE(own.str().find("\ncaches: the app's own (--cache-control none)\n"), std::string::npos) << own.str();

  // A record that does not say: no line, no key.
  const RunSummary unknown = summarize(analyze_run(run_under(std::nullopt)));
  std::ostringstream unknown_text, unknown_json;
  write_text_report(unknown, unknown_text);
  write_json_report(unknown, unknown_json);
  EXPECT_EQ(unknown_text.str().find("caches:"), std::string::npos);
  EXPECT_FALSE(json::parse(unknown_json.str()).contains("cache_control"));
}

std::string sqlite_value(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string value = "(no row)";
  if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0))
    value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return value;
}

TEST(CacheControlRecord, TheSqliteExportsRunTableHoldsIt) {
  const std::string path = (fs::temp_directory_path() / "limiter_cache_control.sqlite").string();
  for (const std::optional<std::string>& value : {std::optional<std::string>("all"), std::optional<std::string>()}) {
    {
      SqliteExport database(path);
      database.finish(summarize_record(run_under(value), {}, {}, database.batch_sink()));
    }
    EXPECT_EQ(sqlite_value(path, "SELECT value FROM run WHERE key = 'cache_control'"), value.value_or("(no row)"));
    fs::remove(path);
  }
}

TEST(CacheControlRecord, ComparingRecordsOfDifferentCachesWarnsInEveryFormat) {
  CompareOptions names;
  names.before_label = "flushed.json";
  names.after_label = "own.json";
  const RunComparison comparison =
      compare_runs(analyze_run(run_under("all", 1200.0)), analyze_run(run_under("none", 1000.0)), names);
  const std::string warning =
      "before measured with L2 flushed before each launch (--cache-control all), after with the app's own caches "
      "(--cache-control none): times and memory traffic differ by the caches as well as by the change";
  EXPECT_EQ(comparison.cache_warning, warning);
  std::ostringstream text, markdown, html, comparison_json;
  write_text_comparison(comparison, text);
  write_markdown_comparison(comparison, markdown);
  write_html_comparison(comparison, html);
  write_json_comparison(comparison, comparison_json);
  EXPECT_NE(text.str().find("\nWARNING: " + warning + "\n"), std::string::npos) << text.str();
  EXPECT_NE(markdown.str().find("> **Warning:** before measured with L2 flushed"), std::string::npos) << markdown.str();
  EXPECT_NE(html.str().find("<p class=\"warning\">Warning: before measured with L2 flushed"), std::string::npos);
  const json parsed = json::parse(comparison_json.str());
  EXPECT_EQ(parsed.at("cache_warning"), warning);
  EXPECT_EQ(parsed.at("before").at("cache_control"), "all");
  EXPECT_EQ(parsed.at("after").at("cache_control"), "none");

  // The same condition, or a side that does not say (an import, an older record): no warning.
  EXPECT_EQ(compare_runs(analyze_run(run_under("all")), analyze_run(run_under("all"))).cache_warning, "");
  const RunComparison unknown = compare_runs(analyze_run(run_under(std::nullopt)), analyze_run(run_under("all")));
  EXPECT_EQ(unknown.cache_warning, "");
  std::ostringstream quiet;
  write_text_comparison(unknown, quiet);
  EXPECT_EQ(quiet.str().find("WARNING"), std::string::npos) << quiet.str();
}

}  // namespace
}  // namespace limiter
