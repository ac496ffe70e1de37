/* bank: a transfer service whose two tellers can deadlock each other.
 *
 * Four accounts, two teller threads, each working through its own batch of
 * transfer requests (as if read from a queue); then main audits the books.
 * An ordinary Linux program: build it with riscv64-linux-gnu-gcc -static
 * -pthread (Makefile), run it directly or as everett's workload:
 *
 *   everett explore --linux --smp 2 build/examples/bank/bank
 *
 * The bug (a dynamic lock-order deadlock): transfer() locks the account it
 * debits, then the account it credits. Each account has its own lock, and
 * holding both makes the check and the move atomic; but the order in which
 * they are taken comes from the request. Teller A moves money from
 * checking to savings while teller B moves money from savings to checking:
 * A holds checking and waits for savings, B holds savings and waits for
 * checking, and neither ever lets go. Both threads sleep in futex_wait for
 * good and main sleeps in pthread_join: everett's init reports the
 * deadlock. It needs A to be preempted between its two lock acquisitions
 * just when B starts the opposite transfer: a window of a few instructions,
 * so a normal run almost never hits it.
 *
 * The fix (build with -DFIXED, bank-fixed): take the two locks in one
 * global order, the lower account number first, whatever the direction of
 * the transfer. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { CHECKING, SAVINGS, RENT, TAXES, ACCOUNTS };

static const char *const names[ACCOUNTS] = {"checking", "savings", "rent", "taxes"};

struct account {
	pthread_mutex_t lock;
	long balance;
};

static struct account accounts[ACCOUNTS];

#define OPENING_BALANCE 1000L

struct request {
	int from, to;
	long amount;
	const char *memo;
};

/* The tellers' batches. Both move money between checking and savings, in
 * opposite directions, in their last request. B starts a little after A,
 * so in a run nobody holds A back, A is done with that transfer before B
 * gets to its own. */
static const struct request batch_a[] = {
	{CHECKING, RENT, 300, "rent for December"},
	{CHECKING, TAXES, 50, "property tax instalment"},
	{CHECKING, SAVINGS, 100, "monthly savings plan"},
};
static const struct request batch_b[] = {
	{SAVINGS, TAXES, 200, "income tax prepayment"},
	{TAXES, RENT, 20, "tax refund towards the rent"},
	{SAVINGS, CHECKING, 250, "cover the card bill"},
};

/* transfer moves amount from one account to another unless the source
 * cannot cover it; it returns whether it did. */
static int transfer(int from, int to, long amount)
{
	struct account *first = &accounts[from], *second = &accounts[to];
#ifdef FIXED
	/* One global order: the lower account number first. */
	if (to < from) {
		first = &accounts[to];
		second = &accounts[from];
	}
#endif
	/* BUG (without FIXED): the order follows the request's direction. */
	pthread_mutex_lock(&first->lock);
	pthread_mutex_lock(&second->lock);
	int ok = accounts[from].balance >= amount;
	if (ok) {
		accounts[from].balance -= amount;
		accounts[to].balance += amount;
	}
	pthread_mutex_unlock(&second->lock);
	pthread_mutex_unlock(&first->lock);
	return ok;
}

/* verify stands for the work a teller does on a request before it moves
 * money, such as checking its signature: here a hash of the request,
 * stretched over 2000 rounds (about 200,000 instructions). It is most of a
 * teller's time, which keeps the window between the two lock acquisitions
 * a tiny part of a run: under qemu-riscv64-static (2026-12-04) a run
 * deadlocks about 1 time in 300 with 200 rounds, and twice in 2400 runs
 * with 2000 (README.md). */
static unsigned long verify(const struct request *r)
{
	unsigned long h = 14695981039346656037UL ^ (unsigned long)r->amount;
	size_t n = strlen(r->memo);
	for (int round = 0; round < 2000; round++)
		for (size_t i = 0; i < n; i++)
			h = (h ^ (unsigned char)r->memo[i]) * 1099511628211UL;
	return h;
}

struct teller {
	const char *name;
	const struct request *batch;
	int n;
	int done, refused;
	unsigned long receipts;
};

static void *teller(void *arg)
{
	struct teller *t = arg;
	for (int i = 0; i < t->n; i++) {
		const struct request *r = &t->batch[i];
		t->receipts ^= verify(r);
		if (transfer(r->from, r->to, r->amount))
			t->done++;
		else
			t->refused++;
	}
	return NULL;
}

int main(void)
{
	for (int i = 0; i < ACCOUNTS; i++) {
		pthread_mutex_init(&accounts[i].lock, NULL);
		accounts[i].balance = OPENING_BALANCE;
	}
	struct teller tellers[] = {
		{"A", batch_a, sizeof batch_a / sizeof batch_a[0], 0, 0, 0},
		{"B", batch_b, sizeof batch_b / sizeof batch_b[0], 0, 0, 0},
	};
	enum { TELLERS = sizeof tellers / sizeof tellers[0] };
	pthread_t threads[TELLERS];
	for (int i = 0; i < TELLERS; i++)
		if (pthread_create(&threads[i], NULL, teller, &tellers[i]) != 0) {
			perror("bank: pthread_create");
			return 1;
		}
	for (int i = 0; i < TELLERS; i++)
		pthread_join(threads[i], NULL);

	/* The audit: transfers move money, so the total stays what it was. */
	long total = 0;
	for (int i = 0; i < ACCOUNTS; i++) {
		printf("bank: %-8s %5ld\n", names[i], accounts[i].balance);
		total += accounts[i].balance;
	}
	for (int i = 0; i < TELLERS; i++)
		printf("bank: teller %s: %d done, %d refused\n", tellers[i].name, tellers[i].done,
		       tellers[i].refused);
	assert(total == ACCOUNTS * OPENING_BALANCE);
	printf("bank: books balance (%ld)\n", total);
	return 0;
}
