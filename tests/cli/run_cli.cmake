# Runs ${CCFORGE} ${ARGS}; fails unless the exit code is ${EXPECT_EXIT} and the output matches ${EXPECT}.
execute_process(COMMAND ${CCFORGE} ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
set(all "${out}${err}")
message("${all}")
if(NOT rc STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit code ${rc}, expected ${EXPECT_EXIT}")
endif()
if(DEFINED EXPECT AND NOT EXPECT STREQUAL "" AND NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match: ${EXPECT}")
endif()
