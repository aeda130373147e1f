// The SQLite export: prepared statements inside one transaction (journal off: the file is
// new and renamed into place only when complete).
#include "limiter/sqlite_export.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "limiter/error.hpp"
#include "limiter/reports.hpp"
#include "render_helpers.hpp"

namespace limiter {
namespace {

const char* const kSchema = R"(
CREATE TABLE run (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE kernels (kernel_id INTEGER PRIMARY KEY, name TEXT NOT NULL, display_name TEXT, mangled_name TEXT);
CREATE TABLE launches (
  sequence INTEGER PRIMARY KEY, kernel_id INTEGER NOT NULL REFERENCES kernels,
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,
  registers_per_thread INTEGER, static_shared_bytes INTEGER, dynamic_shared_bytes INTEGER,
  local_bytes_per_thread INTEGER, stream_id INTEGER, context_id INTEGER, device INTEGER,
  duration_ns REAL, verdict TEXT, balanced INTEGER, limiting_unit TEXT, latency_causes TEXT,
  issue_utilization REAL, l2_utilization REAL, dram_utilization REAL, l1_utilization REAL,
  compute_utilization REAL, memory_utilization REAL,
  lmem_l2_share REAL, lmem_l2_share_is_upper_bound INTEGER, lmem_instruction_share REAL, lmem_l2_sectors REAL,
  theoretical_occupancy REAL, achieved_occupancy REAL, waves REAL, advice_headline TEXT, nvtx TEXT);
CREATE TABLE counters (sequence INTEGER NOT NULL, metric TEXT NOT NULL, value REAL,
                       PRIMARY KEY (sequence, metric)) WITHOUT ROWID;
CREATE TABLE groups (
  rank INTEGER PRIMARY KEY, kernel_id INTEGER NOT NULL REFERENCES kernels,
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,
  launches INTEGER, total_ns REAL, mean_ns REAL, min_ns REAL, max_ns REAL, time_share REAL,
  main_verdict TEXT, bandwidth_launches INTEGER, instruction_launches INTEGER, latency_launches INTEGER,
  no_verdict_launches INTEGER, limiting_unit TEXT, issue_utilization REAL, l2_utilization REAL,
  dram_utilization REAL, compute_utilization REAL, memory_utilization REAL,
  lmem_l2_share REAL, lmem_instruction_share REAL, theoretical_occupancy REAL,
  first_sequence INTEGER, longest_sequence INTEGER, fix_first_rank INTEGER, advice_headline TEXT,
  timeline_launches INTEGER, timeline_total_ns REAL, timeline_mean_ns REAL, timeline_min_ns REAL,
  timeline_max_ns REAL, timeline_time_share REAL, no_counters TEXT);
CREATE TABLE timeline (
  event_id INTEGER PRIMARY KEY, kind TEXT NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL, stream_id INTEGER, context_id INTEGER, device INTEGER, correlation_id INTEGER,
  name TEXT, bytes INTEGER, pageable INTEGER, thread_id INTEGER, launch_sequence INTEGER,
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER);
CREATE TABLE program (
  scope TEXT PRIMARY KEY, instances INTEGER, verdict TEXT, wall_ns REAL, gpu_busy_ns REAL, gpu_busy_share REAL,
  kernel_ns REAL, copy_only_ns REAL, idle_ns REAL, idle_launch_ns REAL, idle_sync_ns REAL, idle_copy_ns REAL,
  idle_host_ns REAL, idle_unattributed_ns REAL, paused_ns REAL);
CREATE TABLE program_pauses (start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL);
CREATE TABLE stalls (kernel TEXT NOT NULL, reason TEXT NOT NULL, title TEXT, samples INTEGER NOT NULL, share REAL,
                     stall_share REAL, PRIMARY KEY (kernel, reason)) WITHOUT ROWID;
CREATE TABLE hot_pcs (kernel TEXT NOT NULL, cubin_crc INTEGER, pc_offset INTEGER NOT NULL, samples INTEGER NOT NULL,
                      share REAL, reason TEXT, sass TEXT, file TEXT, line INTEGER);
)";

// A prepared statement whose values are bound in column order.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK)
      throw SystemError(std::string("SQLite: ") + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& null() { return check(sqlite3_bind_null(statement_, ++column_)); }
  Statement& text(const std::string& value) {
    return check(
        sqlite3_bind_text(statement_, ++column_, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT));
  }
  Statement& integer(std::int64_t value) { return check(sqlite3_bind_int64(statement_, ++column_, value)); }
  Statement& real(double value) { return check(sqlite3_bind_double(statement_, ++column_, value)); }
  template <typename T>
  Statement& optional_integer(const std::optional<T>& value) {
    return value ? integer(static_cast<std::int64_t>(*value)) : null();
  }
  Statement& optional_real(const std::optional<double>& value) { return value ? real(*value) : null(); }
  Statement& optional_text(const std::string& value) { return value.empty() ? null() : text(value); }
  Statement& dims(const Dim3& grid, const Dim3& block) {
    for (std::uint32_t v : {grid.x, grid.y, grid.z, block.x, block.y, block.z}) integer(v);
    return *this;
  }
  void run() {
    if (sqlite3_step(statement_) != SQLITE_DONE) throw SystemError(std::string("SQLite: ") + sqlite3_errmsg(db_));
    sqlite3_reset(statement_);
    column_ = 0;
  }

 private:
  Statement& check(int status) {
    if (status != SQLITE_OK) throw SystemError(std::string("SQLite: ") + sqlite3_errmsg(db_));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
  int column_ = 0;
};

std::string verdict_text(const std::optional<Verdict>& verdict) { return verdict ? to_string(*verdict) : ""; }

void execute(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    throw SystemError("SQLite: " + message);
  }
}

}  // namespace

struct SqliteExport::Impl {
  std::string path, temporary;
  sqlite3* db = nullptr;
  std::unordered_map<std::string, std::int64_t> kernel_ids;
  std::unordered_map<std::string, std::string> mangled;
  std::unique_ptr<Statement> launch, counter;

  std::int64_t kernel_id(const KernelLaunch& launch_record) {
    auto [entry, inserted] =
        kernel_ids.try_emplace(launch_record.name, static_cast<std::int64_t>(kernel_ids.size() + 1));
    if (inserted) mangled[launch_record.name] = launch_record.mangled_name;
    return entry->second;
  }

  void add(const RunRecord& batch, const RunAnalysis& analysis) {
    for (std::size_t i = 0; i < batch.launches.size(); ++i) {
      const KernelLaunch& l = batch.launches[i];
      const KernelAnalysis& k = analysis.kernels[i];
      std::string causes;
      for (auto cause : k.latency_causes) causes += (causes.empty() ? "" : ";") + to_string(cause);
      Statement& s = *launch;
      s.integer(static_cast<std::int64_t>(l.sequence)).integer(kernel_id(l)).dims(l.grid, l.block);
      s.optional_integer(l.registers_per_thread)
          .optional_integer(l.static_shared_bytes)
          .optional_integer(l.dynamic_shared_bytes)
          .optional_integer(l.local_bytes_per_thread)
          .optional_integer(l.stream_id)
          .optional_integer(l.context_id)
          .optional_integer(l.device);
      s.optional_real(k.duration_ns)
          .optional_text(verdict_text(k.verdict))
          .integer(k.balanced)
          .optional_text(k.limiting_unit)
          .optional_text(causes);
      s.optional_real(k.utilization.issue)
          .optional_real(k.utilization.l2)
          .optional_real(k.utilization.dram)
          .optional_real(k.utilization.l1)
          .optional_real(k.utilization.compute())
          .optional_real(k.utilization.memory());
      s.optional_real(k.lmem.l2_share)
          .integer(k.lmem.l2_share_is_upper_bound)
          .optional_real(k.lmem.instruction_share)
          .optional_real(k.lmem.l2_sectors);
      s.optional_real(render::occupancy_of(k)).optional_real(k.occupancy.achieved);
      s.optional_real(k.occupancy.waves ? std::optional<double>(k.occupancy.waves->waves) : std::nullopt);
      // nvtx: the launch's NVTX ranges (" + " between them), NULL outside every range.
      s.optional_text(render::first_advice_headline(k)).optional_text(l.nvtx.empty() ? "" : nvtx_label(l.nvtx)).run();
      if (!counter) continue;
      for (const auto& [metric, value] : l.counters)
        counter->integer(static_cast<std::int64_t>(l.sequence)).text(metric).real(value).run();
    }
  }
};

SqliteExport::SqliteExport(const std::string& path, bool counters) : impl_(new Impl) {
  impl_->path = path;
  impl_->temporary = path + ".tmp";
  std::filesystem::remove(impl_->temporary);
  if (sqlite3_open(impl_->temporary.c_str(), &impl_->db) != SQLITE_OK) {
    delete impl_;
    throw InputError("cannot write '" + path + "': check that the folder exists and is writable");
  }
  execute(impl_->db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;");
  execute(impl_->db, kSchema);
  impl_->launch = std::make_unique<Statement>(
      impl_->db, "INSERT INTO launches VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  if (counters) impl_->counter = std::make_unique<Statement>(impl_->db, "INSERT INTO counters VALUES (?,?,?)");
}

SqliteExport::~SqliteExport() {
  impl_->launch.reset();
  impl_->counter.reset();
  sqlite3_close(impl_->db);
  std::error_code ignored;
  std::filesystem::remove(impl_->temporary, ignored);  // still there only when finish() was not reached
  delete impl_;
}

BatchSink SqliteExport::batch_sink() {
  return [this](const RunRecord& batch, const RunAnalysis& analysis) { impl_->add(batch, analysis); };
}

void SqliteExport::add_timeline(const Timeline& timeline) {
  Statement event(impl_->db, "INSERT INTO timeline VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  std::int64_t id = 0;
  for (const auto& e : timeline.events) {
    event.integer(++id)
        .text(std::string(to_string(e.kind)))
        .integer(static_cast<std::int64_t>(e.start_ns))
        .integer(static_cast<std::int64_t>(e.end_ns))
        .integer(static_cast<std::int64_t>(e.duration_ns()));
    event.optional_integer(e.stream_id).optional_integer(e.context_id).optional_integer(e.device);
    if (e.correlation_id)
      event.integer(e.correlation_id);
    else
      event.null();
    event.text(e.name).optional_integer(e.bytes);
    if (e.pageable)
      event.integer(*e.pageable);
    else
      event.null();
    event.optional_integer(e.thread_id).optional_integer(e.launch_sequence);
    if (e.grid && e.block) {  // a kernel's configuration, where the record has it
      event.dims(*e.grid, *e.block);
    } else {
      for (int i = 0; i < 6; ++i) event.null();
    }
    event.run();
  }
}

void SqliteExport::add_stalls(const StallInfo& stalls) {
  Statement reason(impl_->db, "INSERT INTO stalls VALUES (?,?,?,?,?,?)");
  for (const auto& kernel : StallIndex(stalls, {}).all())
    for (const auto& r : kernel->reasons)
      reason.text(kernel->name)
          .text(r.reason)
          .text(r.title)
          .integer(static_cast<std::int64_t>(r.samples))
          .real(r.share)
          .real(r.stall_share)
          .run();
  Statement pc(impl_->db, "INSERT INTO hot_pcs VALUES (?,?,?,?,?,?,?,?,?)");
  for (const auto& kernel : stalls.kernels) {
    const auto total = static_cast<double>(kernel.samples);
    for (const auto& hot : kernel.hot_pcs) {
      const auto top = std::max_element(hot.reasons.begin(), hot.reasons.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
      pc.text(kernel.name)
          .integer(static_cast<std::int64_t>(kernel.cubin_crc))
          .integer(static_cast<std::int64_t>(hot.pc_offset))
          .integer(static_cast<std::int64_t>(hot.samples))
          .optional_real(total > 0 ? std::optional<double>(static_cast<double>(hot.samples) / total) : std::nullopt)
          .optional_text(top == hot.reasons.end() ? "" : top->first)
          .optional_text(hot.sass)
          .optional_text(hot.file.value_or(""))
          .optional_integer(hot.line)
          .run();
    }
  }
}

namespace {

// The program verdict's rows: the whole window ("window"), then each NVTX range by its path.
void write_program(sqlite3* db, const ProgramVerdict& program) {
  Statement row(db, "INSERT INTO program VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  const auto add = [&](const std::string& scope, std::size_t instances, ProgramBound verdict, const TimeSplit& s,
                       double paused_ns) {
    row.text(scope).integer(static_cast<std::int64_t>(instances)).text(std::string(program_bound_key(verdict)));
    row.real(s.wall_ns).real(s.gpu_busy_ns).real(s.busy_share()).real(s.kernel_ns).real(s.copy_only_ns).real(s.idle_ns);
    row.real(s.idle_launch_ns)
        .real(s.idle_sync_ns)
        .real(s.idle_copy_ns)
        .real(s.idle_host_ns)
        .real(s.idle_unattributed_ns);
    row.real(paused_ns).run();
  };
  // The window's split is without its pauses (listed in program_pauses); a range's is whole.
  add("window", 1, program.verdict, program.split, program.paused_ns);
  for (const auto& r : program.ranges) add(r.range, r.instances, r.verdict, r.split, 0);
  Statement pause(db, "INSERT INTO program_pauses VALUES (?,?)");
  for (const auto& p : program.pauses)
    pause.integer(static_cast<std::int64_t>(p.start_ns)).integer(static_cast<std::int64_t>(p.end_ns)).run();
}

}  // namespace

void SqliteExport::finish(const RunSummary& summary) {
  sqlite3* db = impl_->db;
  if (summary.program) write_program(db, *summary.program);
  {
    for (const auto& g : summary.groups)  // kernels of the timeline alone have no launch that named them
      impl_->kernel_ids.try_emplace(g.name, static_cast<std::int64_t>(impl_->kernel_ids.size() + 1));
    Statement kernel(db, "INSERT INTO kernels VALUES (?,?,?,?)");
    for (const auto& [name, id] : impl_->kernel_ids)
      kernel.integer(id).text(name).text(summary.display_name(name)).optional_text(impl_->mangled[name]).run();
    Statement group(db,
                    "INSERT INTO groups VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                    "?,?,?,?,?,?,?)");
    for (std::size_t rank = 0; rank < summary.groups.size(); ++rank) {
      const auto& g = summary.groups[rank];
      const auto& d = g.durations;
      group.integer(static_cast<std::int64_t>(rank + 1)).integer(impl_->kernel_ids.at(g.name)).dims(g.grid, g.block);
      group.integer(static_cast<std::int64_t>(g.launches))
          .optional_real(d.total_ns)
          .optional_real(d.mean_ns)
          .optional_real(d.min_ns)
          .optional_real(d.max_ns)
          .optional_real(g.time_share);
      group.optional_text(verdict_text(g.main_verdict))
          .integer(static_cast<std::int64_t>(g.verdicts.bandwidth))
          .integer(static_cast<std::int64_t>(g.verdicts.instruction))
          .integer(static_cast<std::int64_t>(g.verdicts.latency))
          .integer(static_cast<std::int64_t>(g.verdicts.none))
          .optional_text(g.limiting_unit);
      group.optional_real(g.issue)
          .optional_real(g.l2)
          .optional_real(g.dram)
          .optional_real(g.compute)
          .optional_real(g.memory)
          .optional_real(g.lmem_l2_share)
          .optional_real(g.lmem_instruction_share)
          .optional_real(g.occupancy);
      if (g.no_counters.empty())
        group.integer(static_cast<std::int64_t>(g.first_sequence))
            .integer(static_cast<std::int64_t>(g.longest.sequence));
      else  // on the timeline alone: no launch in the record
        group.null().null();
      group.optional_integer(g.fix_first_rank)
          .optional_text(g.fix_first_rank ? summary.fix_first[*g.fix_first_rank - 1].headline : "");
      if (g.timeline) {
        const auto& t = g.timeline->durations;
        group.integer(static_cast<std::int64_t>(g.timeline->launches))
            .optional_real(t.total_ns)
            .optional_real(t.mean_ns)
            .optional_real(t.min_ns)
            .optional_real(t.max_ns)
            .optional_real(g.timeline->time_share);
      } else {
        for (int i = 0; i < 6; ++i) group.null();
      }
      group.optional_text(g.no_counters).run();
    }
    const auto& run = summary.run;
    Statement meta(db, "INSERT INTO run VALUES (?,?)");
    const std::vector<std::pair<std::string, std::string>> entries = {
        {"schema_version", "1"},
        {"device_name", run.device.name},
        {"device_arch", run.device.arch},
        {"device_chip", run.device.chip},
        {"device_sm_count", std::to_string(run.device.sm_count)},
        {"source", run.source},
        {"counter_model", to_string(run.counter_model)},
        {"peaks", to_string(run.peaks)},
        {"peaks_origin", run.peaks_origin},
        {"launches", std::to_string(summary.launches)},
        {"timed_launches", std::to_string(summary.timed_launches)},
        {"total_duration_ns", render::plain_number(summary.total_ns)},
        {"names", to_string(summary.names)},
        {"tool_version", tool_version()}};
    for (const auto& [key, value] : entries) meta.text(key).text(value).run();
    if (run.cache_control) meta.text("cache_control").text(*run.cache_control).run();  // none or all; no row: unknown
    if (summary.program && !summary.program->window_note.empty())  // a run of several phases: where it was judged
      meta.text("program_window_note").text(summary.program->window_note).run();
    if (const auto& s = run.stall_sampling) {  // how the stalls table's samples were taken
      for (const auto& [key, value] :
           std::vector<std::pair<std::string, std::uint64_t>>{{"stall_sample_period_cycles", s->sample_period_cycles},
                                                              {"stall_samples", s->samples},
                                                              {"stall_dropped_samples", s->dropped_samples},
                                                              {"stall_hardware_buffer_full", s->hardware_buffer_full}})
        meta.text(key).text(std::to_string(value)).run();
    }
  }
  impl_->launch.reset();
  impl_->counter.reset();
  execute(db, "COMMIT;");
  if (sqlite3_close(db) != SQLITE_OK) throw SystemError("SQLite: cannot close '" + impl_->temporary + "'");
  impl_->db = nullptr;
  std::error_code ec;
  std::filesystem::rename(impl_->temporary, impl_->path, ec);
  if (ec) throw SystemError("cannot rename '" + impl_->temporary + "' to '" + impl_->path + "': " + ec.message());
}

}  // namespace limiter
