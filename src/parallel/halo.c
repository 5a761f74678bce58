/* The halo of one partition (halo.h). */
#include "parallel/halo.h"

#include <stdlib.h>

#include "core/dg_error.h"
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

dg_status halo_exchange(const dg_halo *h, double *values, int width, int tag) {
  DG_CHECK(h && width >= 1, DG_ERR_ARG, "halo_exchange: bad arguments");
  if (!h->comm || dg_comm_size(h->comm) == 1) return DG_SUCCESS;
  const int n = h->n_neighbors;
  int64_t *counts = NULL;
  double *send = NULL, *recv = NULL;
  dg_exchange *ex = NULL;
  dg_status status = DG_SUCCESS;
  DG_CALL_GOTO(status, done, DG_CALLOC(counts, 2 * (n > 0 ? n : 1)));
  for (int i = 0; i < n; ++i) {
    counts[i] = width * (h->send_offset[i + 1] - h->send_offset[i]);
    counts[n + i] = width * (h->recv_offset[i + 1] - h->recv_offset[i]);
  }
  const int64_t ns = h->send_offset[n], nr = h->recv_offset[n];
  DG_CALL_GOTO(status, done, DG_CALLOC(send, ns * width > 0 ? ns * width : 1));
  DG_CALL_GOTO(status, done, DG_CALLOC(recv, nr * width > 0 ? nr * width : 1));
  for (int64_t i = 0; i < ns; ++i)
    for (int j = 0; j < width; ++j) send[i * width + j] = values[h->send_elem[i] * width + j];
  DG_CALL_GOTO(status, done,
               dg_exchange_create(h->comm, n, h->neighbor, counts, counts + n, tag, &ex));
  DG_CALL_GOTO(status, done, dg_exchange_start(ex, send, recv));
  DG_CALL_GOTO(status, done, dg_exchange_finish(ex));
  for (int64_t i = 0; i < nr; ++i)
    for (int j = 0; j < width; ++j) values[h->recv_elem[i] * width + j] = recv[i * width + j];
done:
  dg_exchange_destroy(ex);
  free(counts);
  free(send);
  free(recv);
  return status;
}
