package testelf

// CountingProgram is a bare-metal program for engine comparisons, to be
// assembled at 0x8000_0000: every hart counts in a0 and stores the count
// into a 2 KiB ring of its own in RAM (at 0x8001_0000 + hart*4 KiB),
// forever. Its loop starts at instruction 8 (0x8000_0020).
var CountingProgram = []string{
	"csrr t0,mhartid", // 80000000
	"slli t1,t0,12",
	"addi t2,zero,1",
	"slli t2,t2,31",
	"lui t3,0x10", // 80000010
	"add t2,t2,t3",
	"add t2,t2,t1", // t2 = 0x8001_0000 + hart*4 KiB
	"addi a0,zero,0",
	"addi a0,a0,1", // 80000020: loop
	"andi a1,a0,255",
	"slli a1,a1,3",
	"add a2,t2,a1",
	"sd a0,0(a2)", // 80000030
	"j 80000020",
}
