// limiter run's options from its flags' texts and its environment (run_flags.hpp): the one rule
// that the command line (cli/run_flag_options.cpp) and limiter.profile() (python/) both follow.
#include <map>
#include <string>

#include "limiter/run_flags.hpp"

namespace limiter {

CollectorOptions options_from_flags(const std::map<std::string, std::string>& given, const EnvironmentLookup& lookup) {
  CollectorOptions options;
  for (const RunFlag& flag : run_flags()) {
    if (flag.kind == FlagKind::internal) continue;  // limiter run writes those for the injected process
    const auto text = flag.kind == FlagKind::flag ? given.find(flag.name) : given.end();
    if (text != given.end())
      set_run_flag(flag, options, text->second, display_name(flag));
    else if (!set_from_environment(flag, options, lookup))
      set_run_flag(flag, options, flag.default_text, display_name(flag));
  }
  return options;
}

}  // namespace limiter
