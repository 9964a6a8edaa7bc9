# Runs ccforge ARGS with standard output on /dev/full: the write error must be reported on stderr in one
# line and the exit status must not be 0 (it was 0, the output silently lost).
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${CCFORGE} ${args} OUTPUT_FILE /dev/full ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 60)
if(rc EQUAL 0)
  message(FATAL_ERROR "exit 0 with stdout on /dev/full; stderr: ${err}")
endif()
if(NOT err MATCHES "^ccforge: cannot write to standard output: No space left on device \\(free space or send the output elsewhere\\)\n$")
  message(FATAL_ERROR "exit ${rc}, unexpected stderr: '${err}'")
endif()
