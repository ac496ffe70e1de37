/* amo: the A extension on one hart (unpriv spec ch. 8 "A"): LR/SC success
 * and failure, every AMO in W and D width with the signedness of min/max,
 * sign extension of W results and the aq/rl variants. Misaligned
 * atomics are in amomisaligned. */
#include "rt.h"

static volatile u64 cell[32] __attribute__((aligned(64)));

#define AMO(fn, op)                                                                          \
	static u64 fn(volatile void *p, u64 v)                                               \
	{                                                                                    \
		u64 r;                                                                       \
		asm volatile(op " %0, %2, (%1)" : "=r"(r) : "r"(p), "r"(v) : "memory");      \
		return r;                                                                    \
	}

AMO(swap_w, "amoswap.w") AMO(add_w, "amoadd.w") AMO(xor_w, "amoxor.w") AMO(and_w, "amoand.w")
AMO(or_w, "amoor.w") AMO(min_w, "amomin.w") AMO(max_w, "amomax.w") AMO(minu_w, "amominu.w")
AMO(maxu_w, "amomaxu.w")
AMO(swap_d, "amoswap.d") AMO(add_d, "amoadd.d") AMO(xor_d, "amoxor.d") AMO(and_d, "amoand.d")
AMO(or_d, "amoor.d") AMO(min_d, "amomin.d") AMO(max_d, "amomax.d") AMO(minu_d, "amominu.d")
AMO(maxu_d, "amomaxu.d")
AMO(add_w_aq, "amoadd.w.aq") AMO(add_w_rl, "amoadd.w.rl") AMO(add_d_aqrl, "amoadd.d.aqrl")
AMO(swap_d_aq, "amoswap.d.aq")

typedef u64 (*afn)(volatile void *, u64);
static const struct {
	const char *name;
	afn fn;
	int w;
} ops[] = {
	{"amoswap.w", swap_w, 1}, {"amoadd.w", add_w, 1}, {"amoxor.w", xor_w, 1}, {"amoand.w", and_w, 1},
	{"amoor.w", or_w, 1}, {"amomin.w", min_w, 1}, {"amomax.w", max_w, 1}, {"amominu.w", minu_w, 1},
	{"amomaxu.w", maxu_w, 1}, {"amoswap.d", swap_d, 0}, {"amoadd.d", add_d, 0}, {"amoxor.d", xor_d, 0},
	{"amoand.d", and_d, 0}, {"amoor.d", or_d, 0}, {"amomin.d", min_d, 0}, {"amomax.d", max_d, 0},
	{"amominu.d", minu_d, 0}, {"amomaxu.d", maxu_d, 0}, {"amoadd.w.aq", add_w_aq, 1},
	{"amoadd.w.rl", add_w_rl, 1}, {"amoadd.d.aqrl", add_d_aqrl, 0}, {"amoswap.d.aq", swap_d_aq, 0},
};

static const u64 vals[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x8000000000000000,
			   0x7fffffffffffffff, 0xffffffffffffffff, 0x00000001fffffffe};
#define NV (sizeof vals / sizeof vals[0])

static u64 lr_w(volatile void *p)
{
	u64 r;
	asm volatile("lr.w %0, (%1)" : "=r"(r) : "r"(p) : "memory");
	return r;
}
static u64 lr_d(volatile void *p)
{
	u64 r;
	asm volatile("lr.d.aq %0, (%1)" : "=r"(r) : "r"(p) : "memory");
	return r;
}
static u64 sc_w(volatile void *p, u64 v)
{
	u64 r;
	asm volatile("sc.w %0, %2, (%1)" : "=r"(r) : "r"(p), "r"(v) : "memory");
	return r;
}
static u64 sc_d(volatile void *p, u64 v)
{
	u64 r;
	asm volatile("sc.d.rl %0, %2, (%1)" : "=r"(r) : "r"(p), "r"(v) : "memory");
	return r;
}

static void lrsc(void)
{
	volatile u64 *a = &cell[0], *b = &cell[8];
	*a = 0xffffffff80000001;
	/* lr.w sign-extends the loaded word */
	u64 v = lr_w(a);
	CHECK_EQ(v, 0xffffffff80000001);
	CHECK_EQ(sc_w(a, 0x12345678), 0);
	CHECK_EQ(*a, 0xffffffff12345678);
	/* the reservation is gone after an SC */
	CHECK(sc_w(a, 0x55) != 0);
	CHECK_EQ(*a, 0xffffffff12345678);
	/* an SC without any LR fails */
	CHECK(sc_d(b, 0x66) != 0);
	CHECK_EQ(*b, 0);
	/* LR.D then SC.D succeed */
	*b = 0x8000000000000000;
	CHECK_EQ(lr_d(b), 0x8000000000000000);
	CHECK_EQ(sc_d(b, 0x1122334455667788), 0);
	CHECK_EQ(*b, 0x1122334455667788);
	/* an SC to another reservation set than the LR's fails */
	(void)lr_d(a);
	CHECK(sc_d(b, 0x99) != 0);
	CHECK_EQ(*b, 0x1122334455667788);
	/* a later LR replaces the earlier reservation */
	(void)lr_d(a);
	(void)lr_d(b);
	CHECK_EQ(sc_d(b, 0xabc), 0);
	CHECK_EQ(*b, 0xabc);
	/* an LR/SC loop that increments */
	for (int i = 0; i < 10; i++) {
		u64 old, fail;
		asm volatile("1: lr.d %0, (%2)\n addi %0, %0, 1\n sc.d %1, %0, (%2)\n bnez %1, 1b"
			     : "=&r"(old), "=&r"(fail)
			     : "r"(b)
			     : "memory");
	}
	CHECK_EQ(*b, 0xabc + 10);
	rt_printf("lrsc a=%016lx b=%016lx\n", *a, *b);
}

int main(void)
{
	for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++) {
		for (unsigned i = 0; i < NV; i++) {
			rt_printf("%s %lx:", ops[k].name, vals[i]);
			for (unsigned j = 0; j < NV; j++) {
				cell[1] = vals[i];
				u64 old = ops[k].fn(&cell[1], vals[j]);
				rt_printf(" %lx/%lx", old, cell[1]);
			}
			rt_printf("\n");
		}
	}
	/* signedness of min/max (unpriv §8.4) */
	cell[2] = 0x80000000;
	CHECK_EQ(min_w(&cell[2], 1), 0xffffffff80000000);
	CHECK_EQ(cell[2], 0x80000000);
	CHECK_EQ(minu_w(&cell[2], 1), 0xffffffff80000000);
	CHECK_EQ(cell[2], 1);
	cell[2] = 0xffffffff;
	CHECK_EQ(max_w(&cell[2], 0), 0xffffffffffffffff);
	CHECK_EQ(cell[2], 0);
	cell[2] = 0x8000000000000000;
	CHECK_EQ(max_d(&cell[2], 1), 0x8000000000000000);
	CHECK_EQ(cell[2], 1);
	CHECK_EQ(maxu_d(&cell[2], 0x8000000000000000), 1);
	CHECK_EQ(cell[2], 0x8000000000000000);
	/* a W AMO leaves the upper word of the doubleword alone */
	cell[3] = 0xaaaaaaaa7fffffff;
	CHECK_EQ(add_w(&cell[3], 1), 0x7fffffff);
	CHECK_EQ(cell[3], 0xaaaaaaaa80000000);
	/* rd = x0 */
	asm volatile("amoadd.d x0, %1, (%0)" ::"r"(&cell[4]), "r"(5L) : "memory");
	CHECK_EQ(cell[4], 5);
	lrsc();
	return 0;
}
