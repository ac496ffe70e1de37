#!/bin/sh
# Builds the kv example's initramfs and links it and the guest kernel into
# build/examples/kv/ (see ../gobuild.sh). KV_GZIP=1 builds a gzipped archive.
exec sh "$(dirname "$0")/../gobuild.sh" kv
