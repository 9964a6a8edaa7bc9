# `sim -r 1` on a broadcast file the rooted tune (${ROOTED}) exported, whatever the winner's file is
# called: refused in one line, since an MSCCL file has no root. Then as run_cli.cmake.
file(GLOB files "${ROOTED}/algorithms-rooted/broadcast_*.xml")
if(NOT files)
  message(FATAL_ERROR "no broadcast_*.xml in ${ROOTED}/algorithms-rooted")
endif()
list(GET files 0 file)
string(REGEX REPLACE "([][+.*()^$?|\\\\{}])" "\\\\\\1" file_regex "${file}")
set(ARGS sim --topo data/topologies/ndv5.xml --coll broadcast -r 1 --algo ${file})
set(EXPECT_EXIT 2)
set(ONE_LINE_ERROR TRUE)
set(EXPECT "^-r: ${file_regex} is an MSCCL file, which has no root: runtimes run it as written, from root 0 \\(drop -r")
include(${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake)
