/* Writes the malformed inputs of the command-line error tests
 * (tests/errors.cmake) into a folder:
 *   good.msh            a valid 2-triangle unit square (MSH 4.1), the control
 *   truncated.msh       good.msh cut inside its $Elements section
 *   missing_group.msh   the left side is in no physical group
 *   inverted.msh        one triangle clockwise, the other counter-clockwise
 *   degenerate.msh      one "bow-tie" quadrilateral (zero area)
 *   corrupted.cdgm      a committed test mesh with one byte flipped
 * usage: bad_inputs OUT_DIR */
#include <stdio.h>
#include <string.h>

static const char *good_msh = "$MeshFormat\n"
                              "4.1 0 8\n"
                              "$EndMeshFormat\n"
                              "$PhysicalNames\n"
                              "3\n"
                              "1 1 \"wall\"\n"
                              "1 2 \"farfield\"\n"
                              "2 3 \"fluid\"\n"
                              "$EndPhysicalNames\n"
                              "$Entities\n"
                              "4 4 1 0\n"
                              "1 0 0 0 0\n"
                              "2 1 0 0 0\n"
                              "3 1 1 0 0\n"
                              "4 0 1 0 0\n"
                              "1 0 0 0 1 0 0 1 1 2 1 -2\n"
                              "2 1 0 0 1 1 0 1 1 2 2 -3\n"
                              "3 0 1 0 1 1 0 1 1 2 3 -4\n"
                              "4 0 0 0 0 1 0 1 2 2 4 -1\n"
                              "1 0 0 0 1 1 0 1 3 4 1 2 3 4\n"
                              "$EndEntities\n"
                              "$Nodes\n"
                              "1 4 1 4\n"
                              "2 1 0 4\n"
                              "1\n"
                              "2\n"
                              "3\n"
                              "4\n"
                              "0 0 0\n"
                              "1 0 0\n"
                              "1 1 0\n"
                              "0 1 0\n"
                              "$EndNodes\n"
                              "$Elements\n"
                              "5 6 1 6\n"
                              "1 1 1 1\n"
                              "1 1 2\n"
                              "1 2 1 1\n"
                              "2 2 3\n"
                              "1 3 1 1\n"
                              "3 3 4\n"
                              "1 4 1 1\n"
                              "4 4 1\n"
                              "2 1 2 2\n"
                              "5 1 2 3\n"
                              "6 1 3 4\n"
                              "$EndElements\n";

static int write_bytes(const char *dir, const char *name, const char *bytes, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "bad_inputs: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

/* Writes good_msh with each pair (edits[2i] -> edits[2i+1]) replaced once. */
static int write_variant(const char *dir, const char *name, int n_edits, const char *const *edits) {
  static char text[2][8192];
  snprintf(text[0], sizeof text[0], "%s", good_msh);
  for (int i = 0; i < n_edits; ++i) {
    const char *from = edits[2 * i], *to = edits[2 * i + 1];
    const char *at = strstr(text[0], from);
    if (!at) {
      fprintf(stderr, "bad_inputs: '%s' not found for %s\n", from, name);
      return 1;
    }
    snprintf(text[1], sizeof text[1], "%.*s%s%s", (int)(at - text[0]), text[0], to,
             at + strlen(from));
    memcpy(text[0], text[1], sizeof text[0]);
  }
  return write_bytes(dir, name, text[0], strlen(text[0]));
}

static int write_corrupted_cdgm(const char *dir) {
  const char *src = COLORDG_TEST_DATA "/mesh_square_tri_8.cdgm";
  static char bytes[1 << 20];
  FILE *f = fopen(src, "rb");
  const size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  if (n < 64) {
    fprintf(stderr, "bad_inputs: cannot read %s\n", src);
    return 1;
  }
  bytes[n / 2] ^= 0x5a; /* inside the arrays: only the checksum can tell */
  return write_bytes(dir, "corrupted.cdgm", bytes, n);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: bad_inputs OUT_DIR\n");
    return 2;
  }
  const char *dir = argv[1];
  const char *missing[] = {"4 0 0 0 0 1 0 1 2 2 4 -1", "4 0 0 0 0 1 0 0 2 4 -1"};
  const char *inverted[] = {"6 1 3 4\n", "6 1 4 3\n"};
  const char *degenerate[] = {"5 6 1 6", "5 5 1 5", "2 1 2 2\n5 1 2 3\n6 1 3 4\n",
                              "2 1 3 1\n5 1 2 4 3\n"};
  const size_t cut = (size_t)(strstr(good_msh, "$Elements") - good_msh) + 30;
  int rc = write_bytes(dir, "good.msh", good_msh, strlen(good_msh));
  rc |= write_bytes(dir, "truncated.msh", good_msh, cut);
  rc |= write_variant(dir, "missing_group.msh", 1, missing);
  rc |= write_variant(dir, "inverted.msh", 1, inverted);
  rc |= write_variant(dir, "degenerate.msh", 2, degenerate);
  rc |= write_corrupted_cdgm(dir);
  if (!rc) printf("bad_inputs: wrote the malformed inputs into %s\n", dir);
  return rc;
}
