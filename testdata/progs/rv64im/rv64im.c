/* rv64im: every RV64I and M computational instruction on a table of edge
 * values (unpriv spec ch. 2 "RV32I", ch. 5 "RV64I", ch. 7 "M"), loads and
 * stores of every width and signedness, branches and jumps. Prints every
 * result; self-checks the cases the specs pin down: division by zero and
 * overflow (§7.2 table 7.1), shifts by 63 and by 31 in W ops, and sign
 * extension of W results (§5.2). */
#include "rt.h"

static const u64 vals[] = {
	0, 1, 2, 5, 63, 64, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
	0x123456789abcdef0, 0x7fffffffffffffff, 0x8000000000000000, 0xffffffff80000000,
	0xfffffffffffffffb, 0xffffffffffffffff,
};
#define NV (sizeof vals / sizeof vals[0])

typedef u64 (*rfn)(u64, u64);
typedef u64 (*ifn)(u64);

#define R(op)                                                                      \
	static u64 r_##op(u64 a, u64 b)                                            \
	{                                                                          \
		u64 r;                                                             \
		asm volatile(#op " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));        \
		return r;                                                          \
	}
#define I(fn, op, imm)                                                             \
	static u64 fn(u64 a)                                                       \
	{                                                                          \
		u64 r;                                                             \
		asm volatile(op " %0, %1, %2" : "=r"(r) : "r"(a), "i"(imm));       \
		return r;                                                          \
	}

R(add) R(sub) R(sll) R(slt) R(sltu) R(xor) R(srl) R(sra) R(or) R(and)
R(addw) R(subw) R(sllw) R(srlw) R(sraw)
R(mul) R(mulh) R(mulhsu) R(mulhu) R(div) R(divu) R(rem) R(remu)
R(mulw) R(divw) R(divuw) R(remw) R(remuw)

static const struct {
	const char *name;
	rfn fn;
} rops[] = {
#define E(op) {#op, r_##op},
	E(add) E(sub) E(sll) E(slt) E(sltu) E(xor) E(srl) E(sra) E(or) E(and)
	E(addw) E(subw) E(sllw) E(srlw) E(sraw)
	E(mul) E(mulh) E(mulhsu) E(mulhu) E(div) E(divu) E(rem) E(remu)
	E(mulw) E(divw) E(divuw) E(remw) E(remuw)
#undef E
};

I(addi_0, "addi", 0) I(addi_m1, "addi", -1) I(addi_max, "addi", 2047) I(addi_min, "addi", -2048)
I(slti_0, "slti", 0) I(slti_m1, "slti", -1) I(slti_max, "slti", 2047)
I(sltiu_1, "sltiu", 1) I(sltiu_m1, "sltiu", -1) I(sltiu_max, "sltiu", 2047)
I(xori_m1, "xori", -1) I(xori_555, "xori", 0x555) I(ori_min, "ori", -2048) I(andi_max, "andi", 2047)
I(andi_m2, "andi", -2)
I(slli_0, "slli", 0) I(slli_1, "slli", 1) I(slli_31, "slli", 31) I(slli_32, "slli", 32) I(slli_63, "slli", 63)
I(srli_0, "srli", 0) I(srli_1, "srli", 1) I(srli_32, "srli", 32) I(srli_63, "srli", 63)
I(srai_1, "srai", 1) I(srai_32, "srai", 32) I(srai_63, "srai", 63)
I(addiw_0, "addiw", 0) I(addiw_1, "addiw", 1) I(addiw_m1, "addiw", -1) I(addiw_max, "addiw", 2047)
I(addiw_min, "addiw", -2048)
I(slliw_0, "slliw", 0) I(slliw_1, "slliw", 1) I(slliw_31, "slliw", 31)
I(srliw_0, "srliw", 0) I(srliw_1, "srliw", 1) I(srliw_31, "srliw", 31)
I(sraiw_0, "sraiw", 0) I(sraiw_1, "sraiw", 1) I(sraiw_31, "sraiw", 31)

static const struct {
	const char *name;
	ifn fn;
} iops[] = {
#define E(f) {#f, f},
	E(addi_0) E(addi_m1) E(addi_max) E(addi_min) E(slti_0) E(slti_m1) E(slti_max)
	E(sltiu_1) E(sltiu_m1) E(sltiu_max) E(xori_m1) E(xori_555) E(ori_min) E(andi_max) E(andi_m2)
	E(slli_0) E(slli_1) E(slli_31) E(slli_32) E(slli_63) E(srli_0) E(srli_1) E(srli_32) E(srli_63)
	E(srai_1) E(srai_32) E(srai_63) E(addiw_0) E(addiw_1) E(addiw_m1) E(addiw_max) E(addiw_min)
	E(slliw_0) E(slliw_1) E(slliw_31) E(srliw_0) E(srliw_1) E(srliw_31) E(sraiw_0) E(sraiw_1) E(sraiw_31)
#undef E
};

static void checks(void)
{
	const u64 m1 = ~0UL, min64 = 1UL << 63;
	/* M §7.2 table 7.1: division by zero and overflow */
	CHECK_EQ(r_div(7, 0), m1);
	CHECK_EQ(r_divu(7, 0), m1);
	CHECK_EQ(r_rem(7, 0), 7);
	CHECK_EQ(r_remu(7, 0), 7);
	CHECK_EQ(r_div(min64, m1), min64);
	CHECK_EQ(r_rem(min64, m1), 0);
	CHECK_EQ(r_divw(0x80000000, m1), 0xffffffff80000000);
	CHECK_EQ(r_remw(0x80000000, m1), 0);
	CHECK_EQ(r_divw(5, 0), m1);
	CHECK_EQ(r_divuw(5, 0), m1);
	CHECK_EQ(r_remw(0x1ffffffff, 0), m1);
	CHECK_EQ(r_remuw(0x180000000, 0), 0xffffffff80000000);
	CHECK_EQ(r_div(-7L, 2), -3L);
	CHECK_EQ(r_rem(-7L, 2), -1L);
	CHECK_EQ(r_mulh(min64, min64), 1UL << 62);
	CHECK_EQ(r_mulhu(m1, m1), m1 - 1);
	CHECK_EQ(r_mulhsu(m1, m1), m1);
	CHECK_EQ(r_mulw(0x10000, 0x8000), 0xffffffff80000000);
	/* shifts use the low 6 (5 for W) bits of rs2 */
	CHECK_EQ(r_sll(1, 63), min64);
	CHECK_EQ(r_sll(1, 64), 1);
	CHECK_EQ(r_sra(min64, 63), m1);
	CHECK_EQ(r_srl(min64, 63), 1);
	CHECK_EQ(r_sllw(1, 31), 0xffffffff80000000);
	CHECK_EQ(r_sllw(1, 32), 1);
	CHECK_EQ(r_srlw(0xffffffff80000000, 31), 1);
	CHECK_EQ(r_srlw(0xffffffff80000000, 0), 0xffffffff80000000);
	CHECK_EQ(r_sraw(0x80000000, 31), m1);
	CHECK_EQ(srliw_1(0x80000000), 0x40000000);
	CHECK_EQ(sraiw_1(0x80000000), 0xffffffffc0000000);
	/* W ops sign-extend their 32-bit result (unpriv §5.2) */
	CHECK_EQ(r_addw(0x7fffffff, 1), 0xffffffff80000000);
	CHECK_EQ(r_subw(0, 0x80000000), 0xffffffff80000000);
	CHECK_EQ(addiw_0(0x17fffffff), 0x7fffffff);
	CHECK_EQ(addiw_1(0x7fffffff), 0xffffffff80000000);
	CHECK_EQ(sltiu_m1(5), 1);
	CHECK_EQ(slti_0(m1), 1);
}

static u64 lui_vals(int i)
{
	u64 r = 0;
	switch (i) {
	case 0: asm volatile("lui %0, 0" : "=r"(r)); break;
	case 1: asm volatile("lui %0, 1" : "=r"(r)); break;
	case 2: asm volatile("lui %0, 0x7ffff" : "=r"(r)); break;
	case 3: asm volatile("lui %0, 0x80000" : "=r"(r)); break;
	case 4: asm volatile("lui %0, 0xfffff" : "=r"(r)); break;
	}
	return r;
}

static u8 mem[64] __attribute__((aligned(16)));

static void loads_stores(void)
{
	for (int i = 0; i < 64; i++)
		mem[i] = (u8)(0x81 + 0x3b * i);
	u64 r[7];
	for (int off = 0; off < 32; off += 8) {
		u8 *p = mem + off;
		asm volatile("lb %0, 7(%1)" : "=r"(r[0]) : "r"(p));
		asm volatile("lbu %0, 7(%1)" : "=r"(r[1]) : "r"(p));
		asm volatile("lh %0, 6(%1)" : "=r"(r[2]) : "r"(p));
		asm volatile("lhu %0, 6(%1)" : "=r"(r[3]) : "r"(p));
		asm volatile("lw %0, 4(%1)" : "=r"(r[4]) : "r"(p));
		asm volatile("lwu %0, 4(%1)" : "=r"(r[5]) : "r"(p));
		asm volatile("ld %0, 0(%1)" : "=r"(r[6]) : "r"(p));
		rt_printf("load +%02d lb %016lx lbu %016lx lh %016lx lhu %016lx\n", off, r[0], r[1], r[2], r[3]);
		rt_printf("load +%02d lw %016lx lwu %016lx ld %016lx\n", off, r[4], r[5], r[6]);
	}
	/* a negative offset */
	u8 *p = mem + 40;
	asm volatile("ld %0, -8(%1)" : "=r"(r[0]) : "r"(p));
	rt_printf("load -8 ld %016lx\n", r[0]);
	u64 v = 0xf1e2d3c4b5a69788;
	asm volatile("sb %1, 0(%0)\n sh %1, 2(%0)\n sw %1, 4(%0)\n sd %1, 8(%0)\n sb %1, -1(%0)" ::"r"(mem + 48), "r"(v)
		     : "memory");
	for (int i = 40; i < 64; i += 8)
		rt_printf("store mem[%d] %016lx\n", i, *(volatile u64 *)(mem + i));
	/* a load into x0 has no effect on x0 */
	u64 z;
	asm volatile("ld x0, 0(%1)\n mv %0, x0" : "=r"(z) : "r"(mem));
	CHECK_EQ(z, 0);
	CHECK_EQ(*(volatile u8 *)(mem + 47), 0x88);
	CHECK_EQ(*(volatile u64 *)(mem + 48), 0xb5a697889788cc88);
}

/* branch_mask returns bit k set when branch k (beq bne blt bge bltu bgeu)
 * is taken for a, b. */
static u64 branch_mask(u64 a, u64 b)
{
	u64 m = 0;
#define BR(op, bit)                                                                     \
	asm volatile(#op " %1, %2, 1f\n j 2f\n1: ori %0, %0, " #bit "\n2:" : "+r"(m) : "r"(a), "r"(b));
	BR(beq, 1) BR(bne, 2) BR(blt, 4) BR(bge, 8) BR(bltu, 16) BR(bgeu, 32)
#undef BR
	return m;
}

static void jumps(void)
{
	u64 link, target, got;
	/* jalr clears bit 0 of the target (unpriv §2.5.1) and links pc+4 */
	asm volatile("la %1, 1f\n"
		     "addi %1, %1, 1\n"
		     "li %2, 0\n"
		     "jalr %0, 0(%1)\n"
		     "li %2, 99\n"
		     "1: addi %2, %2, 7\n"
		     : "=&r"(link), "=&r"(target), "=&r"(got));
	CHECK_EQ(got, 7);
	CHECK_EQ(link + 4, target - 1);
	/* jalr with rd == rs1 uses the old rs1 */
	asm volatile("la %0, 1f\n"
		     "jalr %0, 0(%0)\n"
		     "1: nop\n"
		     : "=&r"(link));
	rt_printf("jalr rd=rs1 link %016lx\n", link);
	u64 j;
	asm volatile("jal %0, 1f\n nop\n1:" : "=r"(j));
	rt_printf("jal link %016lx\n", j);
	u64 pc;
	asm volatile("auipc %0, 0" : "=r"(pc));
	rt_printf("auipc %016lx\n", pc);
	asm volatile("auipc %0, 0x80000" : "=r"(pc));
	rt_printf("auipc 0x80000 %016lx\n", pc);
}

int main(void)
{
	for (unsigned k = 0; k < sizeof rops / sizeof rops[0]; k++) {
		for (unsigned i = 0; i < NV; i++) {
			rt_printf("%s %016lx:", rops[k].name, vals[i]);
			for (unsigned j = 0; j < NV; j++)
				rt_printf(" %lx", rops[k].fn(vals[i], vals[j]));
			rt_printf("\n");
		}
	}
	for (unsigned k = 0; k < sizeof iops / sizeof iops[0]; k++) {
		rt_printf("%s:", iops[k].name);
		for (unsigned i = 0; i < NV; i++)
			rt_printf(" %lx", iops[k].fn(vals[i]));
		rt_printf("\n");
	}
	for (int i = 0; i < 5; i++)
		rt_printf("lui %d %016lx\n", i, lui_vals(i));
	for (unsigned i = 0; i < NV; i++) {
		rt_printf("branch %016lx:", vals[i]);
		for (unsigned j = 0; j < NV; j++)
			rt_printf(" %02lx", branch_mask(vals[i], vals[j]));
		rt_printf("\n");
	}
	loads_stores();
	jumps();
	checks();
	rt_dump_regs("end");
	return 0;
}
