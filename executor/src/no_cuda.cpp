// Built when CMake found no nvcc (or sanitizers are on): the cuda backend reports why it is missing.
#include "ccforge/common/diag.hpp"
#include "ccforge/executor/executor.hpp"

namespace ccforge::executor {

std::optional<std::string> cuda_unavailable_reason() {
  return "this build has no CUDA backend (CMake found no nvcc, or CCFORGE_SANITIZE is ON)";
}

std::unique_ptr<Backend> make_cuda_backend(ExecOptions) {
  throw DiagError(Diag{{"--device cuda", 0}, *cuda_unavailable_reason(), "rebuild on a machine with the CUDA toolkit"});
}

}  // namespace ccforge::executor
