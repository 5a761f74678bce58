#pragma once
/* Fixture of tests/layers.cmake: dg may include mesh and core. */
#include "core/status.h"
#include "mesh/cell.h"
