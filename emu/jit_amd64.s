//go:build linux && amd64

#include "textflag.h"

// func jitCall(enter, target uintptr, h unsafe.Pointer)
//
// The one way into translated code. enter is the shared entry stub
// (jitArena.enter): it loads the hart's registers into the host registers
// the translations use (see jit_lower_amd64.go) and jumps to target. A
// translation leaves through the shared exit stub, which stores the exit
// state into h.j and returns here. Translated code uses no stack but this
// call's return address and, below it, the return address of its calls to
// the arena's coverage stub or line-check stubs, which call nothing (8
// bytes: far inside what Go leaves below a NOSPLIT frame), never calls
// back into Go and never blocks,
// so the goroutine stays where the Go scheduler left it; asynchronous
// preemption signals that arrive meanwhile see a pc outside Go code and
// are retried once this returns.
TEXT ·jitCall(SB), NOSPLIT, $8-24
	MOVQ enter+0(FP), DX
	MOVQ target+8(FP), AX
	MOVQ h+16(FP), R15
	CALL DX
	RET
