// Fuzzes the topology loader: NCCL topology XML, ccforge <node> and, in the cluster target (seeded with
// cluster files), ccforge <cluster> files. The bundled node topologies are copied beside the input so
// that a cluster's node="ndv5.xml" resolves. Any input must load or fail with one DiagError line.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "ccforge/topology/topology.hpp"
#include "fuzz_input.hpp"
#include "source_dir.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(CCFORGE_SOURCE_DIR) / "data/topologies"))
    std::filesystem::copy_file(e.path(), ccforge::fuzz::work_dir() / e.path().filename(),
                               std::filesystem::copy_options::overwrite_existing);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = ccforge::fuzz::write_input(data, size, "fuzz-input.xml");
  try {
    const ccforge::topo::Topology topology = ccforge::topo::load_topology(path);
    (void)topology.route(0, topology.num_gpus() - 1);
  } catch (const ccforge::DiagError& e) {
    ccforge::fuzz::check_one_line(e);
  }
  return 0;
}
