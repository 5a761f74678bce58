#pragma once
/* Reading a colour's element list (dg_coloring, coloring.h) on the host and
 * on the device: the one place that knows how a colour that is one index
 * range is told from one that is a list. */
#include <stdint.h>

#include "core/dg_hd.h"

/* Element i (0 <= i < count) of colour c, given first = color_first[c] and
 * list = color_elems + color_start[c] (a device copy on the GPU): first + i
 * when the colour is one index range (first >= 0), else list[i]. */
DG_HD int64_t coloring_list_element(int64_t first, const int64_t *list, int64_t i) {
  return first >= 0 ? first + i : list[i];
}
