// ARMv6-M (Cortex-M0) has no divide instruction: the EABI division helpers the compilers call, which the
// toolchain does not ship (no compiler-rt for ARM). Shift-and-subtract, enough for the firmware's few
// divisions (clock arithmetic, integer formatting).
#include <stdint.h>

typedef struct {
  uint32_t quotient, remainder;
} uidivmod_t;

static uidivmod_t udivmod32(uint32_t n, uint32_t d) {
  uidivmod_t r = {0, 0};
  if (d == 0) return r;  // the EABI leaves it undefined; Swift traps before dividing by zero
  for (int bit = 31; bit >= 0; bit--) {
    r.remainder = (r.remainder << 1) | ((n >> bit) & 1u);
    if (r.remainder >= d) {
      r.remainder -= d;
      r.quotient |= 1u << bit;
    }
  }
  return r;
}

uint32_t __aeabi_uidiv(uint32_t n, uint32_t d) {
  return udivmod32(n, d).quotient;
}

// Returns the quotient in r0 and the remainder in r1: a 64-bit value in r0:r1.
uint64_t __aeabi_uidivmod(uint32_t n, uint32_t d) {
  uidivmod_t r = udivmod32(n, d);
  return (uint64_t)r.remainder << 32 | r.quotient;
}

int32_t __aeabi_idiv(int32_t n, int32_t d) {
  uint32_t un = n < 0 ? 0u - (uint32_t)n : (uint32_t)n, ud = d < 0 ? 0u - (uint32_t)d : (uint32_t)d;
  uint32_t q = udivmod32(un, ud).quotient;
  return (n < 0) != (d < 0) ? -(int32_t)q : (int32_t)q;
}

uint64_t __aeabi_idivmod(int32_t n, int32_t d) {
  uint32_t un = n < 0 ? 0u - (uint32_t)n : (uint32_t)n, ud = d < 0 ? 0u - (uint32_t)d : (uint32_t)d;
  uidivmod_t r = udivmod32(un, ud);
  int32_t q = (n < 0) != (d < 0) ? -(int32_t)r.quotient : (int32_t)r.quotient;
  int32_t m = n < 0 ? -(int32_t)r.remainder : (int32_t)r.remainder;
  return (uint64_t)(uint32_t)m << 32 | (uint32_t)q;
}

// 64-bit multiply (the low 64 bits of the product), from 16 x 16-bit partial products: a plain `a * b`
// here would call this very function.
static uint32_t mul32x32_hi(uint32_t a, uint32_t b, uint32_t *lo) {
  uint32_t al = a & 0xFFFFu, ah = a >> 16, bl = b & 0xFFFFu, bh = b >> 16;
  uint32_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint32_t mid = (ll >> 16) + (lh & 0xFFFFu) + (hl & 0xFFFFu);
  *lo = (ll & 0xFFFFu) | (mid << 16);
  return hh + (lh >> 16) + (hl >> 16) + (mid >> 16);
}

uint64_t __aeabi_lmul(uint64_t a, uint64_t b) {
  uint32_t alo = (uint32_t)a, ahi = (uint32_t)(a >> 32), blo = (uint32_t)b, bhi = (uint32_t)(b >> 32);
  uint32_t lo;
  uint32_t hi = mul32x32_hi(alo, blo, &lo);
  hi += alo * bhi + ahi * blo;
  return (uint64_t)hi << 32 | lo;
}

// ARMv6-M has no exclusive loads and stores: the atomics Swift's runtime uses (reference counts) become
// library calls. One core: masking interrupts makes each one atomic.
static inline uint32_t mask(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  return primask;
}

static inline void unmask(uint32_t primask) {
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

uint32_t atomic_load_4(const volatile uint32_t *p, int order) __asm("__atomic_load_4");
uint32_t atomic_load_4(const volatile uint32_t *p, int order) {
  (void)order;
  return *p;
}

void atomic_store_4(volatile uint32_t *p, uint32_t value, int order) __asm("__atomic_store_4");
void atomic_store_4(volatile uint32_t *p, uint32_t value, int order) {
  (void)order;
  *p = value;
}

uint32_t atomic_fetch_add_4(volatile uint32_t *p, uint32_t value, int order) __asm("__atomic_fetch_add_4");
uint32_t atomic_fetch_add_4(volatile uint32_t *p, uint32_t value, int order) {
  (void)order;
  uint32_t saved = mask();
  uint32_t old = *p;
  *p = old + value;
  unmask(saved);
  return old;
}

uint32_t atomic_fetch_sub_4(volatile uint32_t *p, uint32_t value, int order) __asm("__atomic_fetch_sub_4");
uint32_t atomic_fetch_sub_4(volatile uint32_t *p, uint32_t value, int order) {
  (void)order;
  uint32_t saved = mask();
  uint32_t old = *p;
  *p = old - value;
  unmask(saved);
  return old;
}

_Bool atomic_compare_exchange_4(volatile uint32_t *p, uint32_t *expected, uint32_t desired, int success,
                                int failure) __asm("__atomic_compare_exchange_4");
_Bool atomic_compare_exchange_4(volatile uint32_t *p, uint32_t *expected, uint32_t desired, int success,
                                int failure) {
  (void)success;
  (void)failure;
  uint32_t saved = mask();
  uint32_t old = *p;
  _Bool equal = old == *expected;
  if (equal) *p = desired;
  else *expected = old;
  unmask(saved);
  return equal;
}
