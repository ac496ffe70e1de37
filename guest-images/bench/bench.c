// everett's CPU benchmark: a deterministic mix of integer arithmetic, memory
// traffic, branchy code and some floating point, a few billion instructions
// long. It prints a checksum over HTIF and exits 0, so the same binary runs
// on everett and on QEMU's spike machine and both can be checked to compute
// the same thing.

#include <stdint.h>

extern volatile uint64_t tohost, fromhost;

static void putc_htif(char c) {
	tohost = (1ull << 56) | (1ull << 48) | (uint8_t)c;
	while (fromhost == 0 && tohost != 0) {
	}
	fromhost = 0;
}

static void puts_htif(const char *s) {
	while (*s) putc_htif(*s++);
}

static void puthex(uint64_t v) {
	char buf[17];
	for (int i = 15; i >= 0; i--) {
		buf[i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	}
	buf[16] = 0;
	puts_htif(buf);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void) {
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

// Integer arithmetic: a multiply-heavy hash over a counter.
static uint64_t int_mix(uint64_t rounds) {
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0; i < rounds; i++) {
		h ^= i;
		h *= 0x100000001b3ull;
		h ^= h >> 29;
		h += (h << 7) / ((i & 15) + 1);
	}
	return h;
}

// Memory traffic: strided sweeps and a pointer chase over 4 MiB.
#define WORDS (1u << 19)
static uint64_t arena[WORDS];

static uint64_t mem_traffic(int passes) {
	for (uint32_t i = 0; i < WORDS; i++) arena[i] = i * 2654435761u;
	uint64_t sum = 0;
	for (int p = 0; p < passes; p++) {
		uint32_t stride = 1 + (p % 7) * 8;
		for (uint32_t i = 0; i < WORDS; i += stride) {
			arena[i] += sum;
			sum += arena[i] >> 3;
		}
	}
	// Pointer chase through a random cycle.
	for (uint32_t i = 0; i < WORDS; i++) arena[i] = i;
	for (uint32_t i = WORDS - 1; i > 0; i--) {
		uint32_t j = rng() % (i + 1);
		uint64_t t = arena[i];
		arena[i] = arena[j];
		arena[j] = t;
	}
	uint64_t at = 0;
	for (int step = 0; step < passes * 200000; step++) at = arena[at];
	return sum ^ at;
}

// Branchy code: quicksort of random keys and a small bytecode interpreter.
static uint32_t keys[1 << 16];

static void quicksort(uint32_t *a, int lo, int hi) {
	while (lo < hi) {
		uint32_t pivot = a[(lo + hi) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot) i++;
			while (a[j] > pivot) j--;
			if (i <= j) {
				uint32_t t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		if (j - lo < hi - i) {
			quicksort(a, lo, j);
			lo = i;
		} else {
			quicksort(a, i, hi);
			hi = j;
		}
	}
}

static uint64_t sorting(int rounds) {
	uint64_t check = 0;
	for (int r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++) keys[i] = (uint32_t)rng();
		quicksort(keys, 0, sizeof keys / sizeof keys[0] - 1);
		for (unsigned i = 1; i < sizeof keys / sizeof keys[0]; i++)
			if (keys[i - 1] > keys[i]) return 0xbad;
		check += keys[r & 1023];
	}
	return check;
}

enum { OP_PUSH, OP_ADD, OP_MUL, OP_XOR, OP_DUP, OP_SWAP, OP_JNZ, OP_DEC, OP_DROP, OP_HALT };

static uint64_t interp(uint64_t iters) {
	static const uint8_t prog[] = {
		OP_PUSH, 1, OP_PUSH, 0,        // acc, counter placeholder
		OP_SWAP, OP_DUP, OP_MUL, OP_PUSH, 7, OP_ADD, OP_SWAP, // acc = acc*acc + 7
		OP_DEC, OP_DUP, OP_JNZ, 4, OP_DROP, OP_HALT,
	};
	uint64_t stack[16];
	int sp = 0, pc = 0;
	uint64_t result = 0;
	stack[sp++] = 1;
	stack[sp++] = iters;
	pc = 4;
	for (;;) {
		switch (prog[pc++]) {
		case OP_PUSH: stack[sp++] = prog[pc++]; break;
		case OP_ADD: sp--; stack[sp - 1] += stack[sp]; break;
		case OP_MUL: sp--; stack[sp - 1] *= stack[sp]; break;
		case OP_XOR: sp--; stack[sp - 1] ^= stack[sp]; break;
		case OP_DUP: stack[sp] = stack[sp - 1]; sp++; break;
		case OP_SWAP: { uint64_t t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; } break;
		case OP_JNZ: { uint8_t target = prog[pc++]; if (stack[--sp]) pc = target; } break;
		case OP_DEC: stack[sp - 1]--; break;
		case OP_DROP: sp--; break;
		case OP_HALT: result = stack[sp - 1]; return result;
		default: return 0xbad;
		}
	}
}

// Some floating point: a small n-body step loop in double precision.
static uint64_t floating(int steps) {
	double px[5], py[5], vx[5], vy[5], m[5];
	for (int i = 0; i < 5; i++) {
		px[i] = i * 1.5 + 0.25;
		py[i] = i * -0.75 + 1.0;
		vx[i] = 0.01 * i;
		vy[i] = -0.02 * i;
		m[i] = 1.0 + i * 0.5;
	}
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < 5; i++)
			for (int j = i + 1; j < 5; j++) {
				double dx = px[i] - px[j], dy = py[i] - py[j];
				double d2 = dx * dx + dy * dy + 0.01;
				double inv = 1.0 / (d2 * __builtin_sqrt(d2));
				vx[i] -= dx * m[j] * inv * 1e-3;
				vy[i] -= dy * m[j] * inv * 1e-3;
				vx[j] += dx * m[i] * inv * 1e-3;
				vy[j] += dy * m[i] * inv * 1e-3;
			}
		for (int i = 0; i < 5; i++) {
			px[i] += vx[i] * 1e-2;
			py[i] += vy[i] * 1e-2;
		}
	}
	double e = 0;
	for (int i = 0; i < 5; i++) e += m[i] * (vx[i] * vx[i] + vy[i] * vy[i]);
	union { double d; uint64_t u; } u = {e};
	return u.u;
}

#ifndef SCALE
#define SCALE 10
#endif

int main(void) {
	uint64_t a = int_mix(30000000ull * SCALE);
	uint64_t b = mem_traffic(4 * SCALE);
	uint64_t c = sorting(2 * SCALE);
	uint64_t d = interp(4000000ull * SCALE);
	uint64_t e = floating(60000 * SCALE);
	puts_htif("bench checksum ");
	puthex(a ^ b * 3 ^ c * 5 ^ d * 7 ^ e * 11);
	puts_htif("\n");
	return 0;
}
