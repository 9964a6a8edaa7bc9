// Fuzzes `topo import`'s readers: the input as NCCL dump, nvidia-smi topo -m or rocm-smi --showtopo (with
// and without a GPU model and NIC rate), and as the nvidia-smi -q and ibv_devinfo/ibstat side inputs of a
// real matrix. Any input must import or fail with one DiagError line, and what imports must load.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/topology/import.hpp"
#include "fuzz_input.hpp"
#include "source_dir.hpp"

namespace {

void import_and_load(const ccforge::topo::ImportInputs& in) {
  try {
    const ccforge::topo::ImportedNode node = ccforge::topo::import_node(in);
    const auto path = ccforge::fuzz::work_dir() / "imported.xml";
    ccforge::write_file_atomically(path, node.node_xml);
    (void)ccforge::topo::load_topology(path);
  } catch (const ccforge::DiagError& e) {
    ccforge::fuzz::check_one_line(e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = ccforge::fuzz::write_input(data, size, "fuzz-input.txt");
  const std::filesystem::path matrix = std::filesystem::path(CCFORGE_SOURCE_DIR) / "tests/data/import/hgx-h20-topo-m.txt";
  ccforge::topo::ImportInputs in;
  in.input = path;
  import_and_load(in);
  for (const char* model : {"H100 SXM", "MI300X"}) {
    in.gpu_model = model;
    in.nic_gbps = 400;
    import_and_load(in);
  }
  ccforge::topo::ImportInputs side;
  side.input = matrix;
  side.gpu_query = path;
  side.nic_query = path;
  import_and_load(side);
  return 0;
}
