// The allocation counter behind `callalert-bench`'s "allocations per frame" (see MallocCounter.h).
// Only glibc exports the __libc_* entry points forwarded to here; elsewhere nothing is interposed.
#include "MallocCounter.h"

#include <errno.h>  // also defines __GLIBC__ on glibc
#include <stddef.h>

#if defined(__linux__) && defined(__GLIBC__)

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static long allocations;

static inline void count(void) { __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED); }

long callalert_bench_allocations(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
int callalert_bench_counts_allocations(void) { return 1; }

void *malloc(size_t size) {
  count();
  return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
  count();
  return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
  count();
  return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
  count();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  count();
  if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL) return ENOMEM;
  *out = pointer;
  return 0;
}
#else
long callalert_bench_allocations(void) { return 0; }
int callalert_bench_counts_allocations(void) { return 0; }
#endif
