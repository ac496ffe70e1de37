#!/bin/sh
# Builds the seqlock example: the program, build/examples/seqlock/seqlock
# (for everett explore --linux), and the initramfs that boots it as init,
# linked with the guest kernel into build/examples/seqlock/ for spec.yaml
# (see ../gobuild.sh).
exec sh "$(dirname "$0")/../gobuild.sh" seqlock
