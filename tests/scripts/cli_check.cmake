# Script-mode checker for command-line tests (CTest cannot check an exit
# code and an output pattern together: PASS_REGULAR_EXPRESSION ignores the
# exit code, and WILL_FAIL inverts the pattern's verdict).
#   cmake -DCHECK_RC=n [-DCHECK_REGEX=r] -DCHECK_ARGS=a|b|c -P cli_check.cmake
string(REPLACE "|" ";" check_command "${CHECK_ARGS}")
execute_process(COMMAND ${check_command} RESULT_VARIABLE check_rc OUTPUT_VARIABLE check_out
                ERROR_VARIABLE check_err)
message("${check_out}${check_err}")
if(NOT "${check_rc}" STREQUAL "${CHECK_RC}")
  message(FATAL_ERROR "exit code ${check_rc}, expected ${CHECK_RC}")
endif()
if(DEFINED CHECK_REGEX AND NOT "${check_out}${check_err}" MATCHES "${CHECK_REGEX}")
  message(FATAL_ERROR "output does not match: ${CHECK_REGEX}")
endif()
