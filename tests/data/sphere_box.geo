// Unit sphere (group "wall") in the box [-3, 3]^3 (group "farfield"), coarse
// tetrahedra, for the 3D wall-output test (tests/output.cmake: the section
// of the sphere at y = eta is a circle of radius sqrt(1 - eta^2)).
SetFactory("OpenCASCADE");
Box(1) = {-3, -3, -3, 6, 6, 6};
Sphere(2) = {0, 0, 0, 1};
BooleanDifference(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
all() = Boundary{Volume{3};};
wall() = Surface In BoundingBox{-1.01, -1.01, -1.01, 1.01, 1.01, 1.01};
far() = all();
far() -= wall();
Physical Surface("wall") = {wall()};
Physical Surface("farfield") = {far()};
Physical Volume("fluid") = {3};
MeshSize{PointsOf{Volume{3};}} = 1.5;
MeshSize{PointsOf{Surface{wall()};}} = 0.45;
