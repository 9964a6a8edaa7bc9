// One reader per input kind of `topo import`; import.cpp picks by the input's text.
#pragma once

#include "node_layout.hpp"
#include "text_input.hpp"

namespace ccforge::topo {

// `nvidia-smi topo -m` (GPUs, NICs, link kinds, NUMA affinity), completed by `nvidia-smi -q` or
// --gpu-model and by `ibv_devinfo -v`/`ibstat` or --nic-gbps.
ImportedLayout read_nvidia_smi_matrix(const TextInput& in, const ImportInputs& inputs, std::vector<ImportNote>& notes);

// `rocm-smi --showtopo` (link type and NUMA node of each GPU), with --gpu-model and, for NICs, --nic-gbps.
ImportedLayout read_rocm_smi_topo(const TextInput& in, const ImportInputs& inputs, std::vector<ImportNote>& notes);

// NCCL's own dump (NCCL_TOPO_DUMP_FILE) or a partial NCCL file completed by --gpu-model/--nic-gbps.
ImportedNode import_nccl_dump(const ImportInputs& inputs, const std::string& name);

// The model --gpu-model names; a DiagError naming the flag when unknown.
const GpuModel& flag_model(const ImportInputs& inputs);

}  // namespace ccforge::topo
