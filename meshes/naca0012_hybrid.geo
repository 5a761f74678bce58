// NACA0012 hybrid mesh: a structured O-type layer of quadrilaterals around the
// airfoil, triangles from there out to a circular far field. Built to match
// the coarse hybrid mesh of the reference LU-SGS DG study (about 185
// triangles + 1,706 quadrilaterals); the counts this file gives are listed in
// meshes/README.md.
//
// Airfoil: closed-trailing-edge NACA0012 of HiOCFD case C1.3, chord 1, sharp
// trailing edge (naca0012_airfoil.inc).
//
// Parameters (gmsh -setnumber NAME VALUE):
//   n_side        mesh segments on each airfoil side (even)
//   n_layers      quadrilateral layers in the O-type block
//   r_quad        radius of the circle bounding the quadrilateral block
//   n_far         segments on the far-field circle (multiple of 4)
//   r_far         far-field radius (chords)
//   growth        thickness ratio of neighbouring quadrilateral layers
// Both circles are centred at mid-chord (0.5, 0).
//
// Physical groups: "wall" (airfoil), "farfield" (outer circle), "fluid" (all
// surfaces).

DefineConstant[
  n_side = {34, Name "Parameters/n_side"},
  n_layers = {25, Name "Parameters/n_layers"},
  r_quad = {14, Name "Parameters/r_quad"},
  n_far = {20, Name "Parameters/n_far"},
  r_far = {20, Name "Parameters/r_far"},
  growth = {1.2, Name "Parameters/growth"}
];

xc = 0.5;
Include "naca0012_airfoil.inc";

// Circle bounding the quadrilateral block, split at the x axis and at the top
// and bottom so that every arc is below pi.
p_c = newp; Point(p_c) = {xc, 0, 0};
q_w = newp; Point(q_w) = {xc - r_quad, 0, 0};
q_n = newp; Point(q_n) = {xc, r_quad, 0};
q_e = newp; Point(q_e) = {xc + r_quad, 0, 0};
q_s = newp; Point(q_s) = {xc, -r_quad, 0};
a_wn = newc; Circle(a_wn) = {q_w, p_c, q_n};
a_ne = newc; Circle(a_ne) = {q_n, p_c, q_e};
a_ws = newc; Circle(a_ws) = {q_w, p_c, q_s};
a_se = newc; Circle(a_se) = {q_s, p_c, q_e};

// Block cuts: from the leading edge forward, from the trailing edge backward.
l_front = newc; Line(l_front) = {p_le, q_w};
l_wake = newc; Line(l_wake) = {p_te, q_e};

cl_up = newll; Curve Loop(cl_up) = {c_upper, l_wake, -a_ne, -a_wn, -l_front};
s_up = news; Plane Surface(s_up) = {cl_up};
cl_lo = newll; Curve Loop(cl_lo) = {-c_lower, l_front, a_ws, a_se, -l_wake};
s_lo = news; Plane Surface(s_lo) = {cl_lo};

// Far field.
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
cl_quad = newll; Curve Loop(cl_quad) = {a_wn, a_ne, -a_se, -a_ws};
s_tri = news; Plane Surface(s_tri) = {cl_far, cl_quad};

// Wall points clustered at both ends (leading edge and trailing edge), end
// segments a quarter of the mid-side one; the arcs of the block circle
// mildly clustered towards the x axis (ratio arc_ratio between neighbouring
// segments), which keeps the block cells behind the sharp trailing edge less
// skewed (smallest/largest Jacobian 0.41 instead of 0.27 with the opposite
// clustering). Arcs run w -> n -> e and w -> s -> e.
arc_ratio = 1.04;
Transfinite Curve {c_upper, c_lower} = n_side + 1 Using Bump 0.25;
Transfinite Curve {a_ne, a_se} = n_side / 2 + 1 Using Progression 1.0 / arc_ratio;
Transfinite Curve {a_wn, a_ws} = n_side / 2 + 1 Using Progression arc_ratio;
// Geometric growth off the wall, ratio `growth` per layer: the first layer is
// (r_quad - 0.5) (growth - 1) / (growth^n_layers - 1) = 0.029 chords thick,
// the last 2.3 chords (the arc spacing there is 1.1 to 1.5).
Transfinite Curve {l_front, l_wake} = n_layers + 1 Using Progression growth;
Transfinite Curve {far[]} = n_far / 4 + 1;

Transfinite Surface {s_up} = {p_le, p_te, q_e, q_w};
Transfinite Surface {s_lo} = {p_le, p_te, q_e, q_w};
Recombine Surface {s_up, s_lo};

Physical Curve("wall") = {c_upper, c_lower};
Physical Curve("farfield") = {far[]};
Physical Surface("fluid") = {s_up, s_lo, s_tri};

// Fixed so that the triangle count does not depend on the user's defaults.
Mesh.Algorithm = 6; // Frontal-Delaunay
