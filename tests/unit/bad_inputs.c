/* Writes the malformed inputs of the command-line error tests
 * (tests/errors.cmake) into a folder:
 *   good.msh            a valid 2-triangle unit square (MSH 4.1), the control
 *   truncated.msh       good.msh cut inside its $Elements section
 *   missing_group.msh   the left side is in no physical group
 *   inverted.msh        one triangle clockwise, the other counter-clockwise
 *   degenerate.msh      one "bow-tie" quadrilateral (zero area)
 *   corrupted.cdgm      a committed test mesh with one byte flipped
 * and the inputs of the mesh hardening tests (issue 12):
 *   node_minus1.msh     a triangle uses node tag -1
 *   bnode_max.msh       a boundary line uses node tag 2^64-1
 *   huge_nodes.msh      $Nodes declares 4e12 nodes
 *   version40.msh       MSH 4.0
 *   bitflip_bin.msh     tests/data/square2_msh41_bin.msh, bit 30 of a node tag set
 *   bitflip_bin22.msh   tests/data/square2_msh22_bin.msh, bit 30 of an element count set
 *   quad_repeat.msh     two quadrilaterals, one with a repeated node
 *   fifo.msh, zero.msh (a link to /dev/zero), dir.msh/ and dir.cdgm/ (folders)
 *   square.geo, shell.geo (SystemCall), include_zero.geo, loop.geo (endless),
 *   fine.geo (about 5e9 elements), mid.geo (5e5 elements) and the cases
 *   loop.ini (max_seconds = 1), memory.ini (max_memory_mb = 30),
 *   missing_mesh.ini (a [mesh] file that does not exist), dir_mesh.ini
 * usage: bad_inputs OUT_DIR */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Copies a committed file with bit `bit` of the 8 bytes at offset `at` set. */
static int write_bitflip(const char *dir, const char *src_name, const char *name, long at,
                         int bit) {
  char src[1024];
  snprintf(src, sizeof src, "%s/%s", COLORDG_TEST_DATA, src_name);
  static char bytes[1 << 16];
  FILE *f = fopen(src, "rb");
  const size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  if (n < (size_t)at + 8) {
    fprintf(stderr, "bad_inputs: cannot read %s\n", src);
    return 1;
  }
  bytes[at + bit / 8] |= (char)(1 << (bit % 8));
  return write_bytes(dir, name, bytes, n);
}

/* Byte offset just after the first occurrence of marker in a committed file. */
static long offset_after(const char *src_name, const char *marker) {
  char src[1024];
  snprintf(src, sizeof src, "%s/%s", COLORDG_TEST_DATA, src_name);
  static char bytes[1 << 16];
  FILE *f = fopen(src, "rb");
  const size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  const size_t m = strlen(marker);
  for (size_t i = 0; i + m <= n; ++i)
    if (memcmp(bytes + i, marker, m) == 0) return (long)(i + m);
  return -1;
}

/* Offset of the first node tag in a little-endian MSH 4.1 binary file. */
static long first_node_tag_41(const char *src_name) {
  long pos = offset_after(src_name, "$Nodes\n");
  char src[1024];
  snprintf(src, sizeof src, "%s/%s", COLORDG_TEST_DATA, src_name);
  static unsigned char bytes[1 << 16];
  FILE *f = fopen(src, "rb");
  const size_t n = f ? fread(bytes, 1, sizeof bytes, f) : 0;
  if (f) fclose(f);
  if (pos < 0) return -1;
  pos += 32;
  while ((size_t)pos + 20 <= n) {
    unsigned long long count = 0;
    for (int k = 7; k >= 0; --k) count = count << 8 | bytes[pos + 12 + k];
    if (count > 0) return pos + 20;
    pos += 20;
  }
  return -1;
}

static const char *square_geo = "lc = 0.5;\n"
                                "Point(1) = {0, 0, 0, lc};\n"
                                "Point(2) = {1, 0, 0, lc};\n"
                                "Point(3) = {1, 1, 0, lc};\n"
                                "Point(4) = {0, 1, 0, lc};\n"
                                "Line(1) = {1, 2};\n"
                                "Line(2) = {2, 3};\n"
                                "Line(3) = {3, 4};\n"
                                "Line(4) = {4, 1};\n"
                                "Curve Loop(1) = {1, 2, 3, 4};\n"
                                "Plane Surface(1) = {1};\n"
                                "Physical Curve(\"wall\") = {1, 2, 3, 4};\n"
                                "Physical Surface(\"fluid\") = {1};\n";

static int write_geo(const char *dir, const char *name, const char *head, const char *lc) {
  char text[4096];
  snprintf(text, sizeof text, "%s%s", head, square_geo);
  if (lc) {
    char *at = strstr(text, "lc = 0.5;");
    char rest[4096];
    snprintf(rest, sizeof rest, "%s", at + 9);
    snprintf(at, sizeof text - (size_t)(at - text), "lc = %s;%s", lc, rest);
  }
  return write_bytes(dir, name, text, strlen(text));
}

static int write_case(const char *dir, const char *name, const char *mesh, const char *extra) {
  char text[1024];
  snprintf(text, sizeof text,
           "; written by bad_inputs\n[mesh]\nfile = %s\n%s\n\n[flow]\nmach = 0.5\n\n"
           "[discretization]\norder = 1\n\n[boundary]\nwall = wall\n",
           mesh, extra);
  return write_bytes(dir, name, text, strlen(text));
}

static int write_special_files(const char *dir) {
  char path[1024];
  int rc = 0;
  snprintf(path, sizeof path, "%s/fifo.msh", dir);
  remove(path);
  rc |= mkfifo(path, 0600) != 0;
  snprintf(path, sizeof path, "%s/zero.msh", dir);
  remove(path);
  rc |= symlink("/dev/zero", path) != 0;
  snprintf(path, sizeof path, "%s/dir.msh", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/dir.cdgm", dir);
  mkdir(path, 0700);
  if (rc) fprintf(stderr, "bad_inputs: cannot create the FIFO or the link in %s\n", dir);
  return rc;
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

  const char *minus1[] = {"5 1 2 3\n", "5 1 -1 3\n"};
  const char *bmax[] = {"1 1 2\n", "1 18446744073709551615 2\n"};
  const char *huge[] = {"$Nodes\n1 4 1 4", "$Nodes\n1 4000000000000 1 4"};
  const char *v40[] = {"4.1 0 8", "4.0 0 8"};
  const char *quads[] = {"2 1 2 2\n5 1 2 3\n6 1 3 4\n", "2 1 3 2\n5 1 2 3 3\n6 1 3 4 1\n"};
  rc |= write_variant(dir, "node_minus1.msh", 1, minus1);
  rc |= write_variant(dir, "bnode_max.msh", 1, bmax);
  rc |= write_variant(dir, "huge_nodes.msh", 1, huge);
  rc |= write_variant(dir, "version40.msh", 1, v40);
  rc |= write_variant(dir, "quad_repeat.msh", 1, quads);
  /* MSH 4.1 binary: $Nodes holds 4 size_t, then per block 3 int + size_t
   * (the count), then the tags: bit 30 of the first tag of the first block
   * that has nodes. */
  const long nodes41 = first_node_tag_41("square2_msh41_bin.msh");
  rc |= nodes41 < 0 || write_bitflip(dir, "square2_msh41_bin.msh", "bitflip_bin.msh", nodes41, 30);
  /* MSH 2.2 binary: after the ASCII count line, blocks of 3 int (type,
   * count, tags): bit 30 of the first block's count. */
  const long elems22 = offset_after("square2_msh22_bin.msh", "$Elements\n");
  const long line22 = elems22 < 0 ? -1 : offset_after("square2_msh22_bin.msh", "$Elements\n6\n");
  rc |= line22 < 0 ||
        write_bitflip(dir, "square2_msh22_bin.msh", "bitflip_bin22.msh", line22 + 4, 30);
  rc |= write_special_files(dir);
  rc |= write_geo(dir, "square.geo", "", NULL);
  rc |= write_geo(dir, "shell.geo", "SystemCall \"true\";\n", NULL);
  rc |= write_geo(dir, "include_zero.geo", "Include \"/dev/zero\";\n", NULL);
  rc |= write_geo(dir, "loop.geo", "For i In {1:1e12}\n  x = i;\nEndFor\n", NULL);
  rc |= write_geo(dir, "fine.geo", "", "1e-5");
  rc |= write_geo(dir, "mid.geo", "", "0.002");
  rc |= write_case(dir, "loop.ini", "loop.geo", "max_seconds = 1");
  rc |= write_case(dir, "memory.ini", "mid.geo", "max_memory_mb = 30");
  rc |= write_case(dir, "missing_mesh.ini", "does_not_exist.msh", "");
  rc |= write_case(dir, "dir_mesh.ini", "dir.msh", "");
  if (!rc) printf("bad_inputs: wrote the malformed inputs into %s\n", dir);
  return rc;
}
