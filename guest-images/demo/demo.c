// The bare-metal SMP demo: every hart sums its share of 1..N, the harts meet
// at a barrier built from AMOs, and hart 0 prints the total and each hart's
// share. The output depends only on the program, never on the interleaving.

#include <stdint.h>

#define HARTS_MAX 8
#define N 4000000ull

extern volatile uint64_t tohost, fromhost;

static volatile uint64_t partial[HARTS_MAX];
static volatile uint32_t arrived;
static volatile uint32_t lock;

static void lock_acquire(void) {
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {
	}
}

static void lock_release(void) { __atomic_store_n(&lock, 0, __ATOMIC_RELEASE); }

static void putc_htif(char c) {
	tohost = (1ull << 56) | (1ull << 48) | (uint8_t)c;
	while (fromhost == 0 && tohost != 0) {
	}
	fromhost = 0;
}

static void puts_htif(const char *s) {
	while (*s) putc_htif(*s++);
}

static void putdec(uint64_t v) {
	char buf[21];
	int i = 20;
	buf[i] = 0;
	do {
		buf[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	puts_htif(&buf[i]);
}

static unsigned harts(void) {
	// The number of harts is given by the build; default 4.
#ifndef HARTS
#define HARTS 4
#endif
	return HARTS;
}

int hart_main(uint64_t id) {
	unsigned n = harts();
	if (id >= n) {
		for (;;) __asm__ volatile("wfi");
	}
	uint64_t sum = 0;
	for (uint64_t k = id + 1; k <= N; k += n) sum += k;
	partial[id] = sum;
	__atomic_fetch_add(&arrived, 1, __ATOMIC_ACQ_REL);
	if (id != 0) {
		for (;;) __asm__ volatile("wfi");
	}
	while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) != n) {
	}
	lock_acquire();
	uint64_t total = 0;
	puts_htif("everett demo: ");
	putdec(n);
	puts_htif(" harts summed 1..");
	putdec(N);
	puts_htif("\n");
	for (unsigned i = 0; i < n; i++) {
		puts_htif("  hart ");
		putdec(i);
		puts_htif(": ");
		putdec(partial[i]);
		puts_htif("\n");
		total += partial[i];
	}
	puts_htif("  total: ");
	putdec(total);
	puts_htif(total == N * (N + 1) / 2 ? " (correct)\n" : " (WRONG)\n");
	lock_release();
	return total == N * (N + 1) / 2 ? 0 : 1;
}
