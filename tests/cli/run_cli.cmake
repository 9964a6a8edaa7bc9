# Runs ${CCFORGE} ${ARGS}; fails unless the exit code is ${EXPECT_EXIT} and the output matches ${EXPECT}.
# With ONE_LINE_ERROR, stdout must be empty and stderr exactly one line.
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
if(ONE_LINE_ERROR)
  string(REGEX MATCHALL "\n" newlines "${err}")
  list(LENGTH newlines lines)
  if(NOT out STREQUAL "" OR NOT lines EQUAL 1 OR NOT err MATCHES "\n$")
    message(FATAL_ERROR "expected nothing on stdout and one line on stderr")
  endif()
endif()
