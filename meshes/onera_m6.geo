// ONERA M6 half wing in a half-sphere far field (inviscid; tetrahedra).
//
// Planform (AGARD AR-138): semispan b = 1.1963, root chord 0.8059,
// leading-edge sweep 30 deg, trailing-edge sweep 15.8 deg, no twist, the same
// streamwise section at every station (onera_m6_profile.inc: ONERA D in
// streamwise coordinates, blunt trailing edge), flat tip. Span along +y, the
// root at the symmetry plane y = 0, chord along +x, thickness along z.
// Reference area 0.7532, mean aerodynamic chord 0.64607 (case file).
//
// Far field: half sphere of radius r_far semispans, centred at the mid root
// chord. Physical groups: "wall" (wing surface, tip and trailing-edge base),
// "symmetry" (y = 0), "farfield", volume "fluid".
//
// Mesh size: one law scaled by 1/1.65^level (about 4x the elements per
// level): on the wing c(y)/n_chord, finer at the leading and trailing edges
// (c(y)/n_le, c(y)/n_te), growing linearly with the distance from the wall
// (rate growth) up to r_far/4.
//
// Parameters (gmsh -setnumber NAME VALUE): level (0..3), r_far.

SetFactory("OpenCASCADE");
Include "onera_m6_profile.inc";

DefineConstant[
  level = {0, Name "Parameters/level"},
  r_far = {12.5, Name "Parameters/r_far"}
];
If (level < 0 || level > 4 || level != Round(level))
  Error("onera_m6.geo: level must be 0, 1, 2, 3 or 4 (got %g)", level);
  Abort;
EndIf
If (r_far < 2)
  Error("onera_m6.geo: r_far must be at least 2 semispans (got %g)", r_far);
  Abort;
EndIf

b = 1.1963;
c0 = 0.8059;
tle = Tan(30 * Pi / 180);
tte = Tan(15.8 * Pi / 180);
refine = 1.65^level;
n_chord = 7.7 * refine;  // wall elements per local chord
// at the leading edge; at least 96 per chord: with 64 at level 0 one
// leading-edge tetrahedron came out with min/max det J = 0.074 (wall
// triangles spanning half the nose circle, radius 0.015 c), its shock-capturing
// viscosity block was unstable and p = 2 diverged (docs/VALIDATION_ONERA_M6.md);
// with 96 the worst is 0.40. Levels >= 1 are unchanged (64 x 1.65^level > 96).
n_le = Max(96, 64 * refine);
n_te = 26 * refine;    // at the trailing edge
growth = 0.27 / refine; // size increase per unit distance from the wall
h_far = r_far * b / 4;

// One closed section wire at span station ys: a spline from the upper
// trailing edge round the leading edge to the lower trailing edge, closed
// by the straight trailing-edge base.
Macro M6Section
  x0 = ys * tle;
  cs = c0 + ys * (tte - tle);
  pl[] = {};
  For i In {m6_n - 1 : 0 : -1}
    pl[] += newp;
    Point(pl[#pl[] - 1]) = {x0 + cs * m6_x[i], ys, cs * m6_z[i]};
  EndFor
  For i In {1 : m6_n - 1}
    pl[] += newp;
    Point(pl[#pl[] - 1]) = {x0 + cs * m6_x[i], ys, -cs * m6_z[i]};
  EndFor
  s_sp = newc;
  Spline(s_sp) = pl[];
  s_te = newc;
  Line(s_te) = {pl[#pl[] - 1], pl[0]};
  s_w = newll;
  Wire(s_w) = {s_sp, s_te};
Return

ys = 0;
Call M6Section;
w_root = s_w;
ys = b;
Call M6Section;
w_tip = s_w;

wing = newv;
Ruled ThruSections(wing) = {w_root, w_tip};
R = r_far * b;
xc = 0.5 * c0;
far = newv;
// The upper half of a sphere turned so that its pole is on +y: the flat
// face (a disc) is the symmetry plane, and no pole of the sphere's
// parametrisation lies on the plane's edge.
Sphere(far) = {xc, 0, 0, R, 0, Pi / 2, 2 * Pi};
Rotate {{1, 0, 0}, {xc, 0, 0}, -Pi / 2} { Volume{far}; }
fluid[] = BooleanDifference{ Volume{far}; Delete; }{ Volume{wing}; Delete; };

eps = 1e-6;
sym[] = Surface In BoundingBox{-2 * R, -eps, -2 * R, 2 * R, eps, 2 * R};
wall[] = Surface In BoundingBox{-0.01, -eps, -0.1, c0 + b * tte + 0.01, b + 0.01, 0.1};
all[] = Surface{:};
farf[] = all[];
farf[] -= sym[];
farf[] -= wall[];
If (#sym[] == 0 || #wall[] == 0 || #farf[] == 0)
  Error("onera_m6.geo: could not identify the boundary surfaces");
  Abort;
EndIf
// The blunt trailing-edge base is a strip 0.0014 local chords high: one
// element across it (a transfinite strip) keeps it from filling the wake
// with tiny tetrahedra.
te_base[] = Surface In BoundingBox{c0 - 0.01, -eps, -0.01, c0 + b * tte + 0.01, b + eps, 0.01};
If (#te_base[] != 1)
  Error("onera_m6.geo: found %g trailing-edge base surfaces, expected 1", #te_base[]);
  Abort;
EndIf
te_curves[] = Abs(Boundary{ Surface{te_base[0]}; });
n_span = Round(14 * refine);
For i In {0 : #te_curves[] - 1}
  bb[] = BoundingBox Curve{te_curves[i]};
  If (bb[4] - bb[1] > 0.5 * b)
    Transfinite Curve{te_curves[i]} = n_span + 1;
  Else
    Transfinite Curve{te_curves[i]} = 2;
  EndIf
EndFor
Transfinite Surface{te_base[0]};

Physical Surface("wall") = wall[];
Physical Surface("symmetry") = sym[];
Physical Surface("farfield") = farf[];
Physical Volume("fluid") = fluid[];

// Size field: the smallest of the wall law, the leading-edge law, the
// trailing-edge law and h_far.
Field[1] = Distance;
Field[1].FacesList = {wall[]}; // Gmsh 4.8 name (SurfacesList in later versions)
// Gmsh strings cannot be pasted into Sprintf, so each term is written out:
// (y clamped to [0, b]) chord c0 + y (tte - tle); distances from the
// leading-edge line x = y tle and the trailing-edge line x = c0 + y tte
// (segments: y clamped to [0, b], plus the distance beyond the tip).
Field[2] = MathEval;
Field[2].F = Sprintf(StrCat(
  "Min(Min((%.10g - Min(Max(y, 0), %.10g) * %.10g) / %.10g + %.10g * F1, ",
  "(%.10g - Min(Max(y, 0), %.10g) * %.10g) / %.10g + %.10g * Sqrt((x - Min(Max(y, 0), %.10g) * %.10g)^2 + Max(y - %.10g, 0)^2 + z^2)), ",
  "Min((%.10g - Min(Max(y, 0), %.10g) * %.10g) / %.10g + %.10g * Sqrt((x - %.10g - Min(Max(y, 0), %.10g) * %.10g)^2 + Max(y - %.10g, 0)^2 + z^2), %.10g))"),
  c0, b, tle - tte, n_chord, growth,
  c0, b, tle - tte, n_le, 2 * growth, b, tle, b,
  c0, b, tle - tte, n_te, 2 * growth, c0, b, tte, b, h_far);
Background Field = 2;

Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm = 6;
Mesh.Optimize = 1;
// Curving: Gmsh's high-order optimisation alone (Mesh.HighOrderOptimize =
// 1), which moves nodes only around elements that curving made invalid, so
// an element without a curved boundary edge keeps its edges straight and is
// affine: 76 % of level 0, 86 % of level 1 (the elastic pass, = 2, used for
// levels 0 and 1 until 2026-11-28, moved the nodes of every element; worst
// min/max det J then 0.40 / 0.49, now 0.30 / 0.40). Levels 0 and 1:
// Delaunay. From level 2 on: HXT. With Delaunay, level 2 kept one sliver at
// the wall that curving folded (scaled Jacobian -0.083 after the elastic
// pass, "Optimization failed"), and the elastic pass took 5.4 GB; with HXT
// the worst min/max det J is 0.58 and Gmsh needs 0.19 GB (meshes/README.md).
Mesh.HighOrderOptimize = 1;
If (level >= 2)
  Mesh.Algorithm3D = 10;
Else
  Mesh.Algorithm3D = 1;
EndIf
