/* Pre-scan of a Gmsh .geo file before Gmsh runs it. A .geo is a program:
 * `SystemCall "..."` runs a shell command while ColorDG imports the file, and
 * `Include "/dev/zero"` makes Gmsh read forever. Gmsh has no option that turns
 * its shell commands off, so this scan refuses them (unless the user opted
 * in), and refuses Include/Merge of files that are not regular files. Files
 * named by a computed string are not followed; the time and memory budgets of
 * the meshing child process (mesh_gmsh.c) still bound what they can do. */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mesh/mesh_msh_check.h"

#define GEO_MAX_DEPTH 8
#define GEO_MAX_BYTES (64L << 20)

static const char *const geo_shell_words[] = {"System", "SystemCall", "NonBlockingSystemCall",
                                              "OnelabRun", NULL};

static dg_status geo_check_file(const char *path, int allow_shell, int depth);

/* Resolves name against the folder of `from` into out. */
static void geo_resolve(const char *from, const char *name, char *out, size_t n) {
  if (name[0] == '/') {
    snprintf(out, n, "%s", name);
    return;
  }
  const char *slash = strrchr(from, '/');
  if (!slash)
    snprintf(out, n, "%s", name);
  else
    snprintf(out, n, "%.*s/%s", (int)(slash - from), from, name);
}

static dg_status geo_check_text(const char *path, const char *text, size_t size, int allow_shell,
                                int depth) {
  long line = 1;
  size_t i = 0;
  char word[64] = "";
  long word_line = 0;
  while (i < size) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '/' && i + 1 < size && text[i + 1] == '/') {
      while (i < size && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < size && text[i + 1] == '*') {
      i += 2;
      while (i + 1 < size && !(text[i] == '*' && text[i + 1] == '/')) line += text[i++] == '\n';
      i += 2;
    } else if (c == '"') {
      const size_t start = ++i;
      while (i < size && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < size) ++i;
        line += text[i] == '\n';
        ++i;
      }
      const size_t len = i - start;
      ++i;
      /* A literal file name right after Include / Merge. */
      if (word[0] && word_line > 0 &&
          (!strcmp(word, "Include") || !strcmp(word, "Merge") ||
           !strcmp(word, "MergeWithBoundingBox"))) {
        char name[1024], full[2048];
        snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1),
                 text + start);
        geo_resolve(path, name, full, sizeof full);
        struct stat st;
        if (stat(full, &st) == 0) {
          DG_CHECK(S_ISREG(st.st_mode), DG_ERR_IO,
                   "%s:%ld: %s \"%s\": %s is %s, not a regular file; a .geo may only include "
                   "regular files",
                   path, word_line, word, name, full,
                   S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket");
          const size_t fl = strlen(full);
          if (!strcmp(word, "Include") || (fl > 4 && !strcmp(full + fl - 4, ".geo")))
            DG_CALL(geo_check_file(full, allow_shell, depth + 1));
        }
      }
      word[0] = '\0';
    } else if (isalpha((unsigned char)c) || c == '_') {
      const size_t start = i;
      while (i < size && (isalnum((unsigned char)text[i]) || text[i] == '_')) ++i;
      const size_t len = i - start;
      snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1),
               text + start);
      word_line = line;
      if (!allow_shell)
        for (int k = 0; geo_shell_words[k]; ++k)
          DG_CHECK(strcmp(word, geo_shell_words[k]) != 0, DG_ERR_UNSUPPORTED,
                   "%s:%ld: the .geo command '%s' runs a program; ColorDG refuses .geo files "
                   "that run programs unless you allow it: [mesh] allow_shell = true in the "
                   "case file, or --allow-shell for import and info",
                   path, line, word);
    } else {
      if (!isspace((unsigned char)c) && c != '(' && c != ')') word[0] = '\0';
      ++i;
    }
  }
  return DG_SUCCESS;
}

static dg_status geo_check_file(const char *path, int allow_shell, int depth) {
  DG_CHECK(depth <= GEO_MAX_DEPTH, DG_ERR_FORMAT,
           "%s: Include files nest deeper than %d levels (an Include loop?)", path, GEO_MAX_DEPTH);
  struct stat st;
  DG_CHECK(stat(path, &st) == 0, DG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  DG_CHECK(S_ISREG(st.st_mode), DG_ERR_IO, "%s: is %s, not a regular file", path,
           S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket");
  DG_CHECK(st.st_size <= GEO_MAX_BYTES, DG_ERR_FORMAT,
           "%s: %lld bytes is too large for a .geo file (at most %ld)", path, (long long)st.st_size,
           GEO_MAX_BYTES);
  FILE *f = fopen(path, "rb");
  DG_CHECK(f, DG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  char *text = malloc((size_t)st.st_size + 1);
  if (!text) {
    fclose(f);
    DG_ERROR(DG_ERR_MEMORY, "%s: out of memory reading the file", path);
  }
  const size_t n = fread(text, 1, (size_t)st.st_size, f);
  fclose(f);
  text[n] = '\0';
  const dg_status status = geo_check_text(path, text, n, allow_shell, depth);
  free(text);
  DG_CALL(status);
  return DG_SUCCESS;
}

dg_status mesh_geo_check(const char *path, int allow_shell) {
  DG_CALL(geo_check_file(path, allow_shell, 0));
  return DG_SUCCESS;
}
