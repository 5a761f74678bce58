// NLR 7301 with sharp trailing edges: nlr7301.geo with sharp_te = 1 (its
// header says how the finite bases are closed). The mesh of cases/nlr7301.
// Parameters as nlr7301.geo: level (0..4), r_far (chords).
sharp_te = 1;
Include "nlr7301.geo";
