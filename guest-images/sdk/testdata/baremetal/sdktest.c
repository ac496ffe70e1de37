/* sdktest: exercises everett.h from M, S and U mode on two harts. Run with
 * `everett run --smp 2`; sdk_test.go checks the assertion lines everett
 * prints on stderr, the random values printed on the console and the exit
 * code (42, from U mode). */
#include "rt.h"
#include "everett.h"

static volatile int hart1_done;
static volatile u64 urandom;

int rt_secondary_main(int hartid)
{
	if (hartid == 1) {
		everett_always(0, "hart 1: always false");
		__atomic_store_n(&hart1_done, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

static long in_s(long arg)
{
	everett_always(0, "s: always false");
	EVERETT_REACHABLE("s: reachable");
	return arg + 1;
}

static long in_u(long arg)
{
	EVERETT_ALWAYS(1, "u: always true");
	everett_always(0, "u: always false");
	urandom = everett_random();
	everett_progress(7);
	return arg + 2;
}

static long u_exit(long code)
{
	everett_exit((int)code);
}

int main(void)
{
	/* M mode */
	EVERETT_ALWAYS(1, "m: always true");
	everett_always(0, "m: always false");
	everett_always(0, "m: always false"); /* printed once */
	everett_sometimes(1, "m: sometimes true");
	EVERETT_SOMETIMES(0, "m: sometimes false");
	EVERETT_REACHABLE("m: reachable");
	EVERETT_UNREACHABLE("m: unreachable");
	everett_setup_complete();
	everett_progress(1);

	u64 r1 = everett_random(), r2 = everett_random();
	CHECK(r1 != r2);
	rt_printf("random %016lx %016lx\n", r1, r2);
	CHECK_EQ(everett_hypercall(99, 0, 0, 0), (u64)EVERETT_ENOSYS);

	/* A message built at run time on the stack. */
	static volatile char digit = '7';
	char buf[] = "m: stack message ?";
	buf[sizeof buf - 2] = digit;
	everett_always(0, buf);
	/* A message longer than the host reads: cut at 256 bytes. */
	char longmsg[300];
	for (int i = 0; i < 299; i++)
		longmsg[i] = 'a' + i % 26;
	longmsg[299] = 0;
	everett_always(0, longmsg);

	/* S and U mode, without paging. */
	CHECK_EQ(rt_run_in(PRV_S, in_s, 10), 11);
	CHECK_EQ(rt_run_in(PRV_U, in_u, 20), 22);
	rt_printf("urandom %016lx\n", urandom);

	while (!__atomic_load_n(&hart1_done, __ATOMIC_ACQUIRE))
		;
	if (rt_failures)
		rt_exit(1);
	rt_run_in(PRV_U, u_exit, 42);
	return 3; /* not reached */
}
