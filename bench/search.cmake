# Search speed targets (issue 16, README): the full NDv5 tune (8 collectives, 1 KB-1 GB x2) in < 2 s on 2
# cores, ndv5-x16 in < 60 s, ndv5-x128 in < 10 min. Here, per tune phase: candidates built+proven per
# second (NDv5, ndv5-x16, proving cost by rank count), ndv5-x16 time floors, simulations of a tune.
if(TARGET ccforge::search AND TARGET ccforge::sim)
  ccforge_add_bench(search_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/search_bench.cpp LIBS ccforge::search ccforge::plot)
endif()
