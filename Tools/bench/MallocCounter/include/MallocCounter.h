// Counts heap allocation calls for `callalert-bench`: the executable that links this target defines malloc,
// calloc, realloc, posix_memalign, aligned_alloc and memalign, so every library in the process (the Swift
// runtime, Foundation, Dispatch) calls them; each counts one call and forwards to glibc's __libc_* entry.
#ifndef CALLALERT_BENCH_MALLOC_COUNTER_H
#define CALLALERT_BENCH_MALLOC_COUNTER_H

/// Allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) made by any thread since
/// the process started; 0 forever where the interposer is not built (not glibc).
long callalert_bench_allocations(void);

/// Whether the interposer is active (glibc on Linux).
int callalert_bench_counts_allocations(void);

#endif
