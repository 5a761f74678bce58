/* The halo of one partition (halo.h). */
#include "parallel/halo.h"

#include <stdlib.h>
#include <string.h>

void halo_free(dg_halo *halo) {
  if (!halo) return;
  free(halo->neighbor);
  free(halo->send_offset);
  free(halo->send_elem);
  free(halo->recv_offset);
  free(halo->recv_elem);
  memset(halo, 0, sizeof *halo);
}
