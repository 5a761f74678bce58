// Periodic unit square [0,1]^2, periodic in x and in y, structured so that
// periodic nodes match exactly and counts are exact:
//   kind 0: 2 n^2 triangles (each cell cut along the same diagonal)
//   kind 1: n^2 quadrilaterals
//   kind 2: mixed, x < 0.5 quadrilaterals, x > 0.5 triangles (n even):
//           n^2 / 2 quadrilaterals + n^2 triangles
// Every face is interior (periodic pairs included): 3 n^2, 2 n^2 and
// 5 n^2 / 2 faces respectively. No boundary physical groups; the surface is
// "fluid".
//
// Parameters (gmsh -setnumber NAME VALUE): kind (0, 1, 2), n (cells per side,
// at least 3; even for kind 2).

DefineConstant[
  kind = {1, Choices{0 = "triangles", 1 = "quadrilaterals", 2 = "mixed"},
          Name "Parameters/kind"},
  n = {8, Name "Parameters/n"}
];

If (kind != 0 && kind != 1 && kind != 2)
  Error("square_periodic.geo: kind must be 0, 1 or 2 (got %g)", kind);
  Abort;
EndIf
// Two cells across a periodic direction would make a cell's opposite sides
// the same face once periodic images are identified.
If (n < 3 || n != Round(n) || (kind == 2 && n % 2 != 0))
  Error("square_periodic.geo: n must be an integer >= 3, even for kind 2 (got %g)", n);
  Abort;
EndIf

If (kind != 2)
  Point(1) = {0, 0, 0};
  Point(2) = {1, 0, 0};
  Point(3) = {1, 1, 0};
  Point(4) = {0, 1, 0};
  Line(1) = {1, 2}; // bottom
  Line(2) = {2, 3}; // right
  Line(3) = {4, 3}; // top
  Line(4) = {1, 4}; // left
  Curve Loop(1) = {1, 2, -3, -4};
  Plane Surface(1) = {1};
  Transfinite Curve {1:4} = n + 1;
  Transfinite Surface {1};
  If (kind == 1)
    Recombine Surface {1};
  EndIf
  Periodic Curve {2} = {4} Translate {1, 0, 0};
  Periodic Curve {3} = {1} Translate {0, 1, 0};
  Physical Surface("fluid") = {1};
Else
  Point(1) = {0, 0, 0};
  Point(2) = {0.5, 0, 0};
  Point(3) = {1, 0, 0};
  Point(4) = {1, 1, 0};
  Point(5) = {0.5, 1, 0};
  Point(6) = {0, 1, 0};
  Line(1) = {1, 2}; // bottom, left half
  Line(2) = {2, 3}; // bottom, right half
  Line(3) = {3, 4}; // right
  Line(4) = {6, 5}; // top, left half
  Line(5) = {5, 4}; // top, right half
  Line(6) = {1, 6}; // left
  Line(7) = {2, 5}; // middle
  Curve Loop(1) = {1, 7, -4, -6};
  Plane Surface(1) = {1};
  Curve Loop(2) = {2, 3, -5, -7};
  Plane Surface(2) = {2};
  Transfinite Curve {1, 2, 4, 5} = n / 2 + 1;
  Transfinite Curve {3, 6, 7} = n + 1;
  Transfinite Surface {1, 2};
  Recombine Surface {1};
  Periodic Curve {3} = {6} Translate {1, 0, 0};
  Periodic Curve {4} = {1} Translate {0, 1, 0};
  Periodic Curve {5} = {2} Translate {0, 1, 0};
  Physical Surface("fluid") = {1, 2};
EndIf
