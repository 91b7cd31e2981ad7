# Runs PROGRAM and compares its standard output with EXPECTED byte for byte
# (ctest entry of examples/c/page.c). Usage:
#   cmake -DPROGRAM=... -DEXPECTED=... -DACTUAL=... [-DEMULATOR=...] [-DIGNORE_EOL=ON] -P check_output.cmake
# EMULATOR runs PROGRAM when it was cross-compiled (a ;-list, e.g. qemu-aarch64).
# IGNORE_EOL compares lines, not bytes, for Windows, whose C library writes
# "\n" to a text-mode stdout as "\r\n".
foreach(var PROGRAM EXPECTED ACTUAL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_output.cmake: -D${var}=... is required")
  endif()
endforeach()

execute_process(COMMAND ${EMULATOR} ${PROGRAM} OUTPUT_FILE ${ACTUAL} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} failed (${status})")
endif()

set(compare_options)
if(IGNORE_EOL)
  set(compare_options --ignore-eol)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${compare_options} ${ACTUAL} ${EXPECTED}
  RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  file(READ ${ACTUAL} actual_text)
  file(READ ${EXPECTED} expected_text)
  message(FATAL_ERROR "output differs from ${EXPECTED}\n--- expected\n${expected_text}--- got\n${actual_text}")
endif()
