/* vm: Sv39 and Sv48 address translation (priv spec §4.3 "Sv32" for the
 * algorithm in §4.3.2, §4.4 "Sv39", §4.5 "Sv48"): 4 KiB pages, 2 MiB and
 * 1 GiB superpages, every page-fault kind (V = 0, W without R, a store to a
 * read-only page, U pages from S with and without SUM, S pages from U,
 * MXR, fetch without X, misaligned superpages, non-canonical addresses),
 * A/D updates, sfence.vma after a remap, M-mode loads through MPRV, and a
 * misaligned load that crosses into an unmapped page.
 *
 * The program runs its tests in S-mode (U-mode for the U cases); page
 * faults are taken in M-mode, which prints cause and tval. */
#include "rt.h"

#define PTE_V 0x01
#define PTE_R 0x02
#define PTE_W 0x04
#define PTE_X 0x08
#define PTE_U 0x10
#define PTE_G 0x20
#define PTE_A 0x40
#define PTE_D 0x80
#define RWXAD (PTE_V | PTE_R | PTE_W | PTE_X | PTE_A | PTE_D)

#define TBL(n) static volatile u64 n[512] __attribute__((aligned(4096)))
TBL(root);   /* Sv39 root, also the level-2 table under Sv48 */
TBL(root_u); /* Sv39 root for U-mode: identity gigapage with U = 1 */
TBL(root4);  /* Sv48 root */
TBL(l1);
TBL(l0);
static volatile u8 pages[8][4096] __attribute__((aligned(4096)));

#define VA(i) (0x40000000UL + 4096UL * (i))

static u64 pte(volatile void *pa, u64 flags) { return ((u64)pa >> 12) << 10 | flags; }
static u64 ptea(u64 pa, u64 flags) { return (pa >> 12) << 10 | flags; }

static long do_ld(long va)
{
	return *(volatile long *)va;
}
static long do_lw_mis(long va)
{
	return *(volatile int *)va;
}
static long do_sd(long va)
{
	*(volatile long *)va = 0x5d5d5d5d;
	return 0;
}
static long do_exec(long va)
{
	return ((long (*)(void))va)();
}
static long do_sfence_ld(long va)
{
	asm volatile("sfence.vma" ::: "memory");
	return *(volatile long *)va;
}
static long do_sfence_va_ld(long va)
{
	asm volatile("sfence.vma %0" ::"r"(va) : "memory");
	return *(volatile long *)va;
}

static void attempt(const char *what, int mode, long (*fn)(long), u64 va)
{
	rt_trap_reset();
	rt_expect_traps = 1;
	long v = rt_run_in(mode, fn, (long)va);
	rt_expect_traps = 0;
	rt_printf("%s %s %016lx: ", what, mode == PRV_S ? "S" : "U", va);
	if (rt_last.count)
		rt_printf("trap cause=%lu tval=%016lx\n", rt_last.cause, rt_last.tval);
	else
		rt_printf("ok %lx\n", (u64)v);
}

static void setup(void)
{
	/* identity gigapage for RAM: VA 0x8000_0000 -> PA 0x8000_0000 */
	root[2] = ptea(0x80000000, RWXAD);
	root_u[2] = ptea(0x80000000, RWXAD | PTE_U);
	root[1] = pte(l1, PTE_V);
	root_u[1] = root[1];
	/* another gigapage: VA 0xc000_0000 -> PA 0x8000_0000 */
	root[3] = ptea(0x80000000, RWXAD);
	/* misaligned gigapage: PPN[1] != 0 */
	root[4] = ptea(0x80200000, RWXAD);
	l1[0] = pte(l0, PTE_V);
	/* 2 MiB superpage VA 0x4020_0000 -> PA 0x8020_0000 */
	l1[1] = ptea(0x80200000, RWXAD);
	/* misaligned 2 MiB superpage: PPN[0] != 0 */
	l1[2] = ptea(0x80201000, RWXAD);

	l0[0] = pte(pages[0], PTE_V | PTE_R | PTE_W | PTE_A | PTE_D);
	l0[1] = pte(pages[0], PTE_R | PTE_W | PTE_A | PTE_D); /* V = 0 */
	l0[2] = pte(pages[1], PTE_V | PTE_W | PTE_A | PTE_D); /* W without R: reserved */
	l0[3] = pte(pages[1], PTE_V | PTE_R | PTE_A);          /* read-only */
	l0[4] = pte(pages[2], PTE_V | PTE_R | PTE_W | PTE_U | PTE_A | PTE_D);
	l0[5] = pte(pages[3], PTE_V | PTE_X | PTE_A);          /* execute-only */
	l0[6] = pte(pages[3], PTE_V | PTE_R | PTE_X | PTE_A);
	l0[7] = pte(pages[3], PTE_V | PTE_R | PTE_W | PTE_A | PTE_D); /* no X */
	l0[8] = pte(pages[4], PTE_V | PTE_R | PTE_W);                /* A = D = 0 */
	l0[9] = pte(pages[5], PTE_V | PTE_R | PTE_W);                /* A = D = 0 */
	l0[10] = pte(pages[6], PTE_V | PTE_R | PTE_W | PTE_A | PTE_D);
	l0[11] = pte(pages[0], PTE_V | PTE_R | PTE_W | PTE_A | PTE_D);
	l0[12] = 0; /* crossing target: unmapped */
	l0[13] = pte(pages[3], PTE_V | PTE_R | PTE_X | PTE_U | PTE_A); /* user code */
	/* Sv48: both VA 0 - 512 GiB and VA 0x4000_0000_0000 use the Sv39 tables
	 * as their level-2 table */
	root4[0] = pte(root, PTE_V);
	root4[128] = pte(root, PTE_V);
	/* misaligned 512 GiB page */
	root4[1] = ptea(0x80000000, RWXAD);

	for (int p = 0; p < 8; p++)
		for (int i = 0; i < 4096; i += 8)
			*(volatile u64 *)&pages[p][i] = 0x1000000000000000UL * (p + 1) + i;
	*(volatile u64 *)0x80201230 = 0xa5a5a5a5a5a5a5a5;
	/* code on pages[3]: li a0, 42; ret */
	*(volatile u32 *)&pages[3][0] = 0x02a00513;
	*(volatile u32 *)&pages[3][4] = 0x00008067;
	asm volatile("fence.i" ::: "memory");
}

static void suite(const char *name, u64 satp, u64 hi)
{
	rt_printf("== %s\n", name);
	csr_write(satp, satp);
	asm volatile("sfence.vma" ::: "memory");
	attempt("ld 4K", PRV_S, do_ld, hi + VA(0) + 16);
	attempt("sd 4K", PRV_S, do_sd, hi + VA(0) + 24);
	rt_printf("pages[0][24] %lx\n", *(volatile u64 *)&pages[0][24]);
	attempt("ld V=0", PRV_S, do_ld, hi + VA(1) + 8);
	attempt("sd V=0", PRV_S, do_sd, hi + VA(1) + 8);
	attempt("exec V=0", PRV_S, do_exec, hi + VA(1));
	attempt("ld W-only", PRV_S, do_ld, hi + VA(2));
	attempt("sd W-only", PRV_S, do_sd, hi + VA(2));
	attempt("ld RO", PRV_S, do_ld, hi + VA(3) + 32);
	attempt("sd RO", PRV_S, do_sd, hi + VA(3) + 32);
	/* U page from S: SUM = 0 faults, SUM = 1 allows loads/stores, never
	 * fetches (§4.3.1, §4.1.1.2) */
	attempt("ld U-page SUM=0", PRV_S, do_ld, hi + VA(4));
	csr_set(mstatus, MSTATUS_SUM);
	attempt("ld U-page SUM=1", PRV_S, do_ld, hi + VA(4));
	attempt("sd U-page SUM=1", PRV_S, do_sd, hi + VA(4) + 8);
	attempt("exec U-page SUM=1", PRV_S, do_exec, hi + VA(13));
	csr_clear(mstatus, MSTATUS_SUM);
	/* execute-only page: loads need MXR */
	attempt("exec X-only", PRV_S, do_exec, hi + VA(5));
	attempt("ld X-only MXR=0", PRV_S, do_ld, hi + VA(5));
	csr_set(mstatus, MSTATUS_MXR);
	attempt("ld X-only MXR=1", PRV_S, do_ld, hi + VA(5));
	csr_clear(mstatus, MSTATUS_MXR);
	attempt("exec RX", PRV_S, do_exec, hi + VA(6));
	attempt("exec no-X", PRV_S, do_exec, hi + VA(7));
	/* A/D: set by the hardware on access (or a fault: both allowed by
	 * §4.3.1; QEMU and everett update them) */
	l0[8] = pte(pages[4], PTE_V | PTE_R | PTE_W);
	l0[9] = pte(pages[5], PTE_V | PTE_R | PTE_W);
	asm volatile("sfence.vma" ::: "memory");
	attempt("ld A=0", PRV_S, do_ld, hi + VA(8));
	rt_printf("pte8 flags %lx\n", l0[8] & 0xff);
	attempt("sd A=0 D=0", PRV_S, do_sd, hi + VA(9));
	rt_printf("pte9 flags %lx\n", l0[9] & 0xff);
	/* superpages */
	attempt("ld 2M", PRV_S, do_ld, hi + 0x40201230);
	attempt("ld 2M misaligned", PRV_S, do_ld, hi + 0x40401230);
	attempt("ld 1G", PRV_S, do_ld, hi + 0xc0201230);
	attempt("ld 1G misaligned", PRV_S, do_ld, hi + 0x100001230);
	/* remap, sfence.vma, read the new page */
	attempt("ld before remap", PRV_S, do_ld, hi + VA(10) + 64);
	l0[10] = pte(pages[7], PTE_V | PTE_R | PTE_W | PTE_A | PTE_D);
	attempt("ld after remap+sfence", PRV_S, do_sfence_ld, hi + VA(10) + 64);
	l0[10] = pte(pages[6], PTE_V | PTE_R | PTE_W | PTE_A | PTE_D);
	attempt("ld after remap+sfence va", PRV_S, do_sfence_va_ld, hi + VA(10) + 72);
	/* a misaligned load across into an unmapped page */
	attempt("lw crossing", PRV_S, do_lw_mis, hi + VA(11) + 4094);
	attempt("ld crossing", PRV_S, do_ld, hi + VA(11) + 4092);
	/* identity-mapped RAM from S */
	attempt("ld identity", PRV_S, do_ld, (u64)&pages[2][40]);
}

static void user(const char *name, u64 satp)
{
	rt_printf("== %s\n", name);
	csr_write(satp, satp);
	asm volatile("sfence.vma" ::: "memory");
	attempt("ld U page", PRV_U, do_ld, VA(4) + 16);
	attempt("ld S page", PRV_U, do_ld, VA(0) + 16);
	attempt("sd S page", PRV_U, do_sd, VA(0) + 16);
	attempt("exec U code", PRV_U, do_exec, VA(13));
	attempt("exec S code", PRV_U, do_exec, VA(6));
	attempt("ld V=0", PRV_U, do_ld, VA(1));
}

static void noncanonical(void)
{
	rt_printf("== non-canonical\n");
	csr_write(satp, 8UL << 60 | (u64)root >> 12);
	asm volatile("sfence.vma" ::: "memory");
	attempt("Sv39 ld bit38 only", PRV_S, do_ld, 0x0000004040000000UL);
	attempt("Sv39 sd bit39", PRV_S, do_sd, 0x0000008040000000UL);
	attempt("Sv39 exec high", PRV_S, do_exec, 0xffff000040000000UL);
	csr_write(satp, 9UL << 60 | (u64)root4 >> 12);
	asm volatile("sfence.vma" ::: "memory");
	attempt("Sv48 ld bit47", PRV_S, do_ld, 0x0000800040000000UL);
	attempt("Sv48 ld top", PRV_S, do_ld, 0xffff800040000000UL);
	attempt("Sv48 ld misaligned 512G", PRV_S, do_ld, 0x0000008000001000UL);
}

static void mprv(void)
{
	rt_printf("== MPRV\n");
	csr_write(satp, 8UL << 60 | (u64)root >> 12);
	asm volatile("sfence.vma" ::: "memory");
	u64 v;
	/* M-mode loads and stores translate as S when MPRV = 1, MPP = S */
	csr_clear(mstatus, MSTATUS_MPP);
	csr_set(mstatus, (u64)PRV_S << 11);
	csr_set(mstatus, MSTATUS_MPRV);
	v = *(volatile u64 *)(VA(0) + 8);
	csr_clear(mstatus, MSTATUS_MPRV);
	rt_printf("MPRV ld %lx\n", v);
	CHECK_EQ(v, 0x1000000000000008);
	rt_trap_reset();
	rt_expect_traps = 1;
	csr_set(mstatus, MSTATUS_MPRV);
	v = *(volatile u64 *)VA(1);
	csr_clear(mstatus, MSTATUS_MPRV);
	rt_expect_traps = 0;
	rt_print_trap("MPRV ld V=0", &rt_last);
	csr_clear(mstatus, MSTATUS_MPP);
}

int main(void)
{
	setup();
	suite("Sv39", 8UL << 60 | (u64)root >> 12, 0);
	suite("Sv48", 9UL << 60 | (u64)root4 >> 12, 0);
	suite("Sv48 high", 9UL << 60 | (u64)root4 >> 12, 0x0000400000000000UL);
	user("Sv39 U", 8UL << 60 | (u64)root_u >> 12);
	noncanonical();
	mprv();
	csr_write(satp, 0);
	return 0;
}
