// What the freestanding firmware needs besides the board: the C memory functions, the ARM EABI helpers the
// compilers call (there is no compiler-rt for ARM in the toolchain), and a heap allocator for Swift's arrays
// and classes (first fit over an address-ordered free list, coalescing on free; the heap is the linker
// script's .heap section).
#include <stddef.h>
#include <stdint.h>

// MARK: - Memory functions

void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  if ((((uintptr_t)d | (uintptr_t)s) & 3u) == 0) {
    for (; n >= 4; n -= 4, d += 4, s += 4) *(uint32_t *)d = *(const uint32_t *)s;
  }
  while (n--) *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  if (d == s || n == 0) return dst;
  if (d < s || d >= s + n) return memcpy(dst, src, n);
  while (n--) d[n] = s[n];
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  uint8_t *d = dst;
  uint8_t byte = (uint8_t)c;
  if (((uintptr_t)d & 3u) == 0) {
    uint32_t word = byte * 0x01010101u;
    for (; n >= 4; n -= 4, d += 4) *(uint32_t *)d = word;
  }
  while (n--) *d++ = byte;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const uint8_t *x = a, *y = b;
  for (; n; n--, x++, y++) {
    if (*x != *y) return *x < *y ? -1 : 1;
  }
  return 0;
}

size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}

// MARK: - ARM EABI run-time helpers (note __aeabi_memset's argument order: destination, count, value)

void __aeabi_memcpy(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy4(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memcpy8(void *d, const void *s, size_t n) { memcpy(d, s, n); }
void __aeabi_memmove(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memmove4(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memmove8(void *d, const void *s, size_t n) { memmove(d, s, n); }
void __aeabi_memset(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memset4(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memset8(void *d, size_t n, int c) { memset(d, c, n); }
void __aeabi_memclr(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr4(void *d, size_t n) { memset(d, 0, n); }
void __aeabi_memclr8(void *d, size_t n) { memset(d, 0, n); }

uint64_t __aeabi_llsl(uint64_t value, int shift) {
  if (shift >= 64) return 0;
  if (shift >= 32) return (uint64_t)((uint32_t)value << (shift - 32)) << 32;
  if (shift == 0) return value;
  uint32_t lo = (uint32_t)value, hi = (uint32_t)(value >> 32);
  return ((uint64_t)((hi << shift) | (lo >> (32 - shift))) << 32) | (uint32_t)(lo << shift);
}

uint64_t __aeabi_llsr(uint64_t value, int shift) {
  if (shift >= 64) return 0;
  if (shift >= 32) return (uint32_t)(value >> 32) >> (shift - 32);
  if (shift == 0) return value;
  uint32_t lo = (uint32_t)value, hi = (uint32_t)(value >> 32);
  return ((uint64_t)(hi >> shift) << 32) | ((lo >> shift) | (hi << (32 - shift)));
}

int64_t __aeabi_lasr(int64_t value, int shift) {
  if (shift >= 64) return value < 0 ? -1 : 0;
  if (shift == 0) return value;
  int32_t hi = (int32_t)(value >> 32);  // the compiler does 64-bit shifts by 32 without a helper
  uint32_t lo = (uint32_t)value;
  if (shift >= 32) return (int64_t)(hi >> (shift - 32));
  return (int64_t)(((uint64_t)(uint32_t)(hi >> shift) << 32) | ((lo >> shift) | ((uint32_t)hi << (32 - shift))));
}

/// Unsigned 64-bit division by shift and subtract (the Cortex-M4 divides 32-bit numbers only).
uint64_t callalert_udivmod64(uint64_t n, uint64_t d, uint64_t *remainder) {
  if (d == 0) {  // as the EABI leaves it undefined: answer something harmless
    *remainder = n;
    return 0;
  }
  if ((n >> 32) == 0 && (d >> 32) == 0) {
    uint32_t q = (uint32_t)n / (uint32_t)d;
    *remainder = (uint32_t)n - q * (uint32_t)d;
    return q;
  }
  uint64_t q = 0, r = 0;
  for (int bit = 63; bit >= 0; bit--) {
    r = (r << 1) | ((n >> bit) & 1u);
    if (r >= d) {
      r -= d;
      q |= (uint64_t)1 << bit;
    }
  }
  *remainder = r;
  return q;
}

/// __aeabi_uldivmod returns the quotient in r0:r1 and the remainder in r2:r3, which C cannot express.
__attribute__((naked)) void __aeabi_uldivmod(void) {
  __asm volatile(
      "push {r4, lr}\n"
      "sub sp, sp, #16\n"
      "add r4, sp, #8\n"
      "str r4, [sp]\n"
      "bl callalert_udivmod64\n"
      "ldr r2, [sp, #8]\n"
      "ldr r3, [sp, #12]\n"
      "add sp, sp, #16\n"
      "pop {r4, pc}\n");
}

/// Signed 64-bit division, the same way (quotient r0:r1, remainder r2:r3; the remainder takes n's sign).
int64_t callalert_divmod64(int64_t n, int64_t d, int64_t *remainder) {
  uint64_t un = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
  uint64_t ud = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
  uint64_t r;
  uint64_t q = callalert_udivmod64(un, ud, &r);
  *remainder = n < 0 ? -(int64_t)r : (int64_t)r;
  return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
}

__attribute__((naked)) void __aeabi_ldivmod(void) {
  __asm volatile(
      "push {r4, lr}\n"
      "sub sp, sp, #16\n"
      "add r4, sp, #8\n"
      "str r4, [sp]\n"
      "bl callalert_divmod64\n"
      "ldr r2, [sp, #8]\n"
      "ldr r3, [sp, #12]\n"
      "add sp, sp, #16\n"
      "pop {r4, pc}\n");
}

// MARK: - Heap

extern uint8_t __heap_start[], __heap_end[];

/// A block: a header, then the payload. Free blocks are kept in an address-ordered list.
typedef struct block {
  size_t size;         // the whole block, header included; a multiple of ALIGN
  struct block *next;  // free blocks: the next free block; allocated blocks: USED_MARK
} block_t;

#define ALIGN 8u
#define HEADER ((sizeof(block_t) + ALIGN - 1) & ~(ALIGN - 1))
#define MIN_BLOCK (HEADER + ALIGN)
#define USED_MARK ((block_t *)0xA110CA7Eu)
#define SHIFTED_MARK 0x5A1F7ED0u  // before an over-aligned payload: [mark, offset back to the block's payload]

static block_t *free_list;
static int heap_ready;
static size_t heap_used, heap_peak;

/// Bytes allocated now and at most since boot (headers included).
size_t callalert_heap_used(void) { return heap_used; }
size_t callalert_heap_peak(void) { return heap_peak; }

static void heap_init(void) {
  uintptr_t start = ((uintptr_t)__heap_start + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
  free_list = (block_t *)start;
  free_list->size = ((uintptr_t)__heap_end - start) & ~(uintptr_t)(ALIGN - 1);
  free_list->next = 0;
  heap_ready = 1;
}

void *malloc(size_t size) {
  if (!heap_ready) heap_init();
  if (size == 0) size = 1;
  if (size > (size_t)(__heap_end - __heap_start)) return 0;
  size_t need = (size + HEADER + ALIGN - 1) & ~(size_t)(ALIGN - 1);
  block_t **link = &free_list;
  for (block_t *block = free_list; block; link = &block->next, block = block->next) {
    if (block->size < need) continue;
    if (block->size - need >= MIN_BLOCK) {  // split: the tail stays free
      block_t *rest = (block_t *)((uint8_t *)block + need);
      rest->size = block->size - need;
      rest->next = block->next;
      *link = rest;
      block->size = need;
    } else {
      *link = block->next;
    }
    block->next = USED_MARK;
    heap_used += block->size;
    if (heap_used > heap_peak) heap_peak = heap_used;
    return (uint8_t *)block + HEADER;
  }
  return 0;
}

void free(void *pointer) {
  if (!pointer) return;
  uint32_t *words = pointer;
  if (words[-2] == SHIFTED_MARK) pointer = (uint8_t *)pointer - words[-1];
  block_t *block = (block_t *)((uint8_t *)pointer - HEADER);
  if (block->next != USED_MARK) return;  // not ours, or freed twice: ignore rather than corrupt the list
  heap_used -= block->size;
  block_t *previous = 0, *next = free_list;
  while (next && next < block) {
    previous = next;
    next = next->next;
  }
  block->next = next;
  if (next && (uint8_t *)block + block->size == (uint8_t *)next) {
    block->size += next->size;
    block->next = next->next;
  }
  if (previous && (uint8_t *)previous + previous->size == (uint8_t *)block) {
    previous->size += block->size;
    previous->next = block->next;
  } else if (previous) {
    previous->next = block;
  } else {
    free_list = block;
  }
}

int posix_memalign(void **result, size_t alignment, size_t size) {
  if (alignment <= ALIGN) {
    *result = malloc(size);
    return *result ? 0 : 12;  // ENOMEM
  }
  // Over-aligned: allocate room to slide the payload up, and leave a mark before it that free() follows back.
  uint8_t *raw = malloc(size + alignment + 8);
  if (!raw) return 12;
  uintptr_t aligned = ((uintptr_t)raw + 8 + alignment - 1) & ~(uintptr_t)(alignment - 1);
  uint32_t *words = (uint32_t *)aligned;
  words[-2] = SHIFTED_MARK;
  words[-1] = (uint32_t)(aligned - (uintptr_t)raw);
  *result = (void *)aligned;
  return 0;
}

void *calloc(size_t count, size_t size) {
  size_t total = count * size;
  if (size && total / size != count) return 0;
  void *pointer = malloc(total);
  if (pointer) memset(pointer, 0, total);
  return pointer;
}

extern uint8_t __data_start[], __bss_end[];

/// RAM used by .data and .bss together (the linker script puts .bss right after .data).
size_t callalert_static_ram(void) {
  return (size_t)(__bss_end - __data_start);
}
