#pragma once
/* Input checks run before Gmsh sees a file (mesh_msh_check.c,
 * mesh_geo_check.c). Errors name the file and the line, byte, element or
 * command at fault. */
#include <stddef.h>

#include "core/dg_error.h"

/* Scans a .msh file (MSH 2.2 / 4.1, ASCII / binary) completely: counts
 * bounded by the file size, every node tag an element or periodic link uses
 * defined, element types known (nodes_of_type(type) > 0). DG_ERR_FORMAT when
 * Gmsh must not read it. */
dg_status mesh_msh_check(const char *path, int (*nodes_of_type)(int type));
dg_status mesh_msh_check_buffer(const char *path, const unsigned char *buf, size_t size,
                                int (*nodes_of_type)(int type));

/* Scans a .geo file and, recursively, the files it includes by a literal
 * name: refuses commands that run programs (System, SystemCall,
 * NonBlockingSystemCall, OnelabRun) unless allow_shell, and Include/Merge of
 * files that are not regular files. */
dg_status mesh_geo_check(const char *path, int allow_shell);
