// NCCL's own collectives on the same buffers, one rank per GPU, for `validate`'s nccl_us column.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "ccforge/executor/executor.hpp"

namespace ccforge::executor::cuda {

class NcclBaseline {
 public:
  explicit NcclBaseline(int devices);
  ~NcclBaseline();
  NcclBaseline(const NcclBaseline&) = delete;
  NcclBaseline& operator=(const NcclBaseline&) = delete;

  // nullopt for collectives NCCL has no call for (gather, scatter, ...) or builds without NCCL.
  std::optional<Timing> run(const CallSpec& call, std::vector<RankBuffers>& buffers, int iterations);

 private:
  struct Comms;
  std::unique_ptr<Comms> comms_;
};

}  // namespace ccforge::executor::cuda
