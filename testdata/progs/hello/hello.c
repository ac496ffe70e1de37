/* hello: the smallest program: prints a line and a register dump, exits 0. */
#include "rt.h"

int main(void)
{
	rt_puts("hello from everett's bare-metal runtime");
	rt_printf("hart %lu dec %d %ld hex %x %016lx str %s chr %c\n", csr_read(mhartid), -42, 1234567890123L,
		  0xbeefu, 0x0123456789abcdefUL, "ok", 'Z');
	rt_dump_regs("hello");
	rt_dump_csrs();
	return 0;
}
