# Third-party packages, all from Debian (scripts/install-deps.sh installs them).
find_package(Boost 1.74 REQUIRED COMPONENTS graph)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(TBB REQUIRED)
find_package(pugixml REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
find_package(fmt REQUIRED)
# PLplot draws the charts (plot/); Debian ships no CMake package for its C++ binding that loads without
# every optional driver, so it is found through pkg-config.
find_package(PkgConfig REQUIRED)
pkg_check_modules(PLplot REQUIRED IMPORTED_TARGET plplot-c++ plplot)
if(CCFORGE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(CCFORGE_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()

# CUDA and NCCL are optional: the cuda executor backend is built only where nvcc exists.
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
check_language(CUDA)
set(CCFORGE_HAVE_CUDA OFF)
if(CMAKE_CUDA_COMPILER AND NOT CCFORGE_SANITIZE)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(CCFORGE_HAVE_CUDA ON)
  find_library(CCFORGE_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64)
  find_path(CCFORGE_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
endif()
message(STATUS "ccforge: CUDA backend ${CCFORGE_HAVE_CUDA}")

# MPI is optional: with it `mpirun -n N ccforge tune` (or srun) shares a tune among N processes
# (apps/ccforge/mpi_job.cpp); without it every command is the same single-process one. Not in sanitized
# builds: Open MPI's components, loaded and unloaded at run time, leave allocations LeakSanitizer cannot
# attribute to a library (so no suppression can name them).
option(CCFORGE_MPI "Share tunes among MPI processes when MPI is found" ON)
set(CCFORGE_HAVE_MPI OFF)
if(CCFORGE_MPI AND NOT CCFORGE_SANITIZE)
  find_package(MPI COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(CCFORGE_HAVE_MPI ON)
  endif()
endif()
message(STATUS "ccforge: MPI ${CCFORGE_HAVE_MPI}")
