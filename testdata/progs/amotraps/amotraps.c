/* amotraps: misaligned LR, SC and AMOs trap (unpriv spec §8.2: "If
 * the address is not naturally aligned, an address-misaligned exception or
 * an access-fault exception will be generated"; §8.4 for AMOs), also an SC
 * that holds no reservation, and AMOs and SC report store/AMO causes (priv
 * spec §3.1.15, table 3.6: cause 6 "Store/AMO address misaligned").
 *
 * An AMO to an address without memory raises a store/AMO access fault
 * (cause 7).
 *
 * QEMU 7.2 reports load causes (4, 5) for AMOs and lets a misaligned SC
 * without a reservation fail silently; the differential test leaves this
 * program out for that reason (see emu/board/diff_test.go). */
#include "rt.h"

static volatile u64 cell[4] __attribute__((aligned(64)));

#define AMO(fn, op)                                                                          \
	static u64 fn(volatile void *p, u64 v)                                               \
	{                                                                                    \
		u64 r;                                                                       \
		asm volatile(op " %0, %2, (%1)" : "=r"(r) : "r"(p), "r"(v) : "memory");      \
		return r;                                                                    \
	}
AMO(add_w, "amoadd.w") AMO(add_d, "amoadd.d") AMO(sc_w, "sc.w") AMO(sc_d, "sc.d") AMO(swap_w, "amoswap.w.aqrl")

static u64 lr_w(volatile void *p)
{
	u64 r;
	asm volatile("lr.w %0, (%1)" : "=r"(r) : "r"(p) : "memory");
	return r;
}
static u64 lr_d(volatile void *p)
{
	u64 r;
	asm volatile("lr.d %0, (%1)" : "=r"(r) : "r"(p) : "memory");
	return r;
}

static void misaligned(void)
{
	volatile u8 *base = (volatile u8 *)&cell[0];
	static const struct {
		const char *name;
		int off;
		int kind; /* 0 amoadd.w, 1 amoadd.d, 2 lr.w, 3 sc.w, 4 lr.d, 5 sc.d, 6 amoswap.w */
		u64 cause;
	} cases[] = {
		{"amoadd.w +2", 2, 0, CAUSE_MISALIGNED_STORE}, {"amoadd.d +4", 4, 1, CAUSE_MISALIGNED_STORE},
		{"amoadd.d +1", 1, 1, CAUSE_MISALIGNED_STORE}, {"lr.w +2", 2, 2, CAUSE_MISALIGNED_LOAD},
		{"sc.w +1", 1, 3, CAUSE_MISALIGNED_STORE}, {"lr.d +4", 4, 4, CAUSE_MISALIGNED_LOAD},
		{"sc.d +6", 6, 5, CAUSE_MISALIGNED_STORE}, {"amoswap.w.aqrl +3", 3, 6, CAUSE_MISALIGNED_STORE},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		volatile u8 *p = base + cases[i].off;
		rt_trap_reset();
		rt_expect_traps = 1;
		switch (cases[i].kind) {
		case 0: add_w(p, 1); break;
		case 1: add_d(p, 1); break;
		case 2: lr_w(p); break;
		case 3: sc_w(p, 1); break;
		case 4: lr_d(p); break;
		case 5: sc_d(p, 1); break;
		case 6: swap_w(p, 1); break;
		}
		rt_expect_traps = 0;
		rt_print_trap(cases[i].name, &rt_last);
		CHECK_EQ(rt_last.count, 1);
		CHECK_EQ(rt_last.cause, cases[i].cause);
		CHECK_EQ(rt_last.tval, (u64)p);
	}
	CHECK_EQ(cell[0], 0);
	CHECK_EQ(cell[1], 0);
}

static void access_fault(void)
{
	rt_trap_reset();
	rt_expect_traps = 1;
	asm volatile("li t0, 0x40000000\n amoadd.d t1, t1, (t0)" ::: "t0", "t1", "memory");
	rt_expect_traps = 0;
	rt_print_trap("amoadd.d hole", &rt_last);
	CHECK_EQ(rt_last.cause, CAUSE_STORE_ACCESS);
	CHECK_EQ(rt_last.tval, 0x40000000);
}

int main(void)
{
	misaligned();
	access_fault();
	return 0;
}
