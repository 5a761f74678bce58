// NACA0012 triangle family, coarse to fine: `gmsh -setnumber level N` (N =
// 0, 1, 2, ...) halves every mesh size of level N-1, so the element count
// grows about 4x per level (counts per level in meshes/README.md). Meant to be
// meshed at geometric order 2 or 3 (gmsh -order 2: wall edges curved onto the
// spline).
//
// Airfoil: closed-trailing-edge NACA0012 of HiOCFD case C1.3, chord 1, sharp
// trailing edge (naca0012_airfoil.inc). Far field: circle of radius r_far
// chords centred at mid-chord. Sizes grow linearly with the distance from the
// wall (rate `growth`), so a far field 100 chords away costs only about a
// third of the elements.
//
// Parameters (gmsh -setnumber NAME VALUE):
//   level         refinement level (0 = coarsest)
//   n_side0       segments on each airfoil side at level 0
//   n_far0        segments on the far-field circle at level 0 (multiple of 4)
//   r_far         far-field radius (chords)
//   growth0       size growth per unit distance from the wall at level 0
//   end_ratio     wall size at the leading and trailing edges over the size
//                 at mid-side (Gmsh's Bump ratio; default 0.2)
//
// Physical groups: "wall" (airfoil), "farfield" (outer circle), "fluid".

DefineConstant[
  level = {0, Name "Parameters/level"},
  n_side0 = {44, Name "Parameters/n_side0"},
  n_far0 = {24, Name "Parameters/n_far0"},
  r_far = {100, Name "Parameters/r_far"},
  growth0 = {0.27, Name "Parameters/growth0"},
  end_ratio = {0.2, Name "Parameters/end_ratio"}
];
If (end_ratio <= 0 || end_ratio >= 1)
  Error("naca0012_tri.geo: end_ratio must lie in (0, 1), not %g", end_ratio);
  Abort;
EndIf

refine = 2^level;
n_side = n_side0 * refine;
n_far = n_far0 * refine;
growth = growth0 / refine;
// Wall sizes follow Gmsh's Bump law: a parabola in arc length whose value at
// both ends is `bump` times the value at mid-side. For n segments on a side
// of length L this gives a mid-side size of L / n * J / 2 with
// J = ln((1 + sqrt(k)) / (1 - sqrt(k))) / sqrt(k), k = 1 - bump.
bump = end_ratio;
side_length = 1.0172;
bump_k = 1 - bump;
bump_j = Log((1 + Sqrt(bump_k)) / (1 - Sqrt(bump_k))) / Sqrt(bump_k);
h_mid = side_length / n_side * bump_j / 2;
h_end = bump * h_mid;
h_far = 2 * Pi * r_far / n_far;

xc = 0.5;
Include "naca0012_airfoil.inc";

p_c = newp; Point(p_c) = {xc, 0, 0};
f_w = newp; Point(f_w) = {xc - r_far, 0, 0};
f_n = newp; Point(f_n) = {xc, r_far, 0};
f_e = newp; Point(f_e) = {xc + r_far, 0, 0};
f_s = newp; Point(f_s) = {xc, -r_far, 0};
// Counter-clockwise, so that the surface normal is +z and Gmsh writes
// positively oriented elements.
b_en = newc; Circle(b_en) = {f_e, p_c, f_n};
b_nw = newc; Circle(b_nw) = {f_n, p_c, f_w};
b_ws = newc; Circle(b_ws) = {f_w, p_c, f_s};
b_se = newc; Circle(b_se) = {f_s, p_c, f_e};
far[] = {b_en, b_nw, b_ws, b_se};
cl_far = newll; Curve Loop(cl_far) = {far[]};
cl_wall = newll; Curve Loop(cl_wall) = {c_upper, -c_lower};
s_fluid = news; Plane Surface(s_fluid) = {cl_far, cl_wall};

Transfinite Curve {c_upper, c_lower} = n_side + 1 Using Bump bump;
Transfinite Curve {far[]} = n_far / 4 + 1;

// Size field: linear growth away from the wall, from the mid-side size along
// the whole wall and from the end size at the leading and trailing edges.
Field[1] = Distance;
Field[1].CurvesList = {c_upper, c_lower};
Field[1].NumPointsPerCurve = 40 * n_side;
Field[2] = Distance;
Field[2].PointsList = {p_le, p_te};
Field[3] = MathEval;
Field[3].F = Sprintf("%.17g + %.17g * F1", h_mid, growth);
Field[4] = MathEval;
Field[4].F = Sprintf("%.17g + %.17g * F2", h_end, growth);
Field[5] = Min;
Field[5].FieldsList = {3, 4};
Background Field = 5;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.MeshSizeMax = h_far;
Mesh.Algorithm = 6; // Frontal-Delaunay
// Gmsh perturbs points by RandomFactor x the model size (default 1e-9 x 200
// chords = 2e-7) for robust Delaunay predicates. Near the trailing edge the
// wall's sagitta between fine-level nodes is below 1e-7, so the default flips
// nearly collinear wall nodes and leaves sliver triangles on the wall
// (level 3: five with quality 1e-4). 1e-11 keeps the minimum quality at 0.6.
Mesh.RandomFactor = 1e-11;

Physical Curve("wall") = {c_upper, c_lower};
Physical Curve("farfield") = {far[]};
Physical Surface("fluid") = {s_fluid};
