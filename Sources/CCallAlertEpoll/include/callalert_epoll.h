// epoll(7) for CallAlertTransport's event loop. Glibc's Swift module does not export <sys/epoll.h>, and its
// `struct epoll_event` is packed on x86-64, so Swift gets plain functions over plain arrays instead.
#ifndef CALLALERT_EPOLL_H
#define CALLALERT_EPOLL_H

#include <stdint.h>

enum {
  CALLALERT_EPOLL_IN = 0x001,   // EPOLLIN
  CALLALERT_EPOLL_OUT = 0x004,  // EPOLLOUT
  CALLALERT_EPOLL_ERR = 0x008,  // EPOLLERR
  CALLALERT_EPOLL_HUP = 0x010,  // EPOLLHUP
  CALLALERT_EPOLL_ONESHOT = 0x40000000,  // EPOLLONESHOT
};

enum {
  CALLALERT_EPOLL_ADD = 1,  // EPOLL_CTL_ADD
  CALLALERT_EPOLL_DEL = 2,  // EPOLL_CTL_DEL
  CALLALERT_EPOLL_MOD = 3,  // EPOLL_CTL_MOD
};

/// epoll_create1(EPOLL_CLOEXEC): the descriptor, or -1 with errno set.
int callalert_epoll_create(void);

/// epoll_ctl(2) with the event's data set to `id`: 0, or -1 with errno set.
int callalert_epoll_control(int epoll, int operation, int descriptor, uint32_t events, uint64_t id);

/// epoll_wait(2) into two arrays of `capacity` entries: how many events, or -1 with errno set.
int callalert_epoll_wait(int epoll, uint32_t *events, uint64_t *ids, int capacity, int timeout);

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), the event loop's doorbell: the descriptor, or -1 with errno set.
int callalert_doorbell_create(void);

/// Rings the doorbell (adds 1 to the counter); it stays readable until cleared.
void callalert_doorbell_ring(int doorbell);

/// Clears the doorbell (reads and discards its counter).
void callalert_doorbell_clear(int doorbell);

/// timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC), the clock of Swift's ContinuousClock on
/// Linux: the descriptor, or -1 with errno set.
int callalert_timer_create(void);

/// Arms the timer to expire once, `nanoseconds` from now (at least 1 ns), or disarms it when `nanoseconds`
/// is negative: 0, or -1 with errno set.
int callalert_timer_set(int timer, int64_t nanoseconds);

/// Reads the timer's expiry count (clears its readability); 0 when it had not expired.
uint64_t callalert_timer_clear(int timer);

/// Names the calling thread (pthread_setname_np; at most 15 bytes are kept).
void callalert_name_this_thread(const char *name);

/// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC (Glibc's Swift module does not export accept4): the client's
/// descriptor, or -1 with errno set.
int callalert_accept(int listening);

#endif
