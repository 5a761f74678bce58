#pragma once
/* Constants shared by every layer, defined once (host and device: plain
 * macros, no includes). */

/* π as a double literal (the same double as acos(-1.0)). */
#define DG_PI 3.14159265358979323846
