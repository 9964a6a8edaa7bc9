# Executor speed: the host backend is CI's correctness oracle, so what matters is that a validate sweep
# over the real MSCCL files stays short. Target (README): 8-rank ring allreduce of 1 MiB half on the
# host in < 20 ms per call on 2 cores; 64 KiB in < 5 ms.
ccforge_add_bench(executor_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/executor_bench.cpp LIBS ccforge::executor)
target_include_directories(executor_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests/executor)

# Single-GPU executor suite (bench/gpu/executor_gpu_bench.cpp): a plain program, not a Google Benchmark,
# run by scripts/gpu-executor-check.sh on a GPU machine.
if(CCFORGE_HAVE_CUDA)
  add_library(executor_gpu_bench_kernels OBJECT ${CMAKE_CURRENT_LIST_DIR}/gpu/reference_kernels.cu)
  set_target_properties(executor_gpu_bench_kernels PROPERTIES CUDA_ARCHITECTURES "80;90" CUDA_STANDARD 17 CUDA_RUNTIME_LIBRARY Shared)
  add_executable(executor_gpu_bench ${CMAKE_CURRENT_LIST_DIR}/gpu/executor_gpu_bench.cpp $<TARGET_OBJECTS:executor_gpu_bench_kernels>)
  target_link_libraries(executor_gpu_bench PRIVATE ccforge::executor ccforge::validate CUDA::cudart fmt::fmt)
  set_target_properties(executor_gpu_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench CUDA_RUNTIME_LIBRARY Shared)
endif()
