// NLR 7301 two-element airfoil (main element + 20 deg flap, gap 2.6 % c,
// overlap 5.3 % c; ERCOFTAC UFR 3-01 / AGARD AR-303 A2), triangles, far
// field a circle of r_far chords. Meant to be meshed at geometric order 2
// (curved walls): `gmsh -2 -order 2 -setnumber level N` or a case file's
// geo_order = 2.
//
// Walls: nlr7301_contour.inc (written by tools/make_nlr7301_inc.py from
// nlr7301-gap26.dat, the exact wall loops of the SAAB/FLOWNET grid; chord 1,
// main-element leading edge near (0, 0)). Each element is one spline from
// the upper trailing-edge corner round the leading edge to the lower corner,
// closed by its finite trailing-edge base as a straight segment (main
// 0.00089 c, flap 0.00115 c).
//
// Mesh size: one law scaled by 1/2^level (about 4x the elements per level):
// h_main on the main element, h_flap on the flap, smaller at the leading
// and trailing edges, h_gap in a box round the gap (several elements across
// its 0.026 c), each growing linearly with the distance (rate growth) up to
// the far-field size.
//
// Parameters (gmsh -setnumber NAME VALUE): level (0..4), r_far (chords),
// sharp_te (0: the finite trailing-edge bases of the data, the default;
// 1: sharp trailing edges: on each element the upper and lower corners
// move to the base's midpoint, the shift fading linearly to zero over the
// last te_taper = 5 % of its chord, so the thickness changes by at most half
// the base, 0.00045 c main and 0.00058 c flap). nlr7301_sharp.geo is this
// file with sharp_te = 1 (what cases/nlr7301 meshes): an inviscid flow
// round the bases' 90-degree corners does not settle at p >= 2
// (cases/nlr7301/README.md).
// Physical groups: "main", "flap" (walls, separate for their forces;
// the case maps both to wall), "farfield", surface "fluid".

DefineConstant[
  level = {0, Name "Parameters/level"},
  r_far = {100, Name "Parameters/r_far"},
  sharp_te = {0, Name "Parameters/sharp_te"}
];
If (level < 0 || level > 4 || level != Round(level))
  Error("nlr7301.geo: level must be 0, 1, 2, 3 or 4 (got %g)", level);
  Abort;
EndIf
If (r_far < 5)
  Error("nlr7301.geo: r_far must be at least 5 chords (got %g)", r_far);
  Abort;
EndIf

Include "nlr7301_contour.inc";
te_taper = 0.05; // sharp_te: the part of each chord over which the base closes

refine = 2^level;
h_main = 0.02 / refine;     // main-element wall
h_flap = 0.01 / refine;     // flap wall (flap chord about 0.32 c)
h_le = 0.003 / refine;      // main leading edge
h_fle = 0.0015 / refine;    // flap leading edge
h_te = 0.0015 / refine;     // trailing edges (bases 0.00089 c, 0.00115 c)
h_gap = 0.004 / refine;     // the gap between the main element and the flap
growth = 0.27 / refine;     // size increase per unit distance
n_far = 24 * refine;        // segments on the far-field circle
h_far = 2 * Pi * r_far / n_far;

// One element: points from the arrays, a spline and the base segment.
// In: el_x[], el_y[], el_n. Out: el_sp, el_te, el_pte, el_pte2, el_ple.
Macro NLRElement
  // the leading edge: the point of smallest x
  i_le = 0;
  For i In {1 : el_n - 1}
    If (el_x[i] < el_x[i_le])
      i_le = i;
    EndIf
  EndFor
  If (sharp_te == 0)
    pl[] = {};
    For i In {0 : el_n - 1}
      pl[] += newp;
      Point(pl[i]) = {el_x[i], el_y[i], 0};
    EndFor
    el_sp = newc;
    Spline(el_sp) = pl[];
    el_te = newc;
    Line(el_te) = {pl[el_n - 1], pl[0]};
    el_pte = pl[0];
    el_pte2 = pl[el_n - 1];
  Else
    // Sharp trailing edge: both corners move to the base's midpoint, the
    // shift fading linearly to zero over the last te_taper of the chord
    // (measured from the leading edge towards that midpoint).
    mx = 0.5 * (el_x[0] + el_x[el_n - 1]);
    my = 0.5 * (el_y[0] + el_y[el_n - 1]);
    cx = mx - el_x[i_le]; cy = my - el_y[i_le];
    cc = cx * cx + cy * cy;
    pl[] = {};
    For i In {0 : el_n - 2}
      s_c = ((el_x[i] - el_x[i_le]) * cx + (el_y[i] - el_y[i_le]) * cy) / cc;
      w = (s_c - (1 - te_taper)) / te_taper;
      If (w < 0)
        w = 0;
      EndIf
      If (i < i_le)
        dx = mx - el_x[0]; dy = my - el_y[0];
      Else
        dx = mx - el_x[el_n - 1]; dy = my - el_y[el_n - 1];
      EndIf
      pl[] += newp;
      Point(pl[i]) = {el_x[i] + w * dx, el_y[i] + w * dy, 0};
    EndFor
    // one spline from the (moved) upper corner round the leading edge to
    // the last lower point before the corner, then a straight segment to
    // the trailing edge (the lower side there is straight to 0.2 deg)
    el_sp = newc;
    Spline(el_sp) = {pl[{0 : el_n - 2}]};
    el_te = newc;
    Line(el_te) = {pl[el_n - 2], pl[0]};
    el_pte = pl[0];
    el_pte2 = pl[0];
  EndIf
  el_ple = pl[i_le];
Return

el_x[] = main_x[]; el_y[] = main_y[]; el_n = main_n;
Call NLRElement;
m_sp = el_sp; m_te = el_te; m_pte = el_pte; m_pte2 = el_pte2; m_ple = el_ple;
el_x[] = flap_x[]; el_y[] = flap_y[]; el_n = flap_n;
Call NLRElement;
f_sp = el_sp; f_te = el_te; f_pte = el_pte; f_pte2 = el_pte2; f_ple = el_ple;

xc = 0.5;
p_c = newp; Point(p_c) = {xc, 0, 0};
f_e = newp; Point(f_e) = {xc + r_far, 0, 0};
f_n = newp; Point(f_n) = {xc, r_far, 0};
f_w = newp; Point(f_w) = {xc - r_far, 0, 0};
f_s = newp; Point(f_s) = {xc, -r_far, 0};
// Counter-clockwise, so that the surface normal is +z and Gmsh writes
// positively oriented elements.
b_en = newc; Circle(b_en) = {f_e, p_c, f_n};
b_nw = newc; Circle(b_nw) = {f_n, p_c, f_w};
b_ws = newc; Circle(b_ws) = {f_w, p_c, f_s};
b_se = newc; Circle(b_se) = {f_s, p_c, f_e};
far[] = {b_en, b_nw, b_ws, b_se};
cl_far = newll; Curve Loop(cl_far) = {far[]};
cl_main = newll; Curve Loop(cl_main) = {m_sp, m_te};
cl_flap = newll; Curve Loop(cl_flap) = {f_sp, f_te};
s_fluid = news; Plane Surface(s_fluid) = {cl_far, cl_main, cl_flap};
Transfinite Curve {far[]} = n_far / 4 + 1;

// Size field: the smallest of the laws below.
Field[1] = Distance;
Field[1].CurvesList = {m_sp, m_te};
Field[1].NumPointsPerCurve = 4000 * refine;
Field[2] = Distance;
Field[2].CurvesList = {f_sp, f_te};
Field[2].NumPointsPerCurve = 2000 * refine;
Field[3] = Distance;
Field[3].PointsList = {m_ple};
Field[4] = Distance;
Field[4].PointsList = {f_ple};
Field[5] = Distance;
Field[5].PointsList = {m_pte, m_pte2, f_pte, f_pte2};
Field[6] = MathEval;
Field[6].F = Sprintf("Min(Min(%.10g + %.10g * F1, %.10g + %.10g * F2), Min(Min(%.10g + %.10g * F3, %.10g + %.10g * F4), Min(%.10g + %.10g * F5, %.10g)))",
  h_main, growth, h_flap, growth, h_le, 2 * growth, h_fle, 2 * growth,
  h_te, 2 * growth, h_far);
// the gap: from the main element's cove and trailing edge over the flap's
// leading edge and upper side
Field[7] = Box;
Field[7].VIn = h_gap;
Field[7].VOut = h_far;
Field[7].XMin = 0.86;
Field[7].XMax = 0.97;
Field[7].YMin = -0.05;
Field[7].YMax = 0.03;
Field[8] = Min;
Field[8].FieldsList = {6, 7};
Background Field = 8;

Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.MeshSizeMax = h_far;
Mesh.Algorithm = 6; // Frontal-Delaunay
Mesh.RandomFactor = 1e-11; // as naca0012_tri.geo: no wall slivers
Mesh.HighOrderOptimize = 2;

Physical Curve("main") = {m_sp, m_te};
Physical Curve("flap") = {f_sp, f_te};
Physical Curve("farfield") = {far[]};
Physical Surface("fluid") = {s_fluid};
