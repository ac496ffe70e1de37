/*
 * rvfp: executes RISC-V F and D instructions on cases read from stdin, for
 * the differential test in qemu_test.go. Build it as a static riscv64 Linux
 * program (riscv64-linux-gnu-gcc -static -O2 -march=rv64gc) and run it under
 * qemu-riscv64-static or on real hardware.
 *
 * Input, one case a line:  mnemonic rm a b c   (rm decimal, operands hex)
 * Output, one line a case: result flags        (hex)
 *
 * Single-precision operands are the low 32 bits of a, b, c; fmv.w.x NaN-boxes
 * them. A single-precision result is printed as its 32 bits; an integer
 * result is the whole x register. Every instruction uses the dynamic
 * rounding mode, which the program sets from rm before it runs; fflags is
 * cleared before and read after.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t u64;

#define PRE(rm) asm volatile("fsrm %0\n\tfsflags zero" : : "r"(rm))
#define POST(fl) asm volatile("frflags %0" : "=r"(fl))

/* Floating-point result from two single operands. */
#define S2(insn) \
	asm volatile("fmv.w.x ft0, %1\n\tfmv.w.x ft1, %2\n\t" insn " ft2, ft0, ft1\n\tfmv.x.w %0, ft2" \
		     : "=r"(r) : "r"(a), "r"(b) : "ft0", "ft1", "ft2"); r = (uint32_t)r
#define D2(insn) \
	asm volatile("fmv.d.x ft0, %1\n\tfmv.d.x ft1, %2\n\t" insn " ft2, ft0, ft1\n\tfmv.x.d %0, ft2" \
		     : "=r"(r) : "r"(a), "r"(b) : "ft0", "ft1", "ft2")
#define S1(insn) \
	asm volatile("fmv.w.x ft0, %1\n\t" insn " ft2, ft0\n\tfmv.x.w %0, ft2" \
		     : "=r"(r) : "r"(a) : "ft0", "ft2"); r = (uint32_t)r
#define D1(insn) \
	asm volatile("fmv.d.x ft0, %1\n\t" insn " ft2, ft0\n\tfmv.x.d %0, ft2" \
		     : "=r"(r) : "r"(a) : "ft0", "ft2")
#define S3(insn) \
	asm volatile("fmv.w.x ft0, %1\n\tfmv.w.x ft1, %2\n\tfmv.w.x ft2, %3\n\t" insn " ft3, ft0, ft1, ft2\n\tfmv.x.w %0, ft3" \
		     : "=r"(r) : "r"(a), "r"(b), "r"(c) : "ft0", "ft1", "ft2", "ft3"); r = (uint32_t)r
#define D3(insn) \
	asm volatile("fmv.d.x ft0, %1\n\tfmv.d.x ft1, %2\n\tfmv.d.x ft2, %3\n\t" insn " ft3, ft0, ft1, ft2\n\tfmv.x.d %0, ft3" \
		     : "=r"(r) : "r"(a), "r"(b), "r"(c) : "ft0", "ft1", "ft2", "ft3")
/* Integer result from two single or double operands (compares). */
#define SX2(insn) \
	asm volatile("fmv.w.x ft0, %1\n\tfmv.w.x ft1, %2\n\t" insn " %0, ft0, ft1" \
		     : "=r"(r) : "r"(a), "r"(b) : "ft0", "ft1")
#define DX2(insn) \
	asm volatile("fmv.d.x ft0, %1\n\tfmv.d.x ft1, %2\n\t" insn " %0, ft0, ft1" \
		     : "=r"(r) : "r"(a), "r"(b) : "ft0", "ft1")
/* Integer result from one operand (fclass, fcvt to integer). */
#define SX1(insn) asm volatile("fmv.w.x ft0, %1\n\t" insn " %0, ft0" : "=r"(r) : "r"(a) : "ft0")
#define DX1(insn) asm volatile("fmv.d.x ft0, %1\n\t" insn " %0, ft0" : "=r"(r) : "r"(a) : "ft0")
/* Floating-point result from an integer operand. */
#define XS1(insn) asm volatile(insn " ft0, %1\n\tfmv.x.w %0, ft0" : "=r"(r) : "r"(a) : "ft0"); r = (uint32_t)r
#define XD1(insn) asm volatile(insn " ft0, %1\n\tfmv.x.d %0, ft0" : "=r"(r) : "r"(a) : "ft0")

#define OP(name, body) else if (strcmp(op, name) == 0) { PRE(rm); body; POST(fl); }

int main(void)
{
	char op[32];
	u64 rm, a, b, c;
	static char out[1 << 16];
	setvbuf(stdout, out, _IOFBF, sizeof out);
	while (scanf("%31s %lu %lx %lx %lx", op, &rm, &a, &b, &c) == 5) {
		u64 r = 0, fl = 0;
		if (0) {
		}
		OP("fadd.s", S2("fadd.s")) OP("fsub.s", S2("fsub.s")) OP("fmul.s", S2("fmul.s"))
		OP("fdiv.s", S2("fdiv.s")) OP("fsqrt.s", S1("fsqrt.s"))
		OP("fmadd.s", S3("fmadd.s")) OP("fmsub.s", S3("fmsub.s"))
		OP("fnmsub.s", S3("fnmsub.s")) OP("fnmadd.s", S3("fnmadd.s"))
		OP("fmin.s", S2("fmin.s")) OP("fmax.s", S2("fmax.s"))
		OP("feq.s", SX2("feq.s")) OP("flt.s", SX2("flt.s")) OP("fle.s", SX2("fle.s"))
		OP("fclass.s", SX1("fclass.s"))
		OP("fcvt.w.s", SX1("fcvt.w.s")) OP("fcvt.wu.s", SX1("fcvt.wu.s"))
		OP("fcvt.l.s", SX1("fcvt.l.s")) OP("fcvt.lu.s", SX1("fcvt.lu.s"))
		OP("fcvt.s.w", XS1("fcvt.s.w")) OP("fcvt.s.wu", XS1("fcvt.s.wu"))
		OP("fcvt.s.l", XS1("fcvt.s.l")) OP("fcvt.s.lu", XS1("fcvt.s.lu"))
		OP("fcvt.d.s", asm volatile("fmv.w.x ft0, %1\n\tfcvt.d.s ft1, ft0\n\tfmv.x.d %0, ft1" : "=r"(r) : "r"(a) : "ft0", "ft1"))
		OP("fadd.d", D2("fadd.d")) OP("fsub.d", D2("fsub.d")) OP("fmul.d", D2("fmul.d"))
		OP("fdiv.d", D2("fdiv.d")) OP("fsqrt.d", D1("fsqrt.d"))
		OP("fmadd.d", D3("fmadd.d")) OP("fmsub.d", D3("fmsub.d"))
		OP("fnmsub.d", D3("fnmsub.d")) OP("fnmadd.d", D3("fnmadd.d"))
		OP("fmin.d", D2("fmin.d")) OP("fmax.d", D2("fmax.d"))
		OP("feq.d", DX2("feq.d")) OP("flt.d", DX2("flt.d")) OP("fle.d", DX2("fle.d"))
		OP("fclass.d", DX1("fclass.d"))
		OP("fcvt.w.d", DX1("fcvt.w.d")) OP("fcvt.wu.d", DX1("fcvt.wu.d"))
		OP("fcvt.l.d", DX1("fcvt.l.d")) OP("fcvt.lu.d", DX1("fcvt.lu.d"))
		OP("fcvt.d.w", XD1("fcvt.d.w")) OP("fcvt.d.wu", XD1("fcvt.d.wu"))
		OP("fcvt.d.l", XD1("fcvt.d.l")) OP("fcvt.d.lu", XD1("fcvt.d.lu"))
		OP("fcvt.s.d", asm volatile("fmv.d.x ft0, %1\n\tfcvt.s.d ft1, ft0\n\tfmv.x.w %0, ft1" : "=r"(r) : "r"(a) : "ft0", "ft1"); r = (uint32_t)r)
		else {
			fprintf(stderr, "rvfp: unknown op %s\n", op);
			return 2;
		}
		printf("%lx %lx\n", r, fl);
	}
	return 0;
}
