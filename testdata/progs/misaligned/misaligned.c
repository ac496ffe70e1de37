/* misaligned: loads and stores at every misalignment of every width, in
 * M-mode and across a page boundary (unpriv spec §2.6: misaligned accesses
 * may be handled in hardware; both everett and QEMU do, so none traps);
 * FP loads and stores too. The faulting case (crossing into an unmapped
 * page) is in vm. */
#include "rt.h"

static volatile u8 buf[8192 + 64] __attribute__((aligned(4096)));

int main(void)
{
	for (int i = 0; i < (int)sizeof buf; i++)
		buf[i] = (u8)(i * 7 + 3);
	const u64 bases[] = {16, 4096 - 8};
	for (int b = 0; b < 2; b++) {
		for (int off = 0; off < 8; off++) {
			volatile u8 *p = buf + bases[b] + off;
			u64 h, hu, w, wu, d, fw, fd;
			asm volatile("lh %0, 0(%1)" : "=r"(h) : "r"(p));
			asm volatile("lhu %0, 0(%1)" : "=r"(hu) : "r"(p));
			asm volatile("lw %0, 0(%1)" : "=r"(w) : "r"(p));
			asm volatile("lwu %0, 0(%1)" : "=r"(wu) : "r"(p));
			asm volatile("ld %0, 0(%1)" : "=r"(d) : "r"(p));
			asm volatile("flw ft0, 0(%1)\n fmv.x.d %0, ft0" : "=r"(fw) : "r"(p) : "ft0");
			asm volatile("fld ft0, 0(%1)\n fmv.x.d %0, ft0" : "=r"(fd) : "r"(p) : "ft0");
			rt_printf("load %lx+%d: %lx %lx %lx %lx %lx %lx %lx\n", bases[b], off, h, hu, w, wu, d, fw,
				  fd);
		}
	}
	for (int off = 1; off < 8; off++) {
		volatile u8 *p = buf + 4096 - 8 + off;
		asm volatile("sd %1, 0(%0)\n sw %1, 9(%0)\n sh %1, 15(%0)" ::"r"(p), "r"(0x8877665544332211UL)
			     : "memory");
		asm volatile("fmv.d.x ft0, %1\n fsd ft0, 17(%0)\n fsw ft0, 27(%0)" ::"r"(p),
			     "r"(0xfedcba9876543210UL)
			     : "ft0", "memory");
		rt_printf("store +%d:", off);
		for (int i = 4096 - 8; i < 4096 + 32; i += 8)
			rt_printf(" %lx", *(volatile u64 *)(buf + i));
		rt_printf("\n");
	}
	/* the last store of the loop: sd at 4096-1 spans both pages */
	CHECK_EQ(*(volatile u8 *)(buf + 4095), 0x11);
	return 0;
}
