/* A Linux init that dies of SIGSEGV: it reads its configuration through a
 * pointer to address 0x10, which no mapping covers (a user-mode load page
 * fault the kernel cannot resolve). The kernel prints "unhandled signal 11
 * ... at 0x0000000000000010" and, since this is init, panics. Built static
 * and unstripped, so that its symbols name the faulting function.
 *
 * With the argument "child" (an unrecognized word on the kernel command
 * line), init instead forks a child that stores through a pointer to 0x18
 * after copying-on-write its stack and data (store page faults the kernel
 * resolves), waits for it and powers off. */
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int *volatile config = (volatile int *)0x10;
static volatile int *volatile output = (volatile int *)0x18;
static volatile int scratch[4096];

__attribute__((noinline)) int read_config(void) { return *config + 1; }

__attribute__((noinline)) void write_config(int v) { *output = v; }

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			for (unsigned i = 0; i < sizeof scratch / sizeof scratch[0]; i += 1024) {
				scratch[i] = (int)i; /* copy-on-write faults, resolved */
			}
			write_config(1);
			_exit(0);
		}
		int status = 0;
		waitpid(pid, &status, 0);
		printf("segv: child status %#x\n", status);
		fflush(stdout);
		reboot(RB_POWER_OFF);
		return 0;
	}
	printf("segv: reading the configuration\n");
	fflush(stdout);
	return read_config();
}
