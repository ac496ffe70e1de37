/* The sweep tests' program: the lost update of racy, with SDK assertions
 * so that a sweep has rates to report. Losing one update exits with code 3;
 * losing one when hart 1 finished its updates first fails an always
 * assertion instead: two signatures. Which hart finishes first varies with
 * the schedule (a sometimes). */
#include "rt.h"

static volatile int counter, done;
static volatile int first = -1;

static void assert_sdk(uint64_t op, int cond, const char *msg) {
	uint64_t n = 0;
	while (msg[n]) n++;
	hypercall(op, cond != 0, (uint64_t)msg, n);
}

int hart_main(uint64_t id) {
	if (id > 1) park();
	for (int i = 0; i < 3; i++) {
		int v = counter;
		counter = v + 1;
		for (volatile int k = 0; k < 50; k++) {
		}
	}
	int none = -1;
	__atomic_compare_exchange_n(&first, &none, (int)id, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
	if (id != 0) park();
	while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) != 2) {
	}
	assert_sdk(2, first == 1, "hart 1 finishes first");
	assert_sdk(1, counter == 6 || first == 0, "no update is lost when hart 1 finishes first");
	return counter == 6 ? 0 : 3;
}
