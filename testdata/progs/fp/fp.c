/* fp: F and D corner cases (unpriv spec ch. 11 "F", ch. 12 "D"): every
 * arithmetic op under every static rounding mode and under dynamic rounding
 * with each frm, with the exception flags each op raises (fflags cleared
 * before each op); NaN-boxing of single values in D registers (§12.2),
 * canonical NaNs (§11.3), signaling NaN inputs, fmin/fmax with NaNs and
 * ±0 (§11.6), conversions' saturation for NaN, ±inf and out-of-range
 * values (§11.7 table 11.4), fcvt.s.d/fcvt.d.s, subnormals, fma with
 * inf*0+qNaN, division by zero, sqrt of negatives and fclass of every
 * class. Results are printed as bits/flags; the cases the spec pins down
 * are also self-checked. */
#include "rt.h"

#define BOX(v) (0xffffffff00000000UL | (u32)(v))

static const u64 sv[] = {
	BOX(0x00000000), BOX(0x80000000), BOX(0x3f800000), BOX(0xbf800000), BOX(0x3fc00000),
	BOX(0x00000001), BOX(0x007fffff), BOX(0x00800000), BOX(0x7f7fffff), BOX(0x7f800000),
	BOX(0xff800000), BOX(0x7fc00000), BOX(0x7fc12345), BOX(0x7f800001), BOX(0xffc00000),
	BOX(0x4f000000), BOX(0x3dcccccd), BOX(0x40400000), 0x000000003f800000 /* not boxed */,
	BOX(0x5f000000), BOX(0xcf000001),
};
static const u64 dv[] = {
	0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000,
	0x3ff8000000000000, 0x0000000000000001, 0x000fffffffffffff, 0x0010000000000000,
	0x7fefffffffffffff, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
	0x7ff8000000012345, 0x7ff0000000000001, 0xfff8000000000000, 0x41e0000000000000,
	0x3fb999999999999a, 0x4008000000000000, 0x43e0000000000000, 0xc1e0000000200000,
	0x36a0000000000000, 0x47efffffe0000000,
};
#define NS (sizeof sv / sizeof sv[0])
#define ND (sizeof dv / sizeof dv[0])

static u64 fl; /* flags of the last op */

/* R3: binary op with rounding mode rm, f registers in and out. */
#define R3(fn, insn, rm)                                                                          \
	static u64 fn(u64 a, u64 b)                                                               \
	{                                                                                         \
		u64 r;                                                                            \
		asm volatile("csrw fflags, x0\n fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n" insn         \
			     " ft2, ft0, ft1, " rm "\n fmv.x.d %0, ft2\n csrr %1, fflags"         \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a), "r"(b)                                                     \
			     : "ft0", "ft1", "ft2");                                              \
		return r;                                                                         \
	}
/* R2: binary op without rounding mode (sign injection, min/max). */
#define R2(fn, insn)                                                                              \
	static u64 fn(u64 a, u64 b)                                                               \
	{                                                                                         \
		u64 r;                                                                            \
		asm volatile("csrw fflags, x0\n fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n" insn         \
			     " ft2, ft0, ft1\n fmv.x.d %0, ft2\n csrr %1, fflags"                 \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a), "r"(b)                                                     \
			     : "ft0", "ft1", "ft2");                                              \
		return r;                                                                         \
	}
/* CMP: comparison into an x register. */
#define CMP(fn, insn)                                                                             \
	static u64 fn(u64 a, u64 b)                                                               \
	{                                                                                         \
		u64 r;                                                                            \
		asm volatile("csrw fflags, x0\n fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n" insn         \
			     " %0, ft0, ft1\n csrr %1, fflags"                                    \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a), "r"(b)                                                     \
			     : "ft0", "ft1");                                                     \
		return r;                                                                         \
	}
/* U: unary f -> f with rounding mode. */
#define UF(fn, insn, rm)                                                                          \
	static u64 fn(u64 a, u64 b)                                                               \
	{                                                                                         \
		u64 r;                                                                            \
		(void)b;                                                                          \
		asm volatile("csrw fflags, x0\n fmv.d.x ft0, %2\n" insn " ft2, ft0, " rm          \
			     "\n fmv.x.d %0, ft2\n csrr %1, fflags"                                \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a)                                                             \
			     : "ft0", "ft2");                                                     \
		return r;                                                                         \
	}
/* FX: unary f -> x with rounding mode (conversions to integers). */
#define FX(fn, insn, rm)                                                                          \
	static u64 fn(u64 a, u64 b)                                                               \
	{                                                                                         \
		u64 r;                                                                            \
		(void)b;                                                                          \
		asm volatile("csrw fflags, x0\n fmv.d.x ft0, %2\n" insn " %0, ft0, " rm           \
			     "\n csrr %1, fflags"                                                 \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a)                                                             \
			     : "ft0");                                                            \
		return r;                                                                         \
	}
/* XF: unary x -> f with rounding mode (conversions from integers). */
#define XF(fn, insn, rm)                                                                          \
	static u64 fn(u64 a, u64 b)                                                               \
	{                                                                                         \
		u64 r;                                                                            \
		(void)b;                                                                          \
		asm volatile("csrw fflags, x0\n" insn " ft2, %2, " rm "\n fmv.x.d %0, ft2\n"      \
			     " csrr %1, fflags"                                                   \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a)                                                             \
			     : "ft2");                                                            \
		return r;                                                                         \
	}

/* every rounding mode: five static ones and dyn (run with each frm) */
#define RMS(M, name, insn)                                                                        \
	M(name##_rne, insn, "rne") M(name##_rtz, insn, "rtz") M(name##_rdn, insn, "rdn")          \
	M(name##_rup, insn, "rup") M(name##_rmm, insn, "rmm") M(name##_dyn, insn, "dyn")
#define RMT(name) {name##_rne, name##_rtz, name##_rdn, name##_rup, name##_rmm, name##_dyn}

typedef u64 (*op2)(u64, u64);
RMS(R3, fadd_s, "fadd.s") RMS(R3, fsub_s, "fsub.s") RMS(R3, fmul_s, "fmul.s") RMS(R3, fdiv_s, "fdiv.s")
RMS(R3, fadd_d, "fadd.d") RMS(R3, fsub_d, "fsub.d") RMS(R3, fmul_d, "fmul.d") RMS(R3, fdiv_d, "fdiv.d")
RMS(UF, fsqrt_s, "fsqrt.s") RMS(UF, fsqrt_d, "fsqrt.d")
RMS(UF, fcvt_s_d, "fcvt.s.d")
RMS(FX, fcvt_w_s, "fcvt.w.s") RMS(FX, fcvt_wu_s, "fcvt.wu.s") RMS(FX, fcvt_l_s, "fcvt.l.s")
RMS(FX, fcvt_lu_s, "fcvt.lu.s") RMS(FX, fcvt_w_d, "fcvt.w.d") RMS(FX, fcvt_wu_d, "fcvt.wu.d")
RMS(FX, fcvt_l_d, "fcvt.l.d") RMS(FX, fcvt_lu_d, "fcvt.lu.d")
RMS(XF, fcvt_s_w, "fcvt.s.w") RMS(XF, fcvt_s_wu, "fcvt.s.wu") RMS(XF, fcvt_s_l, "fcvt.s.l")
RMS(XF, fcvt_s_lu, "fcvt.s.lu") RMS(XF, fcvt_d_l, "fcvt.d.l") RMS(XF, fcvt_d_lu, "fcvt.d.lu")
/* exact conversions take no rounding mode */
static u64 fcvt_d_s(u64 a, u64 b)
{
	u64 r;
	(void)b;
	asm volatile("csrw fflags, x0\n fmv.d.x ft0, %2\n fcvt.d.s ft2, ft0\n fmv.x.d %0, ft2\n csrr %1, fflags"
		     : "=&r"(r), "=&r"(fl)
		     : "r"(a)
		     : "ft0", "ft2");
	return r;
}
#define XF0(fn, insn)                                                                             \
	static u64 fn(u64 a, u64 b)                                                               \
	{                                                                                         \
		u64 r;                                                                            \
		(void)b;                                                                          \
		asm volatile("csrw fflags, x0\n" insn " ft2, %2\n fmv.x.d %0, ft2\n csrr %1, fflags" \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a)                                                             \
			     : "ft2");                                                            \
		return r;                                                                         \
	}
XF0(fcvt_d_w, "fcvt.d.w") XF0(fcvt_d_wu, "fcvt.d.wu")
R2(fmin_s, "fmin.s") R2(fmax_s, "fmax.s") R2(fmin_d, "fmin.d") R2(fmax_d, "fmax.d")
R2(fsgnj_s, "fsgnj.s") R2(fsgnjn_s, "fsgnjn.s") R2(fsgnjx_s, "fsgnjx.s")
R2(fsgnj_d, "fsgnj.d") R2(fsgnjn_d, "fsgnjn.d") R2(fsgnjx_d, "fsgnjx.d")
CMP(feq_s, "feq.s") CMP(flt_s, "flt.s") CMP(fle_s, "fle.s")
CMP(feq_d, "feq.d") CMP(flt_d, "flt.d") CMP(fle_d, "fle.d")

static const char *rmname[] = {"rne", "rtz", "rdn", "rup", "rmm", "dyn"};

static const struct {
	const char *name;
	op2 fn[6];
	int dbl;
} arith[] = {
	{"fadd.s", RMT(fadd_s), 0}, {"fsub.s", RMT(fsub_s), 0}, {"fmul.s", RMT(fmul_s), 0},
	{"fdiv.s", RMT(fdiv_s), 0}, {"fadd.d", RMT(fadd_d), 1}, {"fsub.d", RMT(fsub_d), 1},
	{"fmul.d", RMT(fmul_d), 1}, {"fdiv.d", RMT(fdiv_d), 1},
};

static const struct {
	const char *name;
	op2 fn[6];
	int src; /* 0 single, 1 double, 2 integer */
} unary[] = {
	{"fsqrt.s", RMT(fsqrt_s), 0}, {"fsqrt.d", RMT(fsqrt_d), 1}, {"fcvt.s.d", RMT(fcvt_s_d), 1},
	{"fcvt.w.s", RMT(fcvt_w_s), 0}, {"fcvt.wu.s", RMT(fcvt_wu_s), 0}, {"fcvt.l.s", RMT(fcvt_l_s), 0},
	{"fcvt.lu.s", RMT(fcvt_lu_s), 0}, {"fcvt.w.d", RMT(fcvt_w_d), 1}, {"fcvt.wu.d", RMT(fcvt_wu_d), 1},
	{"fcvt.l.d", RMT(fcvt_l_d), 1}, {"fcvt.lu.d", RMT(fcvt_lu_d), 1}, {"fcvt.s.w", RMT(fcvt_s_w), 2},
	{"fcvt.s.wu", RMT(fcvt_s_wu), 2}, {"fcvt.s.l", RMT(fcvt_s_l), 2}, {"fcvt.s.lu", RMT(fcvt_s_lu), 2},
	{"fcvt.d.l", RMT(fcvt_d_l), 2}, {"fcvt.d.lu", RMT(fcvt_d_lu), 2},
};

static const struct {
	const char *name;
	op2 fn;
	int dbl;
} plain[] = {
	{"fmin.s", fmin_s, 0}, {"fmax.s", fmax_s, 0}, {"fmin.d", fmin_d, 1}, {"fmax.d", fmax_d, 1},
	{"fsgnj.s", fsgnj_s, 0}, {"fsgnjn.s", fsgnjn_s, 0}, {"fsgnjx.s", fsgnjx_s, 0},
	{"fsgnj.d", fsgnj_d, 1}, {"fsgnjn.d", fsgnjn_d, 1}, {"fsgnjx.d", fsgnjx_d, 1},
	{"feq.s", feq_s, 0}, {"flt.s", flt_s, 0}, {"fle.s", fle_s, 0},
	{"feq.d", feq_d, 1}, {"flt.d", flt_d, 1}, {"fle.d", fle_d, 1},
	{"fcvt.d.s", fcvt_d_s, 0}, {"fcvt.d.w", fcvt_d_w, 2}, {"fcvt.d.wu", fcvt_d_wu, 2},
};

static const u64 iv[] = {
	0, 1, 0xffffffffffffffff, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffff,
	0x8000000000000000, 0x0000000001000001, 0x00000000ffffff7f, 0x0020000000000001,
	0xfffffffffffffffb, 0x123456789abcdef1,
};
#define NI (sizeof iv / sizeof iv[0])

/* fma: four ops, all rounding modes via frm (dyn), triples of values */
#define FMA(fn, insn)                                                                             \
	static u64 fn(u64 a, u64 b, u64 c)                                                        \
	{                                                                                         \
		u64 r;                                                                            \
		asm volatile("csrw fflags, x0\n fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n"              \
			     " fmv.d.x ft3, %4\n" insn " ft2, ft0, ft1, ft3\n fmv.x.d %0, ft2\n"  \
			     " csrr %1, fflags"                                                   \
			     : "=&r"(r), "=&r"(fl)                                                \
			     : "r"(a), "r"(b), "r"(c)                                             \
			     : "ft0", "ft1", "ft2", "ft3");                                       \
		return r;                                                                         \
	}
FMA(fmadd_s, "fmadd.s") FMA(fmsub_s, "fmsub.s") FMA(fnmadd_s, "fnmadd.s") FMA(fnmsub_s, "fnmsub.s")
FMA(fmadd_d, "fmadd.d") FMA(fmsub_d, "fmsub.d") FMA(fnmadd_d, "fnmadd.d") FMA(fnmsub_d, "fnmsub.d")

static u64 fclass(u64 a, int dbl)
{
	u64 r;
	if (dbl)
		asm volatile("fmv.d.x ft0, %1\n fclass.d %0, ft0" : "=r"(r) : "r"(a) : "ft0");
	else
		asm volatile("fmv.d.x ft0, %1\n fclass.s %0, ft0" : "=r"(r) : "r"(a) : "ft0");
	return r;
}

/* Dynamic rounding (rm = dyn) must give exactly the results and flags of
 * the static mode in frm: checked for every operand pair, not printed. */
static void print_arith(void)
{
	for (unsigned k = 0; k < sizeof arith / sizeof arith[0]; k++) {
		const u64 *v = arith[k].dbl ? dv : sv;
		unsigned n = arith[k].dbl ? ND : NS;
		for (int rm = 0; rm < 5; rm++) {
			csr_write(frm, rm);
			for (unsigned i = 0; i < n; i++) {
				rt_printf("%s %s %lx:", arith[k].name, rmname[rm], v[i]);
				for (unsigned j = 0; j < n; j++) {
					u64 r = arith[k].fn[rm](v[i], v[j]), f = fl;
					rt_printf(" %lx/%lx", arith[k].dbl ? r : r & 0xffffffff, f);
					if (!arith[k].dbl)
						CHECK_EQ(r >> 32, 0xffffffff); /* NaN-boxed */
					CHECK_EQ(arith[k].fn[5](v[i], v[j]), r);
					CHECK_EQ(fl, f);
				}
				rt_printf("\n");
			}
		}
	}
	csr_write(frm, 0);
}

static void print_unary(void)
{
	for (unsigned k = 0; k < sizeof unary / sizeof unary[0]; k++) {
		const u64 *v = unary[k].src == 2 ? iv : unary[k].src ? dv : sv;
		unsigned n = unary[k].src == 2 ? NI : unary[k].src ? ND : NS;
		for (int rm = 0; rm < 5; rm++) {
			csr_write(frm, rm);
			rt_printf("%s %s:", unary[k].name, rmname[rm]);
			for (unsigned i = 0; i < n; i++) {
				u64 r = unary[k].fn[rm](v[i], 0), f = fl;
				rt_printf(" %lx/%lx", r, f);
				CHECK_EQ(unary[k].fn[5](v[i], 0), r);
				CHECK_EQ(fl, f);
			}
			rt_printf("\n");
		}
	}
	csr_write(frm, 0);
	for (unsigned k = 0; k < sizeof plain / sizeof plain[0]; k++) {
		const u64 *v = plain[k].dbl == 2 ? iv : plain[k].dbl ? dv : sv;
		unsigned n = plain[k].dbl == 2 ? NI : plain[k].dbl ? ND : NS;
		for (unsigned i = 0; i < n; i++) {
			rt_printf("%s %lx:", plain[k].name, v[i]);
			for (unsigned j = 0; j < n; j++)
				rt_printf(" %lx/%lx", plain[k].fn(v[i], v[j]), fl);
			rt_printf("\n");
		}
	}
	rt_printf("fclass.s:");
	for (unsigned i = 0; i < NS; i++)
		rt_printf(" %lx", fclass(sv[i], 0));
	rt_printf("\nfclass.d:");
	for (unsigned i = 0; i < ND; i++)
		rt_printf(" %lx", fclass(dv[i], 1));
	rt_printf("\n");
}

static void print_fma(void)
{
	static const u64 s3[] = {BOX(0x7f800000), BOX(0x00000000), BOX(0x7fc00000), BOX(0x3f800000),
				 BOX(0x80000000), BOX(0x7f7fffff), BOX(0x00000001), BOX(0x7f800001),
				 BOX(0xbf800000)};
	static const u64 d3[] = {0x7ff0000000000000, 0x0000000000000000, 0x7ff8000000000000,
				 0x3ff0000000000000, 0x8000000000000000, 0x7fefffffffffffff,
				 0x0000000000000001, 0x7ff0000000000001, 0xbff0000000000000};
	static u64 (*const fs[])(u64, u64, u64) = {fmadd_s, fmsub_s, fnmadd_s, fnmsub_s,
						    fmadd_d, fmsub_d, fnmadd_d, fnmsub_d};
	static const char *const names[] = {"fmadd.s", "fmsub.s", "fnmadd.s", "fnmsub.s",
					     "fmadd.d", "fmsub.d", "fnmadd.d", "fnmsub.d"};
	for (int k = 0; k < 8; k++) {
		const u64 *v = k < 4 ? s3 : d3;
		for (int frm = 0; frm < 5; frm += 3) {
			csr_write(frm, frm);
			for (int i = 0; i < 9; i++) {
				rt_printf("%s frm%d %lx:", names[k], frm, v[i]);
				for (int j = 0; j < 9; j++)
					for (int c = 0; c < 9; c += 2)
						rt_printf(" %lx/%lx", fs[k](v[i], v[j], v[c]), fl);
				rt_printf("\n");
			}
		}
	}
	csr_write(frm, 0);
}

static void checks(void)
{
	const u64 dinf = 0x7ff0000000000000, dqnan = 0x7ff8000000000000, dsnan = 0x7ff0000000000001;
	const u64 sinf = BOX(0x7f800000), sqnan = BOX(0x7fc00000), ssnan = BOX(0x7f800001);
	/* canonical NaN results (§11.3) */
	CHECK_EQ(fadd_d_rne(dinf, 0xfff0000000000000), dqnan);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fadd_s_rne(ssnan, BOX(0x3f800000)), sqnan);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fadd_d_rne(0x7ff8000000012345, 0x3ff0000000000000), dqnan); /* payload not propagated */
	CHECK_EQ(fl, 0);
	/* improperly NaN-boxed single inputs read as the canonical NaN (§12.2) */
	CHECK_EQ(fadd_s_rne(0x000000003f800000, BOX(0x3f800000)), sqnan);
	CHECK_EQ(fsgnj_s(0x000000003f800000, BOX(0x3f800000)), BOX(0x7fc00000));
	/* fdiv by zero: DZ, inf; 0/0: NV, NaN */
	CHECK_EQ(fdiv_d_rne(0x3ff0000000000000, 0x8000000000000000), 0xfff0000000000000);
	CHECK_EQ(fl, 0x08);
	CHECK_EQ(fdiv_s_rne(BOX(0), BOX(0)), sqnan);
	CHECK_EQ(fl, 0x10);
	/* sqrt of a negative: NV; sqrt(-0) = -0 */
	CHECK_EQ(fsqrt_d_rne(0xbff0000000000000, 0), dqnan);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fsqrt_s_rne(BOX(0x80000000), 0), BOX(0x80000000));
	CHECK_EQ(fl, 0);
	/* fmin/fmax (§11.6): one NaN -> the other operand; sNaN sets NV;
	 * -0 < +0 */
	CHECK_EQ(fmin_d(dqnan, 0x3ff0000000000000), 0x3ff0000000000000);
	CHECK_EQ(fl, 0);
	CHECK_EQ(fmax_d(dsnan, 0x3ff0000000000000), 0x3ff0000000000000);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fmin_s(sqnan, sqnan), sqnan);
	CHECK_EQ(fmin_d(0, 0x8000000000000000), 0x8000000000000000);
	CHECK_EQ(fmax_d(0x8000000000000000, 0), 0);
	CHECK_EQ(fmax_s(BOX(0x80000000), BOX(0)), BOX(0));
	/* comparisons: feq quiet on qNaN, flt/fle signal on any NaN */
	CHECK_EQ(feq_d(dqnan, dqnan), 0);
	CHECK_EQ(fl, 0);
	CHECK_EQ(feq_d(dsnan, 0), 0);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(flt_d(dqnan, 0), 0);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fle_s(BOX(0x80000000), BOX(0)), 1);
	/* conversions saturate (§11.7 table 11.4) */
	CHECK_EQ(fcvt_w_d_rne(dqnan, 0), 0x7fffffff);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fcvt_w_d_rne(0xfff0000000000000, 0), 0xffffffff80000000);
	CHECK_EQ(fcvt_wu_d_rne(0xbff0000000000000, 0), 0);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fcvt_wu_s_rtz(BOX(0xbf000000), 0), 0); /* -0.5 rounds to 0: inexact only */
	CHECK_EQ(fl, 0x01);
	CHECK_EQ(fcvt_wu_d_rne(dinf, 0), 0xffffffffffffffff); /* sign-extended 2^32-1 */
	CHECK_EQ(fcvt_l_s_rne(sqnan, 0), 0x7fffffffffffffff);
	CHECK_EQ(fcvt_l_d_rne(0x43e0000000000000, 0), 0x7fffffffffffffff);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fcvt_lu_d_rne(0xfff0000000000000, 0), 0);
	CHECK_EQ(fcvt_lu_s_rne(sinf, 0), 0xffffffffffffffff);
	CHECK_EQ(fcvt_w_s_rmm(BOX(0x40200000), 0), 3); /* 2.5 rmm -> 3 */
	CHECK_EQ(fcvt_w_s_rne(BOX(0x40200000), 0), 2);
	CHECK_EQ(fcvt_w_s_rdn(BOX(0xc0200000), 0), 0xfffffffffffffffd);
	/* fcvt.s.d rounds and NaN-boxes; fcvt.d.s is exact */
	CHECK_EQ(fcvt_s_d_rne(0x3fb999999999999a, 0), BOX(0x3dcccccd));
	CHECK_EQ(fl, 0x01);
	CHECK_EQ(fcvt_s_d_rtz(0x7fefffffffffffff, 0), BOX(0x7f7fffff));
	CHECK_EQ(fl, 0x05);
	CHECK_EQ(fcvt_d_s(ssnan, 0), dqnan);
	CHECK_EQ(fl, 0x10);
	/* fma: inf*0 + qNaN raises NV (§11.6) */
	CHECK_EQ(fmadd_d(dinf, 0, dqnan), dqnan);
	CHECK_EQ(fl, 0x10);
	CHECK_EQ(fmadd_s(sinf, BOX(0), sqnan), sqnan);
	CHECK_EQ(fl, 0x10);
	/* subnormal results: underflow and inexact */
	CHECK_EQ(fmul_d_rne(0x0010000000000000, 0x3fe0000000000000), 0x0008000000000000);
	CHECK_EQ(fl, 0);
	CHECK_EQ(fmul_d_rne(0x0000000000000001, 0x3fe0000000000000), 0);
	CHECK_EQ(fl, 0x03);
	/* fclass of every class (§11.9) */
	static const struct {
		u64 v;
		u64 cls;
	} cls[] = {
		{0xfff0000000000000, 1 << 0}, {0xbff0000000000000, 1 << 1}, {0x800fffffffffffff, 1 << 2},
		{0x8000000000000000, 1 << 3}, {0, 1 << 4}, {1, 1 << 5}, {0x3ff0000000000000, 1 << 6},
		{dinf, 1 << 7}, {dsnan, 1 << 8}, {dqnan, 1 << 9},
	};
	for (unsigned i = 0; i < sizeof cls / sizeof cls[0]; i++)
		CHECK_EQ(fclass(cls[i].v, 1), cls[i].cls);
	CHECK_EQ(fclass(0x000000007f800000, 0), 1 << 9); /* unboxed: canonical NaN */
	/* fflags accrue across ops when not cleared */
	u64 acc;
	asm volatile("csrw fflags, x0\n"
		     "fmv.d.x ft0, %1\n fmv.d.x ft1, %2\n"
		     "fdiv.d ft2, ft0, ft1\n" /* 1/0: DZ */
		     "fsqrt.d ft2, ft1\n"     /* sqrt(0): none */
		     "fadd.d ft2, ft0, %3\n"  /* placeholder replaced below */
		     "csrr %0, fflags"
		     : "=r"(acc)
		     : "r"(0x3ff0000000000000UL), "r"(0UL), "f"(0.1)
		     : "ft0", "ft1", "ft2");
	rt_printf("accrued %lx\n", acc);
	CHECK_EQ(acc, 0x09);
	/* fmv.x.w sign-extends; fmv.w.x NaN-boxes */
	u64 x;
	asm volatile("fmv.w.x ft0, %1\n fmv.x.w %0, ft0" : "=r"(x) : "r"(0x12345678f0000000UL) : "ft0");
	CHECK_EQ(x, 0xfffffffff0000000);
	asm volatile("fmv.w.x ft0, %1\n fmv.x.d %0, ft0" : "=r"(x) : "r"(0x1234567800000001UL) : "ft0");
	CHECK_EQ(x, 0xffffffff00000001);
	/* flw NaN-boxes; fsw stores the low 32 bits */
	static volatile u64 m = 0x11223344aabbccdd;
	asm volatile("flw ft0, 0(%1)\n fmv.x.d %0, ft0" : "=r"(x) : "r"(&m) : "ft0");
	CHECK_EQ(x, 0xffffffffaabbccdd);
	asm volatile("fmv.d.x ft0, %0\n fsw ft0, 0(%1)" ::"r"(0x5555555566666666UL), "r"(&m) : "ft0", "memory");
	CHECK_EQ(m, 0x1122334466666666);
}

int main(void)
{
	checks();
	print_arith();
	print_unary();
	print_fma();
	rt_dump_regs("fp end");
	return 0;
}
