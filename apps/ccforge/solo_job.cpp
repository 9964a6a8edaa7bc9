// A build without MPI: every tune runs in this process alone.
#include "job.hpp"

namespace ccforge::cli {

std::unique_ptr<JobSession> join_job(int&, char**&) { return nullptr; }

}  // namespace ccforge::cli
