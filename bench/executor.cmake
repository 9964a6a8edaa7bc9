# Executor speed: the host backend is CI's correctness oracle, so what matters is that a validate sweep
# over the real MSCCL files stays short. Target (README): 8-rank ring allreduce of 1 MiB half on the
# host in < 20 ms per call on 2 cores; 64 KiB in < 5 ms.
ccforge_add_bench(executor_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/executor_bench.cpp LIBS ccforge::executor)
target_include_directories(executor_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests/executor)
