# Topology speed targets: ndv5-x128 (1024 GPUs) loads and summarises for `topo show` in well under 1 s.
ccforge_add_bench(topology_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/topology_bench.cpp LIBS ccforge::topology)
