/* rt.c: HTIF console, formatted printing, trap handling and register dumps
 * of the bare-metal test programs. */
#include <stdarg.h>
#include "rt.h"

/* HTIF words (in their own section: see link.ld). */
volatile u64 tohost __attribute__((section(".tohost"), aligned(8)));
volatile u64 fromhost __attribute__((section(".tohost"), aligned(8)));

volatile int rt_booted __attribute__((section(".data"))) = 0;
u64 rt_resume_sp[RT_MAX_HARTS];
volatile struct rt_trap rt_last, rt_slast;
volatile int rt_expect_traps;
int rt_failures;
static volatile int print_lock;

void *memset(void *d, int c, unsigned long n)
{
	volatile u8 *p = d;
	while (n--)
		*p++ = (u8)c;
	return d;
}

void *memcpy(void *d, const void *s, unsigned long n)
{
	volatile u8 *p = d;
	const u8 *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

void rt_lock(volatile int *l)
{
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		;
}

void rt_unlock(volatile int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

/* htif_cmd sends one command and waits for the acknowledgement in
 * fromhost (HTIF console, device 1 command 1). */
static void htif_cmd(u64 cmd)
{
	while (tohost)
		;
	tohost = cmd;
	while (fromhost == 0)
		;
	fromhost = 0;
}

void rt_putchar(int c) { htif_cmd(1UL << 56 | 1UL << 48 | (u8)c); }

static void putstr(const char *s)
{
	while (*s)
		rt_putchar(*s++);
}

void rt_puts(const char *s)
{
	rt_lock(&print_lock);
	putstr(s);
	rt_putchar('\n');
	rt_unlock(&print_lock);
}

static void putnum(u64 v, int base, int width, char pad, int neg)
{
	char buf[32];
	int n = 0;
	do {
		buf[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg)
		buf[n++] = '-';
	while (n < width)
		buf[n++] = pad;
	while (n)
		rt_putchar(buf[--n]);
}

static void vprint(const char *fmt, va_list ap)
{
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			rt_putchar(*fmt);
			continue;
		}
		fmt++;
		char pad = ' ';
		int width = 0, longs = 0;
		if (*fmt == '0') {
			pad = '0';
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l') {
			longs++;
			fmt++;
		}
		switch (*fmt) {
		case 'd': {
			i64 v = longs ? va_arg(ap, i64) : va_arg(ap, int);
			putnum(v < 0 ? -(u64)v : (u64)v, 10, width, pad, v < 0);
			break;
		}
		case 'u':
			putnum(longs ? va_arg(ap, u64) : va_arg(ap, unsigned), 10, width, pad, 0);
			break;
		case 'x':
			putnum(longs ? va_arg(ap, u64) : va_arg(ap, unsigned), 16, width, pad, 0);
			break;
		case 'p':
			putnum((u64)va_arg(ap, void *), 16, 16, '0', 0);
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			putstr(s ? s : "(null)");
			break;
		}
		case 'c':
			rt_putchar(va_arg(ap, int));
			break;
		case '%':
			rt_putchar('%');
			break;
		default:
			rt_putchar('?');
		}
	}
}

void rt_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rt_lock(&print_lock);
	vprint(fmt, ap);
	rt_unlock(&print_lock);
	va_end(ap);
}

void rt_exit(int code)
{
	if (code == 0 && rt_failures)
		code = 1;
	rt_printf("exit %d\n", code);
	for (;;) {
		tohost = (u64)code << 1 | 1;
		asm volatile("wfi");
	}
}

void rt_init(void)
{
	/* No timer interrupt until a program asks for one: mtimecmp resets
	 * to an unspecified value (priv spec §3.2.1). */
	for (int h = 0; h < RT_MAX_HARTS; h++)
		*CLINT_MTIMECMP(h) = ~0UL;
}

__attribute__((weak)) int rt_secondary_main(int hartid)
{
	(void)hartid;
	return 0;
}

void rt_trap_reset(void)
{
	memset((void *)&rt_last, 0, sizeof rt_last);
	memset((void *)&rt_slast, 0, sizeof rt_slast);
}

__attribute__((weak)) void rt_irq_hook(struct rt_frame *f, char mode)
{
	rt_printf("unexpected interrupt in %c: cause=%016lx epc=%016lx\n", mode, f->cause, f->epc);
	rt_exit(3);
}

__attribute__((weak)) int rt_trap_hook(struct rt_frame *f, char mode)
{
	(void)f;
	(void)mode;
	return 0;
}

/* insn_len reads the instruction at epc (physical = virtual here) to step
 * over it: 16-bit when its low two bits are not 11 (unpriv spec §1.5). */
static u64 insn_len(u64 epc)
{
	u16 lo = *(volatile u16 *)epc;
	return (lo & 3) == 3 ? 4 : 2;
}

static void handle(struct rt_frame *f, char mode, volatile struct rt_trap *rec)
{
	u64 prev;
	if (mode == 'M')
		prev = (f->status >> 11) & 3;
	else
		prev = (f->status >> 8) & 1;
	if (mode == 'M' && f->x[17] == RT_ECALL_RETURN &&
	    (f->cause == CAUSE_ECALL_U || f->cause == CAUSE_ECALL_S || f->cause == CAUSE_ECALL_M)) {
		/* the end of an rt_run_in call: resume in M-mode */
		extern char rt_run_in_resume[];
		f->epc = (u64)rt_run_in_resume;
		f->x[2] = rt_resume_sp[csr_read(mhartid)];
		f->status |= MSTATUS_MPP;
		f->status &= ~(u64)MSTATUS_MPIE; /* M-mode interrupts stay off */
		return;
	}
	if (mode == 'S' && f->x[17] == RT_ECALL_RETURN && f->cause == CAUSE_ECALL_U) {
		/* the end of an rt_run_in call from U with ecalls from U
		 * delegated to S: pass it on to M, leaving this handler */
		csr_write(sscratch, (u64)(f + 1));
		register u64 a7 asm("a7") = RT_ECALL_RETURN;
		register u64 a0 asm("a0") = f->x[10];
		asm volatile("ecall" ::"r"(a7), "r"(a0));
	}
	rec->count++;
	rec->cause = f->cause;
	rec->tval = f->tval;
	rec->epc = f->epc;
	rec->prev_priv = prev;
	rec->vec = f->vec;
	rec->mode = mode;
	if (rt_trap_hook(f, mode))
		return;
	if (f->cause & CAUSE_INTR) {
		rt_irq_hook(f, mode);
		return;
	}
	if (!rt_expect_traps) {
		rt_printf("unexpected trap in %c: cause=%lx epc=%016lx tval=%016lx from=%lu\n", mode, f->cause,
			  f->epc, f->tval, prev);
		rt_exit(2);
	}
	switch (f->cause) {
	case CAUSE_MISALIGNED_FETCH:
	case CAUSE_FETCH_ACCESS:
	case CAUSE_FETCH_PAGE:
		f->epc = f->x[1];
		break;
	default:
		f->epc += insn_len(f->epc);
	}
}

void rt_mtrap(struct rt_frame *f) { handle(f, 'M', &rt_last); }
void rt_strap(struct rt_frame *f) { handle(f, 'S', &rt_slast); }

void rt_print_trap(const char *what, volatile struct rt_trap *t)
{
	if (!t->count) {
		rt_printf("%s: no trap\n", what);
		return;
	}
	rt_printf("%s: trap %c cause=%lx tval=%016lx from=%lu n=%lu\n", what, t->mode, t->cause, t->tval,
		  t->prev_priv, t->count);
}

void rt_dump_csrs(void)
{
	rt_printf("mstatus  %016lx\n", csr_read(mstatus));
	/* QEMU 7.2's rv64 CPU reports the hypervisor extension (misa.H, bit
	 * 7), which everett does not implement: leave it out of the dump. */
	rt_printf("misa     %016lx\n", csr_read(misa) & ~(1UL << 7));
	rt_printf("medeleg  %016lx mideleg %016lx\n", csr_read(medeleg), csr_read(mideleg));
	rt_printf("mie      %016lx mip     %016lx\n", csr_read(mie), csr_read(mip) & ~0x80UL);
	rt_printf("mtvec    %016lx stvec   %016lx\n", csr_read(mtvec), csr_read(stvec));
	rt_printf("mepc     %016lx mcause  %016lx mtval %016lx\n", csr_read(mepc), csr_read(mcause), csr_read(mtval));
	rt_printf("sepc     %016lx scause  %016lx stval %016lx\n", csr_read(sepc), csr_read(scause), csr_read(stval));
	rt_printf("satp     %016lx mcounteren %08lx scounteren %08lx\n", csr_read(satp), csr_read(mcounteren),
		  csr_read(scounteren));
}

/* rt_print_regs is called by rt_dump_regs with the saved registers:
 * r[0..31] x registers, r[32..63] f registers, r[64] fcsr. */
void rt_print_regs(const char *tag, u64 *r)
{
	rt_printf("== regs %s\n", tag);
	for (int i = 0; i < 32; i++)
		rt_printf("x%02d %016lx%c", i, r[i], i % 4 == 3 ? '\n' : ' ');
	for (int i = 0; i < 32; i++)
		rt_printf("f%02d %016lx%c", i, r[32 + i], i % 4 == 3 ? '\n' : ' ');
	rt_printf("fcsr %08lx\n", r[64]);
}
