// How a tune shares its work among the processes of one job (an MPI job's ranks: apps/ccforge's
// mpi_job.cpp implements this over MPI). The search part sees only this interface, so it builds and
// runs without MPI; a tune without one does all the work in this process.
#pragma once

#include <string>
#include <vector>

namespace ccforge::search {

class WorkShare {
 public:
  virtual ~WorkShare() = default;
  virtual int rank() const = 0;  // this process, 0 .. size() - 1; rank 0 writes the outputs
  virtual int size() const = 0;
  // Collective: every process passes its part and receives every process's part, in rank order (the
  // same vector on every process). Throws on failure.
  virtual std::vector<std::string> all_gather(const std::string& mine) const = 0;
};

}  // namespace ccforge::search
