# ir: checker speed on a builder-made 64-rank algorithm with ~10^5 steps (target: < 1 s per check).
ccforge_add_bench(ir_bench
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/ir_bench.cpp ${PROJECT_SOURCE_DIR}/tests/ir/generators.cpp
  LIBS ccforge::ir)
target_include_directories(ir_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests/ir)
