/* A Linux init that dies of SIGSEGV: it reads its configuration through a
 * pointer to address 0x10, which no mapping covers (a user-mode load page
 * fault the kernel cannot resolve). The kernel prints "unhandled signal 11
 * ... at 0x0000000000000010" and, since this is init, panics. Built static
 * and unstripped, so that its symbols name the faulting function. */
#include <stdio.h>

static volatile int *volatile config = (volatile int *)0x10;

__attribute__((noinline)) int read_config(void) { return *config + 1; }

int main(void) {
	printf("segv: reading the configuration\n");
	fflush(stdout);
	return read_config();
}
