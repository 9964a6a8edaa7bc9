# Simulator speed targets (one core): >= 5 M events/s; 8-GPU NDv5 ring allreduce at 1 GB < 1 ms;
# NCCL-baseline allreduce at 1 GB on ndv5-x128 (1024 GPUs) < 2 s.
ccforge_add_bench(sim_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/sim_bench.cpp LIBS ccforge::sim)
