/* smc: self-modifying code (unpriv spec ch. 3 "Zifencei": a store to
 * instruction memory is seen by fetches of the same hart after fence.i).
 * A function in RAM is executed, rewritten (32-bit and 16-bit encodings,
 * and an instruction that straddles a 4-byte boundary), synchronised with
 * fence.i and executed again, many times, so that a decoded-block cache
 * that misses an invalidation is caught. */
#include "rt.h"

static u32 code[64] __attribute__((aligned(64)));

typedef long (*fn)(void);

static long call(void)
{
	asm volatile("fence.i" ::: "memory");
	return ((fn)code)();
}

int main(void)
{
	long sum = 0;
	for (int i = 0; i < 100; i++) {
		/* addi a0, zero, i; ret */
		code[0] = 0x00000513 | (u32)(i & 0x7ff) << 20;
		code[1] = 0x00008067;
		long r = call();
		CHECK_EQ(r, i);
		sum += r;
	}
	rt_printf("sum %ld\n", sum);
	/* patch one instruction in the middle of a block that ran before */
	code[0] = 0x00100513; /* li a0, 1 */
	code[1] = 0x00150513; /* addi a0, a0, 1 */
	code[2] = 0x00150513;
	code[3] = 0x00008067;
	long a = call();
	code[2] = 0x00a50513; /* addi a0, a0, 10 */
	long b = call();
	rt_printf("block %ld then %ld\n", a, b);
	CHECK_EQ(a, 3);
	CHECK_EQ(b, 12);
	/* compressed: c.li a0, 5; c.addi a0, 3; then a 32-bit addi at offset 4
	 * (2-byte aligned after two 16-bit instructions); c.jr ra */
	u16 *h = (u16 *)code;
	h[0] = 0x4515;  /* c.li a0, 5 */
	h[1] = 0x050d;  /* c.addi a0, 3 */
	h[2] = 0x0513;  /* addi a0, a0, 100: low half */
	h[3] = 0x0645;  /* high half */
	h[4] = 0x8082;  /* c.jr ra */
	long c = call();
	h[3] = 0x0c85;  /* addi a0, a0, 200 */
	long d = call();
	rt_printf("compressed %ld then %ld\n", c, d);
	CHECK_EQ(c, 108);
	CHECK_EQ(d, 208);
	return 0;
}
