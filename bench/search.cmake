# Search speed targets: the full NDv5 tune (8 collectives, 1 KB-1 GB x2) in < 10 s on 2 cores, ndv5-x16
# in < 2 min (README). Here: candidates built+checked per second, and simulations per second of a tune.
if(TARGET ccforge::search AND TARGET ccforge::sim)
  ccforge_add_bench(search_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/search_bench.cpp LIBS ccforge::search)
endif()
