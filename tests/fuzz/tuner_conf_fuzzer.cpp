// Fuzzes the nccl-tuner.conf parser the NCCL plugin runs: any input either parses or names a line with
// one problem, and whatever parses re-formats to a table that parses back to the same rules.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ccforge/tuner/tuner_conf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace conf = ccforge::tuner_conf;
  const conf::ParseResult r = conf::parse_table(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!r.ok()) {
    if (r.error_line < 1 || r.error.empty() || !r.rules.empty()) std::abort();
    return 0;
  }
  const std::string once = conf::format_table(r.rules);
  const conf::ParseResult again = conf::parse_table(once);
  if (!again.ok() || conf::format_table(again.rules) != once) std::abort();
  return 0;
}
