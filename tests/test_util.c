#include "test_util.h"

#include <stdarg.h>
#include <string.h>

int test_failures = 0;
int test_checks = 0;

void test_fail(const char *file, int line, const char *fmt, ...) {
  ++test_failures;
  fprintf(stderr, "FAIL %s:%d: ", file, line);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void test_expect_failure(dg_status got, dg_status code, const char *needle, const char *text,
                         const char *file, int line) {
  ++test_checks;
  if (got != code) {
    test_fail(file, line, "%s returned %s, expected %s (message: %s)", text, dg_status_name(got),
              dg_status_name(code), dg_error_message());
  } else if (needle && !strstr(dg_error_message(), needle)) {
    test_fail(file, line, "%s: message \"%s\" lacks \"%s\"", text, dg_error_message(), needle);
  } else {
    printf("  expected error: %s\n", dg_error_message());
  }
  dg_error_clear();
}

int test_finish(const char *name) {
  printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
  return test_failures ? 1 : 0;
}
