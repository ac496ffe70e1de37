/* Lock-order inversion: hart 0 takes A then B, hart 1 takes B then A, each
 * briefly. Most schedules run one after the other; an unlucky one
 * deadlocks both harts (spinning forever): a hang, with no SDK involved. */
#include "rt.h"

static volatile int a, b, done;

static void lock(volatile int *l) {
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
	}
}
static void unlock(volatile int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

int hart_main(uint64_t id) {
	if (id > 1) park();
	for (volatile int k = 0; k < 100 * (int)id; k++) {
	}
	volatile int *first = id ? &b : &a, *second = id ? &a : &b;
	lock(first);
	for (volatile int k = 0; k < 3; k++) {
	}
	lock(second);
	unlock(second);
	unlock(first);
	__atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
	if (id != 0) park();
	while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) != 2) {
	}
	return 0;
}
