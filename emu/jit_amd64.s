//go:build linux && amd64

#include "textflag.h"

// func jitCall(enter, target uintptr, h unsafe.Pointer)
//
// The one way into translated code. enter is the shared entry stub
// (jitArena.enter): it loads the hart's registers into the host registers
// the translations use (see jit_lower_amd64.go) and jumps to target. A
// translation leaves through the shared exit stub, which stores the exit
// state into h.j and returns here. Translated code never touches SP beyond
// this call's return address, never calls back into Go and never blocks,
// so the goroutine stays where the Go scheduler left it; asynchronous
// preemption signals that arrive meanwhile see a pc outside Go code and
// are retried once this returns.
TEXT ·jitCall(SB), NOSPLIT, $8-24
	MOVQ enter+0(FP), DX
	MOVQ target+8(FP), AX
	MOVQ h+16(FP), R15
	CALL DX
	RET
