// Tetrahedral unit box [0,1]^3 with n cells per side.
//   periodic = 0: six boundary groups xmin, xmax, ymin, ymax, zmin, zmax.
//                 structured = 1 (default): transfinite hexahedra cut into 6
//                 tetrahedra each, 6 n^3 tetrahedra, 2 n^2 triangles on each
//                 side; structured = 0: unstructured, mesh size 1/n.
//   periodic = 1: periodic in x, y and z (opposite sides carry identical,
//                 translated surface meshes), no boundary groups. Always
//                 unstructured (mesh size 1/n): Gmsh 4.8 writes no periodic
//                 node links for a transfinite target surface, so a
//                 structured periodic box would lose its periodicity.
//                 Needs n >= 4.
// The volume is "fluid".
//
// Parameters (gmsh -setnumber NAME VALUE): n, periodic (0/1), structured (0/1).

SetFactory("OpenCASCADE");

DefineConstant[
  n = {3, Name "Parameters/n"},
  periodic = {0, Choices{0, 1}, Name "Parameters/periodic"}
];
DefineConstant[
  structured = {1 - periodic, Choices{0, 1}, Name "Parameters/structured"}
];

If (n < 1 || n != Round(n))
  Error("box_tet.geo: n must be a positive integer (got %g)", n);
  Abort;
EndIf
// Fewer cells across a periodic direction let an element touch a node and
// its periodic image, which is no valid mesh once images are identified.
If (periodic && n < 4)
  Error("box_tet.geo: a periodic box needs n >= 4 (got %g)", n);
  Abort;
EndIf
If (periodic && structured)
  Error("box_tet.geo: a periodic box must be unstructured (structured = 0)");
  Abort;
EndIf

// OpenCASCADE numbers the sides of a box x = 0, x = 1, y = 0, y = 1, z = 0, z = 1.
Box(1) = {0, 0, 0, 1, 1, 1};

If (structured)
  Transfinite Curve {:} = n + 1;
  Transfinite Surface {:};
  Transfinite Volume {1};
Else
  MeshSize {:} = 1.0 / n;
EndIf

If (periodic)
  Periodic Surface {2} = {1} Translate {1, 0, 0};
  Periodic Surface {4} = {3} Translate {0, 1, 0};
  Periodic Surface {6} = {5} Translate {0, 0, 1};
Else
  Physical Surface("xmin") = {1};
  Physical Surface("xmax") = {2};
  Physical Surface("ymin") = {3};
  Physical Surface("ymax") = {4};
  Physical Surface("zmin") = {5};
  Physical Surface("zmax") = {6};
EndIf
Physical Volume("fluid") = {1};
