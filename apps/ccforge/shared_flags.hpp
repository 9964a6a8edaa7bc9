// Flags several verbs take, registered here so that each reads the same on every verb: the same name,
// short flag and description. What a flag means on one verb only goes in a note after the description,
// " [VERB: NOTE]" (verb_note); tests/cli/flag_vocabulary.cmake compares the rest across every --help.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ccforge/common/data_type.hpp"
#include "ccforge/ir/runtime.hpp"

namespace ccforge::cli {

// " [VERB: NOTE]", VERB the command path below ccforge ("sim", "ir check"); empty without a note.
inline std::string verb_note(const CLI::App& cmd, const std::string& note) {
  if (note.empty()) return "";
  std::string verb = cmd.get_name();
  for (const CLI::App* parent = cmd.get_parent(); parent != nullptr && parent->get_parent() != nullptr;
       parent = parent->get_parent())
    verb = parent->get_name() + " " + verb;
  return " [" + verb + ": " + note + "]";
}

// What --topo and topo's FILE read.
inline const std::string kTopologyFileHelp = "NCCL topology XML, ccforge <node> file or ccforge <cluster> file";

// --topo; `env_default`: an absent --topo reads $NCCL_TOPO_FILE, as NCCL does (topology_file()).
inline CLI::Option* add_topo_flag(CLI::App& cmd, std::string& file, bool env_default, const std::string& note = "") {
  CLI::Option* opt = cmd.add_option("--topo", file, "topology: " + kTopologyFileHelp + verb_note(cmd, note));
  if (env_default) opt->default_str("$NCCL_TOPO_FILE");
  return opt;
}

inline CLI::Option* add_datatype_flag(CLI::App& cmd, std::string& dtype, const std::string& note = "") {
  return cmd.add_option("-d,--datatype", dtype, "element type: " + data_type_names() + verb_note(cmd, note))->capture_default_str();
}

inline CLI::Option* add_profile_flag(CLI::App& cmd, std::string& profile, const std::string& note = "") {
  return cmd.add_option("--profile", profile,
                        "profile (ccforge calibrate writes one) overriding link.* and sim.* parameters" + verb_note(cmd, note));
}

// --out: where the verb's results go; the note says what they are.
inline CLI::Option* add_out_flag(CLI::App& cmd, std::string& out, const std::string& note) {
  return cmd.add_option("--out", out, "write the results here" + verb_note(cmd, note));
}

// --plot: a chart; the note says what it draws.
inline CLI::Option* add_plot_flag(CLI::App& cmd, std::string& plot, const std::string& note) {
  return cmd.add_option("--plot", plot, "draw a chart here (.svg or .png)" + verb_note(cmd, note));
}

inline CLI::Option* add_algos_flag(CLI::App& cmd, std::string& dir, const std::string& note = "") {
  return cmd.add_option("--algos", dir, "directory of MSCCL XML algorithms" + verb_note(cmd, note))->check(CLI::ExistingDirectory);
}

// --format: the first of `formats` is the default; --help lists them, any other value is refused.
inline CLI::Option* add_format_flag(CLI::App& cmd, std::string& format, const std::vector<std::string>& formats) {
  format = formats.front();
  return cmd.add_option("--format", format, "output format")->capture_default_str()->check(CLI::IsMember(formats));
}

inline CLI::Option* add_runtime_flag(CLI::App& cmd, std::string& runtime, const std::string& note) {
  return cmd.add_option("--runtime", runtime, "runtime the MSCCL files are for: " + ir::runtime_names() + verb_note(cmd, note));
}

// A bound on --min-gain: above it NCCL is never replaced (a gain of 100 is 101 x faster).
inline constexpr double kMaxMinGain = 100;

// --min-gain: how much faster the fastest must be before a choice counts as beaten.
inline CLI::Option* add_min_gain_flag(CLI::App& cmd, double& gain, const std::string& note) {
  return cmd.add_option("--min-gain", gain, "a choice is beaten when another is this much faster (0.03: 3 %)" + verb_note(cmd, note))
      ->capture_default_str();
}

}  // namespace ccforge::cli
