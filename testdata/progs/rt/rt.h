/* rt.h: the tiny runtime of everett's bare-metal test programs.
 *
 * Output goes to the HTIF console (device 1, command 1: one byte per
 * command), the only HTIF output both everett and QEMU 7.2's spike machine
 * implement. A program's main returns its exit code: 0 passes. */
#ifndef RT_H
#define RT_H

#include "rt_asm.h"

typedef unsigned long u64;
typedef long i64;
typedef unsigned int u32;
typedef int i32;
typedef unsigned short u16;
typedef unsigned char u8;

#define csr_read(csr) ({ u64 __v; asm volatile("csrr %0, " #csr : "=r"(__v)::"memory"); __v; })
#define csr_write(csr, val) ({ asm volatile("csrw " #csr ", %0" ::"rK"((u64)(val)) : "memory"); })
#define csr_set(csr, val) ({ asm volatile("csrs " #csr ", %0" ::"rK"((u64)(val)) : "memory"); })
#define csr_clear(csr, val) ({ asm volatile("csrc " #csr ", %0" ::"rK"((u64)(val)) : "memory"); })
#define csr_swap(csr, val) ({ u64 __v; asm volatile("csrrw %0, " #csr ", %1" : "=r"(__v) : "rK"((u64)(val)) : "memory"); __v; })

#define CLINT_BASE 0x02000000UL
#define CLINT_MSIP(h) ((volatile u32 *)(CLINT_BASE + 4 * (h)))
#define CLINT_MTIMECMP(h) ((volatile u64 *)(CLINT_BASE + 0x4000 + 8 * (h)))
#define CLINT_MTIME ((volatile u64 *)(CLINT_BASE + 0xbff8))

/* Privilege modes (priv spec §1.2). */
#define PRV_U 0
#define PRV_S 1
#define PRV_M 3

/* Exception causes (priv spec §3.1.15, table 3.6). */
#define CAUSE_MISALIGNED_FETCH 0
#define CAUSE_FETCH_ACCESS 1
#define CAUSE_ILLEGAL 2
#define CAUSE_BREAKPOINT 3
#define CAUSE_MISALIGNED_LOAD 4
#define CAUSE_LOAD_ACCESS 5
#define CAUSE_MISALIGNED_STORE 6
#define CAUSE_STORE_ACCESS 7
#define CAUSE_ECALL_U 8
#define CAUSE_ECALL_S 9
#define CAUSE_ECALL_M 11
#define CAUSE_FETCH_PAGE 12
#define CAUSE_LOAD_PAGE 13
#define CAUSE_STORE_PAGE 15
#define CAUSE_INTR (1UL << 63)

/* A trap frame as built by rt_mtrap_entry / rt_strap_entry. */
struct rt_frame {
	u64 x[32];
	u64 epc, cause, tval, status;
	i64 vec; /* vector-table entry taken, -1 in direct mode */
	u64 pad;
};

/* What the last trap handled by the runtime was. */
struct rt_trap {
	u64 count;       /* traps recorded since rt_trap_reset */
	u64 cause, tval, epc;
	u64 prev_priv;   /* mode the trap came from (MPP, or SPP) */
	i64 vec;
	char mode;       /* 'M' or 'S': the mode that handled it */
};

extern volatile struct rt_trap rt_last;   /* traps taken into M */
extern volatile struct rt_trap rt_slast;  /* traps taken into S */
/* While nonzero, synchronous traps are recorded and skipped (pc moves past
 * the instruction; fetch faults return to ra) instead of failing the
 * program. */
extern volatile int rt_expect_traps;

/* Hooks a program may define. rt_irq_hook handles an interrupt (it must
 * clear its source); rt_trap_hook may handle any trap and return 1. */
void rt_irq_hook(struct rt_frame *f, char mode);
int rt_trap_hook(struct rt_frame *f, char mode);
int rt_secondary_main(int hartid);

void rt_putchar(int c);
void rt_puts(const char *s);
void rt_printf(const char *fmt, ...);
void rt_exit(int code) __attribute__((noreturn));
void rt_dump_regs(const char *tag);
void rt_dump_csrs(void);
long rt_run_in(int mode, long (*fn)(long), long arg);
void rt_trap_reset(void);
void rt_lock(volatile int *l);
void rt_unlock(volatile int *l);
void *memset(void *d, int c, unsigned long n);
void *memcpy(void *d, const void *s, unsigned long n);

extern char rt_mtrap_entry[], rt_mtrap_vectors[], rt_strap_entry[], rt_strap_vectors[];

/* Print a trap record in the fixed format "trap M cause=.. tval=.. from=..". */
void rt_print_trap(const char *what, volatile struct rt_trap *t);

/* CHECK fails the program (exit code 1 plus a message) when cond is false. */
extern int rt_failures;
#define CHECK(cond) do { if (!(cond)) { rt_failures++; rt_printf("CHECK FAILED %s:%d: %s\n", __FILE_NAME__, __LINE__, #cond); } } while (0)
#define CHECK_EQ(got, want) do { u64 __g = (u64)(got), __w = (u64)(want); if (__g != __w) { rt_failures++; rt_printf("CHECK FAILED %s:%d: %s = %016lx, want %016lx\n", __FILE_NAME__, __LINE__, #got, __g, __w); } } while (0)

#endif
