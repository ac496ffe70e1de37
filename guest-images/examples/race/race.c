/* race: a small settlement engine on two harts.
 *
 * 48 accounts start with 400 units each. Every 100 µs of virtual time
 * a periodic task on each hart settles a batch of transfer requests
 * between random accounts: it validates a request's checksum, then moves
 * the money unless the source account cannot cover it. When both harts are
 * done, hart 0 audits the books: transfers move money, they never create
 * or destroy it. Run with `everett run --smp 2 race.elf`; the exit code is
 * 0 when the audit passes, 1 when it does not. README.md explains more. */
#include "../../sdk/everett.h"

typedef unsigned long u64;
typedef unsigned int u32;

#define NHARTS 2
#define NACCOUNTS 48
#define INITIAL_BALANCE 400
#define BATCH 8	      /* requests settled per hart and period */
#define PERIODS 32	      /* periods per run */
#define PERIOD_TICKS 1000     /* mtime ticks (10 MHz) per period: 100 µs */

/* CLINT (QEMU virt / everett memory map). */
#define CLINT_MTIMECMP(h) ((volatile u64 *)(0x02004000UL + 8 * (h)))
#define CLINT_MTIME ((volatile u64 *)0x0200bff8UL)
#define MIE_MTIE (1UL << 7)

/* HTIF, placed by link.ld. */
volatile u64 tohost __attribute__((section(".tohost"), aligned(64)));
volatile u64 fromhost __attribute__((section(".tohost"), aligned(64)));

struct account {
	int lock;
	long balance;
};

struct request {
	u32 from, to;
	long amount;
	char memo[24]; /* the payer's reference, e.g. "invoice 0001234567" */
	u32 checksum;
};

/* Set by main when the other harts may start (crt0.S waits for it). It
 * lives in .data: hart 0 clears .bss while the others already poll. */
int released __attribute__((section(".data"))) = 0;

static struct account accounts[NACCOUNTS];
static int finished[NHARTS];
static u64 start_time;
static u64 refused; /* requests refused for insufficient funds, all harts */

/* ---------------------------------------------------------------- HTIF -- */

static void htif_putc(char c)
{
	while (tohost)
		;
	tohost = 1UL << 56 | 1UL << 48 | (unsigned char)c; /* console, putchar */
	while (!fromhost)
		;
	fromhost = 0;
}

static void puts_(const char *s)
{
	while (*s)
		htif_putc(*s++);
}

static void putdec(long v)
{
	char buf[24];
	int n = 0;
	u64 u = v < 0 ? -(u64)v : (u64)v;
	do {
		buf[n++] = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		htif_putc('-');
	while (n)
		htif_putc(buf[--n]);
}

void __attribute__((noreturn)) htif_exit(int code)
{
	for (;;)
		tohost = (u64)code << 1 | 1;
}

/* ------------------------------------------------------------- helpers -- */

static void spin_lock(int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			;
}

static void spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static u64 hartid(void)
{
	u64 id;
	__asm__ volatile("csrr %0, mhartid" : "=r"(id));
	return id;
}

/* sleep_until waits in WFI until mtime reaches t: the timer interrupt is
 * enabled in mie but not globally (mstatus.MIE stays 0), so it wakes the
 * hart without trapping. */
static void sleep_until(u64 t)
{
	volatile u64 *cmp = CLINT_MTIMECMP(hartid());
	*cmp = t;
	__asm__ volatile("csrs mie, %0" ::"r"(MIE_MTIE));
	while (*CLINT_MTIME < t)
		__asm__ volatile("wfi");
	__asm__ volatile("csrc mie, %0" ::"r"(MIE_MTIE));
	*cmp = ~0UL;
}

/* xorshift64: each hart's request stream is fixed, so a run depends only
 * on how the harts interleave. */
static u64 next_random(u64 *s)
{
	u64 x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static u32 checksum(const struct request *r)
{
	const unsigned char *p = (const unsigned char *)r;
	u32 h = 2166136261u; /* FNV-1a over everything before the checksum */
	for (unsigned long i = 0; i < __builtin_offsetof(struct request, checksum); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* ---------------------------------------------------------- the books -- */

/* transfer moves amount from one account to another, and returns 0 when
 * the source cannot cover it. Only the source account is locked: the
 * balance check and the debit must be atomic so that no account is
 * overdrawn, and taking a single lock means transfers in opposite
 * directions can never deadlock. */
#ifndef RACE_FIXED
static int transfer(u32 from, u32 to, long amount)
{
	struct account *src = &accounts[from], *dst = &accounts[to];

	spin_lock(&src->lock);
	if (src->balance < amount) {
		spin_unlock(&src->lock);
		return 0;
	}
	src->balance -= amount;
	dst->balance += amount;
	spin_unlock(&src->lock);
	return 1;
}
#else
/* The fix (make race-fixed.elf): lock both accounts, always the one with
 * the lower index first, so that opposite transfers cannot deadlock. */
static int transfer(u32 from, u32 to, long amount)
{
	struct account *src = &accounts[from], *dst = &accounts[to];
	struct account *first = from < to ? src : dst, *second = from < to ? dst : src;
	int ok = 0;

	spin_lock(&first->lock);
	spin_lock(&second->lock);
	if (src->balance >= amount) {
		src->balance -= amount;
		dst->balance += amount;
		ok = 1;
	}
	spin_unlock(&second->lock);
	spin_unlock(&first->lock);
	return ok;
}
#endif

/* settle validates and applies a batch of requests. */
static void settle(struct request *batch, int n)
{
	for (int i = 0; i < n; i++) {
		struct request *r = &batch[i];
		if (r->checksum != checksum(r) || r->from == r->to)
			continue;
		if (!transfer(r->from, r->to, r->amount))
			__atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED);
	}
}

/* memo writes "invoice " and ten digits of n, NUL-padded. */
static void memo(char *m, unsigned long size, u64 n)
{
	static const char prefix[] = "invoice ";
	unsigned long i = 0;
	for (; i < sizeof prefix - 1; i++)
		m[i] = prefix[i];
	for (int d = 0; d < 10; d++, n /= 10)
		m[i + 9 - d] = '0' + n % 10;
	for (i += 10; i < size; i++)
		m[i] = 0;
}

/* receive fills a batch with the next requests of this hart's stream. */
static void receive(u64 *rng, struct request *batch, int n)
{
	for (int i = 0; i < n; i++) {
		struct request *r = &batch[i];
		u64 x = next_random(rng);
		r->from = x % NACCOUNTS;
		r->to = (x >> 8) % NACCOUNTS;
		r->amount = 1 + (x >> 16) % 300;
		memo(r->memo, sizeof r->memo, x >> 24);
		r->checksum = checksum(r);
	}
}

/* run_periodic is the settlement task of one hart. */
static void run_periodic(u64 hart)
{
	struct request batch[BATCH];
	u64 rng = 0x9e3779b97f4a7c15UL * (hart + 1);

	for (int p = 0; p < PERIODS; p++) {
		sleep_until(start_time + (u64)(p + 1) * PERIOD_TICKS);
		receive(&rng, batch, BATCH);
		settle(batch, BATCH);
	}
	__atomic_store_n(&finished[hart], 1, __ATOMIC_RELEASE);
}

void worker(u64 hart)
{
	if (hart < NHARTS)
		run_periodic(hart);
}

int main(void)
{
	for (int i = 0; i < NACCOUNTS; i++)
		accounts[i].balance = INITIAL_BALANCE;
	for (int h = 0; h < NHARTS; h++)
		*CLINT_MTIMECMP(h) = ~0UL;
	start_time = *CLINT_MTIME;
	__atomic_store_n(&released, 1, __ATOMIC_RELEASE);

	run_periodic(0);
	for (int h = 1; h < NHARTS; h++)
		while (!__atomic_load_n(&finished[h], __ATOMIC_ACQUIRE))
			;

	/* The audit. */
	long total = 0;
	for (int i = 0; i < NACCOUNTS; i++)
		total += accounts[i].balance;
	long want = (long)NACCOUNTS * INITIAL_BALANCE;
	everett_sometimes(refused > 0, "a transfer was refused for insufficient funds");
	EVERETT_REACHABLE("the audit ran");
	everett_always(total == want, "transfers conserve money");

	puts_("race: settled ");
	putdec(2L * PERIODS * BATCH);
	puts_(" requests, ");
	putdec((long)refused);
	puts_(" refused; total ");
	putdec(total);
	puts_(total == want ? " (ok)\n" : " (MONEY WAS CREATED OR DESTROYED)\n");
	return total == want ? 0 : 1;
}
