// report_record RECORD: the text report `limiter report RECORD` prints, from the installed library.
#include <exception>
#include <iostream>

#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: report_record RECORD.json[.gz]\n";
    return 2;
  }
  try {
    const limiter::RunSummary summary = limiter::summarize_run_file(argv[1], {}, {});
    limiter::write_text_report(summary, std::cout);
  } catch (const std::exception& e) {
    std::cerr << "report_record: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
