// Pass 2: complete and check a RawTopology. Azure's partial PCI-only files (GPUs and NICs as bare <pci>)
// are filled in from a MachineDescription the way NCCL fills them at run time from NVML and the IB stack;
// then every GPU gets its model, and peer links, ranks and link counts are checked.
#pragma once

#include "raw_topology.hpp"

#include <optional>

namespace ccforge::topo {

// `machine` is the command line's description, else the file's own; needed only for partial files.
void complete(RawTopology& raw, const std::optional<MachineDescription>& machine);

// Every PCI device of `raw`, depth first in file order (GPUs, NICs and bridges alike).
template <typename Fn>
void for_each_pci(RawPci& pci, Fn&& fn) {
  fn(pci);
  for (RawPci& child : pci.children) for_each_pci(child, fn);
}
template <typename Fn>
void for_each_pci(RawTopology& raw, Fn&& fn) {
  for (RawCpu& cpu : raw.cpus) {
    for (RawPci& pci : cpu.pcis) for_each_pci(pci, fn);
  }
}

}  // namespace ccforge::topo
