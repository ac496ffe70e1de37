#!/bin/sh
# Builds the seqlock example's initramfs and links it and the guest kernel
# into build/examples/seqlock/ (see ../gobuild.sh).
exec sh "$(dirname "$0")/../gobuild.sh" seqlock
