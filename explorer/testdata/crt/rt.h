/* Tiny runtime for the explorer's test programs: HTIF exit and putchar,
 * and the everett SDK hypercall. crt0.S calls hart_main(hartid) on every
 * hart; its return value is the exit code. */
#include <stdint.h>

extern volatile uint64_t tohost, fromhost;

static inline void putch(char c) {
	tohost = (1ull << 56) | (1ull << 48) | (uint8_t)c;
	while (fromhost == 0 && tohost != 0) {
	}
	fromhost = 0;
}

static inline uint64_t hypercall(uint64_t op, uint64_t a1, uint64_t a2, uint64_t a3) {
	register uint64_t a0 asm("a0") = op;
	register uint64_t r1 asm("a1") = a1;
	register uint64_t r2 asm("a2") = a2;
	register uint64_t r3 asm("a3") = a3;
	asm volatile(".4byte 0x0000000b" : "+r"(a0) : "r"(r1), "r"(r2), "r"(r3) : "memory");
	return a0;
}

static inline void park(void) {
	for (;;) asm volatile("wfi");
}
