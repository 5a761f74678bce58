#pragma once
/* Minimal test harness: checks count failures and report file:line; a test
 * main returns test_finish() (0 when every check passed). A GPU test with no
 * GPU returns TEST_SKIP (77), declared as SKIP_RETURN_CODE in CTest. */
#include <stdio.h>

#include "core/dg_error.h"
#include "dg/backend.h"

#define TEST_SKIP 77

extern int test_failures;
extern int test_checks;

void test_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Check a condition; on failure print the message and count it. */
#define TEST_CHECK(cond, ...)                                                                      \
  do {                                                                                             \
    ++test_checks;                                                                                 \
    if (!(cond)) test_fail(__FILE__, __LINE__, __VA_ARGS__);                                       \
  } while (0)

/* |a - b| <= tol, with the values in the message. */
#define TEST_CLOSE(a, b, tol, what)                                                                \
  do {                                                                                             \
    const double ta_ = (a), tb_ = (b), tt_ = (tol);                                                \
    ++test_checks;                                                                                 \
    if (!(ta_ - tb_ <= tt_ && tb_ - ta_ <= tt_))                                                   \
      test_fail(__FILE__, __LINE__, "%s: %.17g vs %.17g (|diff| %.3g > tol %.3g)", (what), ta_,    \
                tb_, ta_ > tb_ ? ta_ - tb_ : tb_ - ta_, tt_);                                      \
  } while (0)

/* A library call must succeed; on failure the recorded error is printed. */
#define TEST_OK(expr)                                                                              \
  do {                                                                                             \
    ++test_checks;                                                                                 \
    dg_status ts_ = (expr);                                                                        \
    if (ts_ != DG_SUCCESS) {                                                                       \
      dg_error_print(stderr, 1);                                                                   \
      test_fail(__FILE__, __LINE__, "%s failed with %s", #expr, dg_status_name(ts_));              \
    }                                                                                              \
  } while (0)

/* A library call must fail with `code`; the message must contain `needle`. */
#define TEST_FAILS(expr, code, needle)                                                             \
  test_expect_failure((expr), (code), (needle), #expr, __FILE__, __LINE__)
void test_expect_failure(dg_status got, dg_status code, const char *needle, const char *text,
                         const char *file, int line);

/* Prints "N passed, N failed" and returns the exit code. */
int test_finish(const char *name);

/* Reads a whole file (NUL-terminated, *size bytes); NULL when it cannot be
 * read. The caller frees it. */
char *test_read_all(const char *path, long *size);

/* folder/history.csv with the wall_s column (the second) removed from every
 * row, for bitwise comparisons of two runs; NULL when it cannot be read. */
char *test_history_without_wall(const char *folder);

/* One test source, every backend (docs/ARCHITECTURE.md §6, tests/unit/README.md):
 * takes `--backend cpu|cuda` (default cpu) out of argv (argc shrinks) and sets
 * test_backend (the table of src/backends/backend_select.h) and
 * test_backend_name. Returns 0, TEST_SKIP (77, with a line on stdout) for
 * cuda when this build has no CUDA backend or no device is present, or 2
 * (with a message on stderr) for a bad argument: main returns it unless 0. */
int test_backend_args(int *argc, char **argv);
extern const dg_backend *test_backend;
extern const char *test_backend_name;
/* 1 when test_backend is the CPU backend (checks of CPU internals). */
int test_backend_is_cpu(void);
