// sampling_agreement: how the PM-sampling mode's verdicts compare with the exact mode's on the
// same program. Reads a pm_probe run (samples.bin, kernels.tsv; the probe's six metrics) and an
// exact-mode record of the same program, attributes the samples (limiter/sampling.hpp),
// analyses both and prints the agreement by kernel time, and every disagreement.
//
//   sampling_agreement PROBE_DIR INTERVAL_NS EXACT_RUN.json[.gz] [METRIC,...]
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/sampling.hpp"

using namespace limiter;

namespace {

std::string key(const std::string& mangled, const Dim3& g, const Dim3& b) {
  std::ostringstream out;
  out << mangled << "|" << g.x << "," << g.y << "," << g.z << "|" << b.x << "," << b.y << "," << b.z;
  return out.str();
}

Dim3 dim(const std::string& text) {
  Dim3 d;
  std::sscanf(text.c_str(), "%u,%u,%u", &d.x, &d.y, &d.z);
  return d;
}

std::string verdict_text(const KernelAnalysis& k) { return k.verdict ? to_string(*k.verdict) : "none"; }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: sampling_agreement PROBE_DIR INTERVAL_NS EXACT_RUN [METRICS]\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::vector<std::string> metrics = {"smsp__inst_issued.sum", "sm__cycles_elapsed.avg",
                                      "dram__bytes_read.sum",  "dram__bytes_write.sum",
                                      "lts__t_sectors.sum",    "lts__t_sectors_srcunit_tex.sum"};
  if (argc > 4) {
    metrics.clear();
    std::stringstream list(argv[4]);
    for (std::string m; std::getline(list, m, ',');) metrics.push_back(m);
  }
  const RunRecord exact = read_run_file(argv[3]);
  SampleAttributor attributor(metrics, std::stoull(argv[2]));
  std::ifstream kernels(dir + "/kernels.tsv");
  for (std::string line; std::getline(kernels, line);) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
    if (f.size() < 10) continue;
    KernelSpan span;
    span.start_ns = std::stoull(f[0]);
    span.end_ns = std::stoull(f[1]);
    span.launch.mangled_name = span.launch.name = f[9];
    span.launch.grid = dim(f[4]);
    span.launch.block = dim(f[5]);
    span.launch.registers_per_thread = std::stoi(f[6]);
    span.launch.dynamic_shared_bytes = std::stoull(f[7]);
    attributor.add_kernel(std::move(span));
  }
  std::ifstream samples(dir + "/samples.bin", std::ios::binary);
  for (;;) {
    std::uint64_t ts[2];
    std::vector<double> values(metrics.size());
    if (!samples.read(reinterpret_cast<char*>(ts), sizeof ts)) break;
    if (!samples.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(values.size() * 8))) break;
    attributor.add_sample({ts[0], ts[1], std::move(values)});
  }
  RunRecord sampled;
  sampled.device = exact.device;
  sampled.source = "cupti-pm-sampling";
  sampled.launches = attributor.aggregates();
  sampled.sampling = attributor.info();
  const RunAnalysis sampled_analysis = analyze_run(sampled);
  const RunAnalysis exact_analysis = analyze_run(exact);

  // Exact mode: time per verdict per kernel and configuration.
  struct Exact {
    std::map<std::string, double> time_by_verdict;
    double time = 0;
    std::string name;
  };
  std::map<std::string, Exact> by_kernel;
  double total = 0;
  for (std::size_t i = 0; i < exact.launches.size(); ++i) {
    const auto& l = exact.launches[i];
    const double t = l.counter("gpu__time_duration.sum").value_or(0);
    auto& e = by_kernel[key(l.mangled_name, l.grid, l.block)];
    e.time_by_verdict[verdict_text(exact_analysis.kernels[i])] += t;
    e.time += t;
    e.name = l.name;
    total += t;
  }
  double agree = 0, judged = 0, big_without = 0, covered = 0;
  int big = 0, big_with = 0;
  std::printf("samples %llu, kernels aggregated %zu, exact launches %zu (%.3f s of kernel time)\n",
              static_cast<unsigned long long>(sampled.sampling->samples), sampled.launches.size(),
              exact.launches.size(), total * 1e-9);
  std::printf("%-60s %7s %9s %7s %6s %-11s %-11s %s\n", "kernel (mangled, truncated)", "share", "samples", "purity",
              "overl", "sampled", "exact", "utilisations (sampled: issue/l2/dram)");
  for (std::size_t i = 0; i < sampled.launches.size(); ++i) {
    const auto& l = sampled.launches[i];
    const auto& a = sampled_analysis.kernels[i];
    auto it = by_kernel.find(key(l.mangled_name, l.grid, l.block));
    if (it == by_kernel.end()) continue;
    const Exact& e = it->second;
    covered += e.time;
    std::string majority = "none";
    double best = -1;
    for (const auto& [v, t] : e.time_by_verdict)
      if (t > best) best = t, majority = v;
    const double share = e.time / total;
    const bool has = a.verdict.has_value();
    if (has) {
      judged += e.time;
      auto same = e.time_by_verdict.find(verdict_text(a));
      if (same != e.time_by_verdict.end()) agree += same->second;
    }
    if (share >= 0.01) {
      ++big;
      if (has)
        ++big_with;
      else
        big_without += share;
    }
    if (share >= 0.005 || (has && verdict_text(a) != majority))
      std::printf("%-60.60s %6.2f%% %9llu %6.0f%% %5.0f%% %-11s %-11s %.2f/%.2f/%.2f  %s\n", l.mangled_name.c_str(),
                  share * 100, static_cast<unsigned long long>(l.sampled->samples), l.sampled->purity * 100,
                  l.sampled->overlap_share * 100, verdict_text(a).c_str(), majority.c_str(),
                  a.utilization.issue.value_or(-1), a.utilization.l2.value_or(-1), a.utilization.dram.value_or(-1),
                  has ? "" : a.verdict_reason.substr(0, 80).c_str());
  }
  std::printf("kernel time matched to sampled aggregates: %.1f%%\n", covered / total * 100);
  std::printf("kernel time with a sampled verdict: %.1f%%; of it, the exact mode's launches agree: %.1f%%\n",
              judged / total * 100, judged > 0 ? agree / judged * 100 : 0.0);
  std::printf("kernels with >= 1%% of the time: %d, with a sampled verdict: %d (without: %.1f%% of the time)\n", big,
              big_with, big_without * 100);
  if (argc > 5) write_run_file(sampled, argv[5]);
  return 0;
}
