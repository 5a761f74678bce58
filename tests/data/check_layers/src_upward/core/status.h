#pragma once
/* Fixture of tests/layers.cmake: a valid lowest layer. */
