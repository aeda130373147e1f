#pragma once
// limiter run's options as one table (lib/src/collect/run_flags.cpp): for each option its flag,
// its LIMITER_* variable, its value's text form and default, its help, the CollectorOptions field
// it sets and the modes that allow it. Everything about an option comes from its row: the
// command line (cli/run_flag_options.cpp), --help, validate_collector_options, and the
// environment that carries the options into an injected process (collector_options.hpp).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "limiter/collector_options.hpp"

namespace limiter {

// The modes of a run, as bits: the default phase list, or one single-answer mode (its flag).
using ModeSet = unsigned;
inline constexpr ModeSet kDefaultRun = 1, kEveryLaunch = 2, kTraceMode = 4, kStallsMode = 8, kSamplingMode = 16;
inline constexpr ModeSet kAllModes = kDefaultRun | kEveryLaunch | kTraceMode | kStallsMode | kSamplingMode;
ModeSet mode_of(const CollectorOptions& options);  // the one mode OPTIONS choose (validated)

enum class FlagKind {
  flag,      // a flag of limiter run, and its variable
  knob,      // a variable alone: a measurement knob, read from limiter run's own environment
  internal,  // written by limiter run itself for the injected process (the command line, ...)
};
enum class ValueType { on_off, number, seconds, text, choice, list };

// A field's value as text, both ways. SET returns "" or what is wrong ("must be at least 1"); the
// text is a flag's argument and a variable's value alike ("" for an empty list or an unset count).
struct FlagCodec {
  std::function<std::string(const CollectorOptions&)> get;
  std::function<std::string(CollectorOptions&, const std::string&)> set;
};

struct RunFlag {
  std::string name;     // the flag without "--"; its variable is LIMITER_ + NAME in capitals, '-' as '_'
  char short_name = 0;  // -k, or 0
  FlagKind kind = FlagKind::flag;
  ValueType type = ValueType::text;
  std::string default_text;  // limiter run's default ("" none); differing from it puts the option in effect
  std::string help;
  std::string field;          // the CollectorOptions field it sets (its documentation is there)
  ModeSet modes = kAllModes;  // the modes that allow it
  ModeSet chooses = 0;        // a mode's own flag (--trace): the mode it chooses
  std::string why;            // why it goes only with its modes, for the refusal (none: the mode's own reason)
  std::string alias;          // an older variable kept working where the name does not follow the rule
  std::optional<FlagCodec> alias_codec;  // the older variable's value when it differs (another unit)
  std::string alias_note;                // how, then, for --help
  std::string hint;                      // added to a bad value's message
  FlagCodec codec;
};

// Every row, in --help's order: the flags, then the knobs, then the internal variables.
const std::vector<RunFlag>& run_flags();
const RunFlag& run_flag(const std::string& name);  // throws std::logic_error for a name not in the table

std::string environment_name(const RunFlag& flag);                     // LIMITER_PER_KERNEL_COUNT
std::string display_name(const RunFlag& flag);                         // --per-kernel-count, or the variable for a knob
bool in_effect(const RunFlag& flag, const CollectorOptions& options);  // its value is not its default

// Sets FLAG's field from TEXT; an InputError "WHO must be ..., not 'TEXT'" (one line) when malformed.
void set_run_flag(const RunFlag& flag, CollectorOptions& options, const std::string& text, const std::string& who,
                  const FlagCodec* codec = nullptr);
// Sets FLAG's field from its variable, or else its older name's; false when neither is set (an
// empty value is none). The variable, once there, wins over the older name, even when empty.
bool set_from_environment(const RunFlag& flag, CollectorOptions& options, const EnvironmentLookup& lookup);
// Every flag and knob: GIVEN's text (flag name without "--" -> its text) for a flag there, else
// its variable in the environment, else its default. Internal rows are left as they are.
CollectorOptions options_from_flags(const std::map<std::string, std::string>& given,
                                    const EnvironmentLookup& lookup = {});

}  // namespace limiter
