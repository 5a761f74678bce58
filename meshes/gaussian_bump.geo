// HiOCFD workshop case C1.1 (subsonic inviscid flow over a Gaussian bump):
// the channel -1.5 <= x <= 1.5 between the bump y = 0.0625 exp(-25 x^2) and
// the top wall y = 0.8, meshed with structured (transfinite) quadrilaterals.
// `gmsh -2 -order q -setnumber level N`: level N has (n_x0 2^N) x (n_y0 2^N)
// cells (default 12 x 4 at level 0 ... 192 x 64 at level 4), about 3:1 cells
// in x:y as the workshop's meshes. Meant for geometric order 2 or 3 (quad9 /
// quad16): the wall nodes lie on the bump, so the wall is curved.
//
// The bottom wall is one interpolating spline through n_pts points of the
// exact bump, equally spaced in x (Gmsh's built-in Spline: a Catmull-Rom
// curve through the points; with 1201 points its distance to the exact bump
// is below 1e-9, and it is smooth, so it generates no entropy itself). The
// mesh's wall nodes lie on it; between them the order-q Lagrange polynomial
// of each wall face follows it to O(h^(q+1)).
//
// Parameters (gmsh -setnumber NAME VALUE):
//   level   refinement level (0 = coarsest; default 1, the mesh of
//           cases/gaussian_bump); cells per direction x 2^level
//   n_x0    cells along x at level 0
//   n_y0    cells along y at level 0
//   n_pts   points of the bump spline
//   tri     1: triangles instead (each cell cut in two along a diagonal,
//           Gmsh's transfinite "Alternate" pattern), 0: quadrilaterals
//
// Physical groups: "inflow" (x = -1.5), "outflow" (x = 1.5), "wall" (the
// bump), "top" (y = 0.8), surface "fluid".

DefineConstant[
  level = {1, Name "Parameters/level"},
  n_x0 = {12, Name "Parameters/n_x0"},
  n_y0 = {4, Name "Parameters/n_y0"},
  n_pts = {1201, Name "Parameters/n_pts"},
  tri = {0, Name "Parameters/tri"}
];

If (level < 0 || level != Round(level) || n_x0 < 1 || n_y0 < 1 || n_pts < 3)
  Error("gaussian_bump.geo: level must be an integer >= 0, n_x0, n_y0 >= 1, n_pts >= 3");
  Abort;
EndIf

refine = 2^level;
n_x = n_x0 * refine;
n_y = n_y0 * refine;
x_in = -1.5;
x_out = 1.5;
y_top = 0.8;

// bump points, left to right
For i In {0 : n_pts - 1}
  x = x_in + (x_out - x_in) * i / (n_pts - 1);
  pb[i] = newp;
  Point(pb[i]) = {x, 0.0625 * Exp(-25 * x * x), 0};
EndFor
p_tl = newp; Point(p_tl) = {x_in, y_top, 0};
p_tr = newp; Point(p_tr) = {x_out, y_top, 0};

// counter-clockwise, so that the surface normal is +z and Gmsh writes
// positively oriented elements
c_wall = newc; Spline(c_wall) = {pb[]};
c_out = newc; Line(c_out) = {pb[n_pts - 1], p_tr};
c_top = newc; Line(c_top) = {p_tr, p_tl};
c_in = newc; Line(c_in) = {p_tl, pb[0]};
cl = newll; Curve Loop(cl) = {c_wall, c_out, c_top, c_in};
s_fluid = news; Plane Surface(s_fluid) = {cl};

Transfinite Curve {c_wall, c_top} = n_x + 1;
Transfinite Curve {c_in, c_out} = n_y + 1;
If (tri)
  Transfinite Surface {s_fluid} = {pb[0], pb[n_pts - 1], p_tr, p_tl} Alternate;
Else
  Transfinite Surface {s_fluid} = {pb[0], pb[n_pts - 1], p_tr, p_tl};
  Recombine Surface {s_fluid};
EndIf

Physical Curve("wall") = {c_wall};
Physical Curve("outflow") = {c_out};
Physical Curve("top") = {c_top};
Physical Curve("inflow") = {c_in};
Physical Surface("fluid") = {s_fluid};
