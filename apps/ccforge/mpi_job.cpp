// An MPI job's ranks sharing a tune (Open MPI from Debian; any MPI-3 library works). The job's shape
// comes from MPI itself (MPI_Comm_size), so mpirun, mpiexec and srun (through PMI/PMIx) all work.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <fmt/core.h>

#include "job.hpp"

namespace ccforge::cli {
namespace {

// How long a failing rank other than 0 waits before it prints and ends the job itself: an error every
// rank meets (bad input, read by every rank alike) ends rank 0 within this time, and rank 0's abort
// ends this rank before it prints, so the line appears once. An error of this rank alone costs the
// wait once.
constexpr auto kFailureGrace = std::chrono::seconds(3);

// Waits for a non-blocking collective, testing it with growing pauses (up to kLongestPause late) instead
// of MPI's blocking wait: Open MPI's blocking collectives poll in a busy loop, so a rank whose share was
// done spun a core at 100 % while another simulated (an ndv5-x2048 tune: rank 1 spun ~7 minutes while
// rank 0 ran the 1 GB allreduce), taking it from the working ranks and from anything else on the machine.
constexpr auto kFirstPause = std::chrono::microseconds(50);
constexpr auto kLongestPause = std::chrono::milliseconds(20);

void wait_without_spinning(MPI_Request& request) {
  std::chrono::microseconds pause = kFirstPause;
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::microseconds>(pause * 2, kLongestPause);
  }
}

class MpiJob final : public JobSession, public search::WorkShare {
 public:
  MpiJob(int& argc, char**& argv) {
    // Started by a launcher that is not MPI's (a plain `srun` without --mpi), Open MPI forks a helper
    // daemon for dynamic process management (MPI_Comm_spawn), which a tune never uses; "isolated" skips
    // it (0.8 -> 0.4 s measured here). Respects a value the user set.
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    int provided = 0;
    // Serialized: oneTBB workers never call MPI; the thread that runs the tune does, one call at a time.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (provided < MPI_THREAD_SERIALIZED)
      fail("ccforge: this MPI library offers no MPI_THREAD_SERIALIZED (build Open MPI with thread support)", 2);
  }
  ~MpiJob() override { MPI_Finalize(); }

  const search::WorkShare& share() const override { return *this; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> all_gather(const std::string& mine) const override {
    if (mine.size() > INT_MAX) throw std::length_error("tune: a rank's results exceed 2 GiB in one exchange");
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(counts.size());
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD, &request);
    wait_without_spinning(request);
    long long total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += counts[r];
      if (total > INT_MAX) throw std::length_error("tune: the ranks' results exceed 2 GiB in one exchange");
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Iallgatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD, &request);
    wait_without_spinning(request);
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < counts.size(); ++r)
      parts.push_back(all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(counts[r])));
    return parts;
  }

  [[noreturn]] void fail(const std::string& line, int code) const override {
    if (rank_ != 0) std::this_thread::sleep_for(kFailureGrace);
    fmt::print(stderr, "{}{}\n", rank_ == 0 ? "" : fmt::format("rank {} of {}: ", rank_, size_), line);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::abort();  // MPI_Abort does not return
  }

 private:
  int rank_ = 0, size_ = 1;
};

// Whether a launcher started this process: mpirun/mpiexec (Open MPI sets OMPI_COMM_WORLD_SIZE), a PMIx
// or PMI-1/2 launcher (srun --mpi=pmix|pmi2, MPICH's hydra), or Slurm's srun. Only the presence of a
// launcher is read here; the job's size is MPI_Comm_size's. Run alone, a tune never starts MPI: its
// singleton start costs ~0.4 s (measured here: NDv5 allreduce+allgather tune 2.2-2.7 s alone, 2.8-3.4 s
// with MPI started) and a job of one gains nothing.
bool started_by_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "SLURM_PROCID"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

}  // namespace

std::unique_ptr<JobSession> join_job(int& argc, char**& argv) {
  if (!started_by_launcher()) return nullptr;
  return std::make_unique<MpiJob>(argc, argv);
}

}  // namespace ccforge::cli
