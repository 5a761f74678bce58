#!/usr/bin/env bash
# Fetches the Debian packages the build needs that the GPU machine lacks
# (libinih; METIS for distributed runs) into .deps/debs and unpacks them into .deps/root, so a device
# run can `carry` .deps and configure with -DCOLORDG_DEPS_PREFIX=$PWD/.deps/root.
# The GPU machine has no Gmsh: it reads .cdgm meshes only.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs .deps/root
(cd .deps/debs && apt-get download libinih-dev libinih1 libmetis-dev libmetis5 >/dev/null)
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps/root; done
# Link the static archive only: the device has no libinih shared library on its loader path.
rm -f .deps/root/usr/lib/x86_64-linux-gnu/libinih.so* .deps/root/usr/lib/x86_64-linux-gnu/libINIReader.so*
du -sh .deps
