// The processes a `ccforge tune` runs as: the ranks of an MPI job (mpirun, srun) when the build has
// MPI (mpi_job.cpp), else this process alone (solo_job.cpp). Only tune shares work, so other verbs
// never start MPI (its start costs ~0.4 s).
#pragma once

#include <memory>
#include <string>

#include "ccforge/search/work_share.hpp"

namespace ccforge::cli {

class JobSession {
 public:
  virtual ~JobSession() = default;  // leaves the job (MPI_Finalize)
  virtual const search::WorkShare& share() const = 0;
  // Prints `line` on stderr once for the job and ends every process of it with `code` (MPI_Abort), so
  // that no rank waits forever for a failed one.
  [[noreturn]] virtual void fail(const std::string& line, int code) const = 0;
};

// Joins the MPI job a launcher started this process in; nullptr when no launcher started it or the
// build has no MPI (the tune then runs in this process alone).
std::unique_ptr<JobSession> join_job(int& argc, char**& argv);

}  // namespace ccforge::cli
