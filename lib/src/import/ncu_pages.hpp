#pragma once
// The two layouts of an Nsight Compute CSV, read into launches (ncu_csv.cpp):
//  - details page (`ncu --csv`): one row per metric, columns "Metric Name", "Metric Unit",
//    "Metric Value"; rule rows (empty metric name) and trailing rule columns are ignored.
//  - raw page (`ncu --csv --page raw`): one row per launch, one column per raw metric, and a
//    row of units under the header.
// Columns are found by name, since ncu versions add columns.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import/csv_table.hpp"
#include "import/ncu_launch.hpp"

namespace limiter::detail::ncu {

struct Header {
  std::vector<std::string> titles;
  std::size_t line = 0;

  std::optional<std::size_t> find(std::string_view title) const {
    for (std::size_t i = 0; i < titles.size(); ++i) {
      if (titles[i] == title) return i;
    }
    return std::nullopt;
  }
};

struct IdentityColumns {
  std::optional<std::size_t> id, process_id, kernel_name, mangled_name, context, stream, block_size, grid_size, device,
      cc;

  explicit IdentityColumns(const Header& h)
      : id(h.find("ID")),
        process_id(h.find("Process ID")),
        kernel_name(h.find("Kernel Name")),
        mangled_name(h.find("Mangled Name") ? h.find("Mangled Name") : h.find("Function Name")),
        context(h.find("Context")),
        stream(h.find("Stream")),
        block_size(h.find("Block Size")),
        grid_size(h.find("Grid Size")),
        device(h.find("Device")),
        cc(h.find("CC")) {}

  std::size_t last_index() const {
    std::size_t last = 0;
    for (const auto& column :
         {id, process_id, kernel_name, mangled_name, context, stream, block_size, grid_size, device, cc}) {
      if (column) last = std::max(last, *column);
    }
    return last;
  }
};

std::vector<PendingLaunch> read_details(const std::vector<CsvRow>& rows, const Header& header,
                                        const std::string& origin);
std::vector<PendingLaunch> read_raw(const std::vector<CsvRow>& rows, const Header& header, const std::string& origin);

}  // namespace limiter::detail::ncu
