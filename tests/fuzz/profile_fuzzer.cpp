// Fuzzes the profile reader and its application to the link model: any input must apply or fail with
// one DiagError line.
#include <cstddef>
#include <cstdint>

#include "ccforge/topology/topology.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = ccforge::fuzz::write_input(data, size, "fuzz-profile.xml");
  try {
    ccforge::ParamTable params = ccforge::topo::default_link_params();
    ccforge::topo::apply_profile(params, ccforge::topo::read_profile(path), "link.");
  } catch (const ccforge::DiagError& e) {
    ccforge::fuzz::check_one_line(e);
  }
  return 0;
}
