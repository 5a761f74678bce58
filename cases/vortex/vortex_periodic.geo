// Periodic square [-5, 5]^2 for the isentropic vortex verification case
// (cases/vortex/case.ini): n x n quadrilaterals (or 2 n^2 triangles with
// -setnumber tri 1), periodic in x and y so that the vortex leaves through
// one side and comes back through the other. Structured, so that periodic
// nodes match exactly. No boundary groups (every face is interior); the
// surface is "fluid".
//
// Parameters (gmsh -setnumber NAME VALUE): n (cells per side, >= 3),
// tri (0: quadrilaterals, 1: triangles).

DefineConstant[
  n = {20, Name "Parameters/n"},
  tri = {0, Name "Parameters/tri"}
];

If (n < 3 || n != Round(n))
  Error("vortex_periodic.geo: n must be an integer >= 3 (got %g)", n);
  Abort;
EndIf

L = 5;
Point(1) = {-L, -L, 0};
Point(2) = {L, -L, 0};
Point(3) = {L, L, 0};
Point(4) = {-L, L, 0};
Line(1) = {1, 2}; // bottom
Line(2) = {2, 3}; // right
Line(3) = {4, 3}; // top
Line(4) = {1, 4}; // left
Curve Loop(1) = {1, 2, -3, -4};
Plane Surface(1) = {1};
Transfinite Curve {1:4} = n + 1;
Transfinite Surface {1};
If (tri == 0)
  Recombine Surface {1};
EndIf
Periodic Curve {2} = {4} Translate {2 * L, 0, 0};
Periodic Curve {3} = {1} Translate {0, 2 * L, 0};
Physical Surface("fluid") = {1};
