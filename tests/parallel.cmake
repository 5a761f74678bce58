# Distributed runs (src/parallel, src/mesh/partition): the communicator
# under mpirun with 1, 2 and 3 ranks (label mpi, only in a build with MPI:
# colordg_add_mpi_test), and the partitioner (one process; without METIS it
# checks that more than one part is refused).
colordg_add_test(NAME test_partition SOURCES unit/test_partition.c LABELS unit mesh)
