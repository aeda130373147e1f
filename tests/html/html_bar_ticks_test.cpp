// The ticks of the HTML bar charts (reports/html_charts.cpp): labels that never touch, at a round
// step, whatever the range: a time change of +-200 % once wrote "+150%" over "+200%".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../../reports/html_parts.hpp"  // internal to limiter::reports

namespace limiter::html {
namespace {

struct Tick {
  double x = 0;
  std::string label;
};

std::vector<Tick> ticks_of(double axis_min, double axis_max) {
  std::ostringstream out;
  write_bar_chart(out, "ticks", {{"a kernel", axis_max, "#000", "v", "", "bar"}}, axis_min, axis_max, {}, "ticks");
  const std::string svg = out.str();
  static const std::regex tick(R"re(<text class="tick" x="([-0-9.]+)"[^>]*>([^<]*)</text>)re");
  std::vector<Tick> ticks;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it)
    ticks.push_back({std::stod((*it)[1]), (*it)[2]});
  return ticks;
}

TEST(HtmlBarTicks, StandApartAtARoundStepOnEveryRange) {
  const std::vector<std::pair<double, double>> ranges = {{0, 1},      {0, 0.3},  {0, 0.1},   {-0.1, 0.1}, {-0.3, 0.3},
                                                         {-0.5, 0.5}, {-1, 1},   {-1, 1.4},  {-1, 2},     {-0.7, 0.7},
                                                         {-1, 1.7},   {0, 0.15}, {-0.2, 0.2}};
  for (const auto& [low, high] : ranges) {
    const auto ticks = ticks_of(low, high);
    SCOPED_TRACE(std::to_string(low) + ".." + std::to_string(high));
    ASSERT_GE(ticks.size(), 2u);
    std::size_t below = 0, above = 0;
    for (std::size_t i = 0; i < ticks.size(); ++i) {
      // "+100%", "-50%", "0%": whole percents, signed on a diverging axis.
      EXPECT_TRUE(std::regex_match(ticks[i].label, std::regex(low < 0 ? R"([-+]?[0-9]+%)" : R"([0-9]+%)")))
          << ticks[i].label;
      below += ticks[i].label.front() == '-';
      above += ticks[i].label != "0%" && ticks[i].label.front() != '-';
      if (i == 0) continue;
      const double room = ticks[i].x - ticks[i - 1].x;  // centred labels: half of each on either side
      const double needed = (text_width(ticks[i].label, 11) + text_width(ticks[i - 1].label, 11)) / 2 + 4;
      EXPECT_GE(room, needed) << ticks[i - 1].label << " and " << ticks[i].label << " " << room << " px apart";
    }
    EXPECT_LE(below, 5u);
    EXPECT_LE(above, 5u);
    EXPECT_EQ(std::count_if(ticks.begin(), ticks.end(), [](const Tick& t) { return t.label == "0%"; }), 1);
  }
}

// One scale on both sides: a -100 % bar is half as long as a +200 % one.
TEST(HtmlBarTicks, BothSidesShareTheScale) {
  const auto ticks = ticks_of(-1, 2);
  std::map<std::string, double> x;
  for (const auto& tick : ticks) x[tick.label] = tick.x;
  ASSERT_TRUE(x.count("-100%") && x.count("0%") && x.count("+200%"));
  EXPECT_NEAR((x["+200%"] - x["0%"]) / (x["0%"] - x["-100%"]), 2.0, 0.01);
}

}  // namespace
}  // namespace limiter::html
