/* Mutation fuzzing of ColorDG's input readers through the command line.
 *
 * From a fixed seed, writes mutants of valid case files, .msh files (MSH
 * 2.2/4.1, ASCII/binary) and .cdgm files (half with their checksum repaired,
 * so the content checks are reached) and runs `colordg info` on each. Every
 * run must end with exit 0, or exit 1 and an "error:" message; a signal, a
 * sanitizer report, another exit code or a run longer than the time limit is
 * a failure, and the mutant is kept in OUT_DIR/failures/ to reproduce it.
 *
 * usage: fuzz_inputs COLORDG OUT_DIR [N_MUTANTS [SEED [SECONDS_PER_RUN]]]
 * (tests/errors.cmake runs a short fixed-seed round; tools/fuzz.sh longer ones) */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t g_rng;

static uint64_t rnd(void) {
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 2685821657736338717ull;
}

static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

typedef struct {
  unsigned char *data;
  size_t n, cap;
} buffer;

static void buf_reserve(buffer *b, size_t n) {
  if (n <= b->cap) return;
  b->cap = n * 2;
  b->data = realloc(b->data, b->cap);
  if (!b->data) {
    fprintf(stderr, "fuzz_inputs: out of memory\n");
    exit(2);
  }
}

static int read_file(const char *path, buffer *b) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  b->n = 0;
  unsigned char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    buf_reserve(b, b->n + got);
    memcpy(b->data + b->n, chunk, got);
    b->n += got;
  }
  fclose(f);
  return 1;
}

static int write_file(const char *path, const buffer *b) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  const int ok = fwrite(b->data, 1, b->n, f) == b->n;
  return fclose(f) == 0 && ok;
}

/* Values that break parsers: signs, huge and odd numbers, separators. */
static const char *const g_tokens[] = {"-1",          "0",          "18446744073709551615",
                                       "4294967295",  "2147483648", "1e308",
                                       "-1e308",      "nan",        "inf",
                                       "0x10",        "1e-320",     "99999999999",
                                       " ",           "\n",         "=",
                                       "[",           "]",          "\"",
                                       "$EndNodes\n", "$Nodes\n",   "$Elements\n",
                                       ";",           "\t",         "9",
                                       "\0",          "\xff"};

static void insert_bytes(buffer *b, size_t at, const void *src, size_t n) {
  buf_reserve(b, b->n + n);
  memmove(b->data + at + n, b->data + at, b->n - at);
  memcpy(b->data + at, src, n);
  b->n += n;
}

/* One to four random edits. */
static void mutate(buffer *b, int text) {
  const int n_edits = 1 + (int)rnd_below(4);
  for (int e = 0; e < n_edits && b->n > 0; ++e) {
    const size_t at = rnd_below(b->n);
    switch (rnd_below(text ? 8 : 6)) {
    case 0: b->data[at] ^= (unsigned char)(1u << rnd_below(8)); break; /* bit flip */
    case 1: b->data[at] = (unsigned char)rnd(); break;                 /* random byte */
    case 2: {                                                          /* delete a range */
      const size_t len = 1 + rnd_below(b->n - at < 64 ? b->n - at : 64);
      memmove(b->data + at, b->data + at + len, b->n - at - len);
      b->n -= len;
      break;
    }
    case 3: { /* duplicate a range */
      const size_t len = 1 + rnd_below(b->n - at < 64 ? b->n - at : 64);
      unsigned char copy[64];
      memcpy(copy, b->data + at, len);
      insert_bytes(b, rnd_below(b->n + 1), copy, len);
      break;
    }
    case 4: b->n = at; break; /* truncate */
    case 5: {                 /* a binary word set to an extreme value */
      const uint64_t words[] = {0, UINT64_MAX, 1ull << 31, 1ull << 40, 0x7fffffffull};
      const uint64_t w = words[rnd_below(5)];
      const size_t len = rnd_below(2) ? 4 : 8;
      if (at + len <= b->n) memcpy(b->data + at, &w, len);
      break;
    }
    default: { /* a token replaces a word or is inserted */
      const char *tok = g_tokens[rnd_below(sizeof g_tokens / sizeof *g_tokens)];
      const size_t len = tok[0] ? strlen(tok) : 1;
      size_t end = at;
      if (rnd_below(2))
        while (end < b->n && b->data[end] > ' ' && b->data[end] != '=') ++end;
      memmove(b->data + at, b->data + end, b->n - end);
      b->n -= end - at;
      insert_bytes(b, at, tok, len);
      break;
    }
    }
  }
}

static uint64_t fnv1a(const unsigned char *data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* Runs `colordg info path`; returns 1 when the run ended acceptably. */
static int run_one(const char *colordg, const char *path, const char *log, double limit, char *why,
                   size_t why_n) {
  fflush(NULL);
  const pid_t pid = fork();
  if (pid < 0) {
    snprintf(why, why_n, "fork failed: %s", strerror(errno));
    return 0;
  }
  if (pid == 0) {
    FILE *out = freopen(log, "w", stdout);
    if (!out || dup2(fileno(stdout), STDERR_FILENO) < 0) _exit(126);
    execl(colordg, colordg, "info", path, (char *)NULL);
    _exit(127);
  }
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double t = (double)(now.tv_sec - t0.tv_sec) + 1e-9 * (double)(now.tv_nsec - t0.tv_nsec);
    if (t > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      snprintf(why, why_n, "still running after %.0f s (killed)", limit);
      return 0;
    }
    const struct timespec pause = {0, 2000000L};
    nanosleep(&pause, NULL);
  }
  buffer text = {0};
  read_file(log, &text);
  buf_reserve(&text, text.n + 1);
  text.data[text.n] = '\0';
  /* Output with NUL bytes: search each piece. */
  int sanitizer = 0, has_error = 0;
  for (size_t i = 0; i < text.n; i += strlen((char *)text.data + i) + 1) {
    const char *s = (const char *)text.data + i;
    if (strstr(s, "Sanitizer") || strstr(s, "runtime error:")) sanitizer = 1;
    if (strstr(s, "error: ")) has_error = 1;
  }
  free(text.data);
  if (WIFSIGNALED(status)) {
    snprintf(why, why_n, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return 0;
  }
  const int rc = WEXITSTATUS(status);
  if (sanitizer) {
    snprintf(why, why_n, "sanitizer report (exit %d)", rc);
    return 0;
  }
  if (rc == 0) return 1;
  if (rc == 1 && has_error) return 1;
  snprintf(why, why_n, "exit %d%s", rc, rc == 1 ? " without an error message" : "");
  return 0;
}

typedef struct {
  const char *name; /* file name of the mutant (its extension picks the reader) */
  buffer seed;
  int text, cdgm;
} seed_file;

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fuzz_inputs COLORDG OUT_DIR [N_MUTANTS [SEED [SECONDS_PER_RUN]]]\n");
    return 2;
  }
  const char *colordg = argv[1], *dir = argv[2];
  const long n_mutants = argc > 3 ? atol(argv[3]) : 300;
  g_rng = argc > 4 ? strtoull(argv[4], NULL, 10) : 20261125ull;
  if (g_rng == 0) g_rng = 1;
  const double limit = argc > 5 ? atof(argv[5]) : 30.0;
  const uint64_t seed0 = g_rng;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "fuzz_inputs: cannot create %s: %s\n", dir, strerror(errno));
    return 2;
  }
  char failures[1024];
  snprintf(failures, sizeof failures, "%s/failures", dir);
  mkdir(failures, 0755);

  seed_file seeds[] = {{"case.ini", {0}, 1, 0},
                       {"ascii41.msh", {0}, 1, 0},
                       {"binary41.msh", {0}, 0, 0},
                       {"ascii22.msh", {0}, 1, 0},
                       {"binary22.msh", {0}, 0, 0},
                       {"box.cdgm", {0}, 0, 1},
                       {"periodic_square.cdgm", {0}, 0, 1}};
  const char *sources[] = {NULL,
                           COLORDG_TEST_DATA "/square2_msh41.msh",
                           COLORDG_TEST_DATA "/square2_msh41_bin.msh",
                           COLORDG_TEST_DATA "/square2_msh22.msh",
                           COLORDG_TEST_DATA "/square2_msh22_bin.msh",
                           COLORDG_TEST_DATA "/mesh_box_tet_3.cdgm",
                           COLORDG_TEST_DATA "/mesh_square_tri_8.cdgm"};
  const int n_seeds = (int)(sizeof seeds / sizeof *seeds);
  /* The case seed: every section, every kind of value, the box mesh. */
  char case_text[2048];
  snprintf(case_text, sizeof case_text,
           "; fuzz seed\n[mesh]\nfile = %s/mesh_box_tet_3.cdgm\ngeo_order = 0\n\n"
           "[flow]\nmach = 0.5\nalpha_deg = 1.25\nbeta_deg = 0.5\ngamma = 1.4\n\n"
           "[reference]\nlength = 1\narea = 1\n\n[discretization]\norder = 1\n\n"
           "[solver]\nscheme = lusgs\ncfl = 2\ncfl_max = 100\nlocal_time_step = yes\n\n"
           "[stop]\nmax_iters = 10\nresidual_drop = 6\n\n[output]\nfolder = out\n\n"
           "[bc.xmax]\nstatic_pressure = 0.7\n\n"
           "[boundary]\nxmin = farfield\nxmax = outflow_subsonic\nymin = wall\nymax = symmetry\n"
           "zmin = wall\nzmax = farfield\n",
           COLORDG_TEST_DATA);
  buf_reserve(&seeds[0].seed, strlen(case_text));
  memcpy(seeds[0].seed.data, case_text, strlen(case_text));
  seeds[0].seed.n = strlen(case_text);
  for (int s = 1; s < n_seeds; ++s)
    if (!read_file(sources[s], &seeds[s].seed)) {
      fprintf(stderr, "fuzz_inputs: cannot read %s\n", sources[s]);
      return 2;
    }

  /* Controls: the seeds themselves must be read without error. */
  char path[1024], log[1024], why[256];
  snprintf(log, sizeof log, "%s/run.log", dir);
  int failed = 0;
  for (int s = 0; s < n_seeds; ++s) {
    snprintf(path, sizeof path, "%s/%s", dir, seeds[s].name);
    write_file(path, &seeds[s].seed);
    if (!run_one(colordg, path, log, limit, why, sizeof why)) {
      fprintf(stderr, "fuzz_inputs: seed %s fails: %s\n", seeds[s].name, why);
      ++failed;
    }
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  buffer m = {0};
  long counts[3] = {0, 0, 0};
  for (long i = 0; i < n_mutants; ++i) {
    const int s = (int)rnd_below((size_t)n_seeds);
    seed_file *sf = &seeds[s];
    buf_reserve(&m, sf->seed.n + 1);
    memcpy(m.data, sf->seed.data, sf->seed.n);
    m.n = sf->seed.n;
    mutate(&m, sf->text);
    if (sf->cdgm && m.n > 8 && rnd_below(2)) {
      const uint64_t h = fnv1a(m.data, m.n - 8);
      memcpy(m.data + m.n - 8, &h, 8);
    }
    snprintf(path, sizeof path, "%s/%s", dir, sf->name);
    if (!write_file(path, &m)) {
      fprintf(stderr, "fuzz_inputs: cannot write %s\n", path);
      return 2;
    }
    why[0] = '\0';
    if (!run_one(colordg, path, log, limit, why, sizeof why)) {
      char keep[1200];
      snprintf(keep, sizeof keep, "%s/%ld_%s", failures, i, sf->name);
      write_file(keep, &m);
      fprintf(stderr, "FAIL mutant %ld (%s): %s; kept as %s (log: %s)\n", i, sf->name, why, keep,
              log);
      ++failed;
      char kept_log[1300];
      snprintf(kept_log, sizeof kept_log, "%s.log", keep);
      buffer l = {0};
      if (read_file(log, &l)) write_file(kept_log, &l);
      free(l.data);
    }
    ++counts[sf->cdgm ? 2 : s == 0 ? 0 : 1];
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("fuzz_inputs: seed %llu, %ld mutants (%ld case files, %ld .msh, %ld .cdgm) in %.1f s: "
         "%d failed\n",
         (unsigned long long)seed0, n_mutants, counts[0], counts[1], counts[2],
         (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), failed);
  free(m.data);
  for (int s = 0; s < n_seeds; ++s) free(seeds[s].seed.data);
  return failed ? 1 : 0;
}
