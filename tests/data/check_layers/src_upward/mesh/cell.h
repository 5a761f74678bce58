#pragma once
/* Fixture of tests/layers.cmake: mesh includes from dg above it (line 4). */
#include "core/status.h"
#include "dg/quadrature.h"
