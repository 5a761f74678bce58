#include "test_util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_select.h"

int test_failures = 0;
int test_checks = 0;
const dg_backend *test_backend = NULL;
const char *test_backend_name = "cpu";

int test_backend_args(int *argc, char **argv) {
  const char *name = "cpu";
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (!strcmp(argv[i], "--backend")) {
      if (i + 1 >= *argc) {
        fprintf(stderr, "%s: --backend expects cpu or cuda\n", argv[0]);
        return 2;
      }
      name = argv[++i];
      continue;
    }
    argv[out++] = argv[i];
  }
  *argc = out;
  argv[out] = NULL;
  if (!strcmp(name, "cpu")) {
    test_backend = backend_cpu();
    test_backend_name = "cpu";
    return 0;
  }
  if (!strcmp(name, "cuda")) {
    test_backend_name = "cuda";
    if (!backend_cuda_available()) {
      printf("%s --backend cuda: no CUDA backend or device, skipped\n", argv[0]);
      return TEST_SKIP;
    }
    test_backend = backend_cuda();
    return 0;
  }
  fprintf(stderr, "%s: --backend expects cpu or cuda, got '%s'\n", argv[0], name);
  return 2;
}

int test_backend_is_cpu(void) { return test_backend == backend_cpu(); }

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

char *test_read_all(const char *path, long *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)*size + 1);
  if (buf && fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[*size] = '\0';
  fclose(f);
  return buf;
}

char *test_history_without_wall(const char *folder) {
  char path[2048];
  snprintf(path, sizeof path, "%s/history.csv", folder);
  long size = 0;
  char *text = test_read_all(path, &size);
  if (!text) return NULL;
  char *out = malloc((size_t)size + 1), *o = out;
  if (!out) {
    free(text);
    return NULL;
  }
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    const size_t n = end ? (size_t)(end - line + 1) : strlen(line);
    char *first = memchr(line, ',', n), *second = first ? memchr(first + 1, ',', n) : NULL;
    if (first && second && second < line + n) {
      memcpy(o, line, (size_t)(first - line));
      o += first - line;
      memcpy(o, second, (size_t)(line + n - second));
      o += line + n - second;
    } else {
      memcpy(o, line, n);
      o += n;
    }
    line += n;
  }
  *o = '\0';
  free(text);
  return out;
}
