/* A bare-metal program that faults: hart 0 reads its configuration through
 * a pointer that points nowhere (address 0x10, outside RAM: a load access
 * fault in M-mode). The trap handler does not return: it exits with code 7,
 * as a program's panic handler would. Before the fault, a deliberate
 * ebreak is handled and returned from, which must not count as the cause. */
#include "rt.h"

static volatile int *volatile config = (volatile int *)0x10;

__attribute__((naked, aligned(4))) static void on_trap(void) {
	asm volatile(
		"csrr t0, mcause\n"
		"li t1, 3\n"
		"bne t0, t1, 1f\n"
		"csrr t0, mepc\n" /* the ebreak: step over it */
		"addi t0, t0, 4\n"
		"csrw mepc, t0\n"
		"mret\n"
		"1: li t0, 15\n" /* exit code 7: (7 << 1) | 1 */
		"la t1, tohost\n"
		"sd t0, 0(t1)\n"
		"2: j 2b\n");
}

__attribute__((noinline)) int read_config(void) { return *config + 1; }

int hart_main(uint64_t id) {
	if (id != 0) park();
	asm volatile("csrw mtvec, %0" ::"r"(on_trap));
	asm volatile(".option push\n.option norvc\nebreak\n.option pop" ::: "t0", "t1", "memory");
	for (volatile int k = 0; k < 100; k++) {
	}
	return read_config() == 1 ? 0 : 5;
}
