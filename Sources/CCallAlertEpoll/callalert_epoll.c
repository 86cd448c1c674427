#define _GNU_SOURCE  // accept4
#include "callalert_epoll.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

_Static_assert(CALLALERT_EPOLL_IN == EPOLLIN && CALLALERT_EPOLL_OUT == EPOLLOUT, "epoll event bits");
_Static_assert(CALLALERT_EPOLL_ERR == EPOLLERR && CALLALERT_EPOLL_HUP == EPOLLHUP, "epoll event bits");
_Static_assert(CALLALERT_EPOLL_ONESHOT == EPOLLONESHOT, "epoll event bits");
_Static_assert(
    CALLALERT_EPOLL_ADD == EPOLL_CTL_ADD && CALLALERT_EPOLL_DEL == EPOLL_CTL_DEL && CALLALERT_EPOLL_MOD == EPOLL_CTL_MOD,
    "epoll operations");

int callalert_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int callalert_epoll_control(int epoll, int operation, int descriptor, uint32_t events, uint64_t id) {
  struct epoll_event event = {.events = events, .data = {.u64 = id}};
  return epoll_ctl(epoll, operation, descriptor, &event);
}

int callalert_epoll_wait(int epoll, uint32_t *events, uint64_t *ids, int capacity, int timeout) {
  struct epoll_event ready[64];
  if (capacity > 64) capacity = 64;
  int count = epoll_wait(epoll, ready, capacity, timeout);
  for (int index = 0; index < count; index++) {
    events[index] = ready[index].events;
    ids[index] = ready[index].data.u64;
  }
  return count;
}

int callalert_doorbell_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void callalert_doorbell_ring(int doorbell) {
  uint64_t one = 1;
  // EAGAIN means the counter is at its maximum: still readable, so the loop wakes anyway.
  while (write(doorbell, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

void callalert_doorbell_clear(int doorbell) {
  uint64_t count;
  (void)!read(doorbell, &count, sizeof count);
}

int callalert_accept(int listening) { return accept4(listening, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int callalert_timer_create(void) { return timerfd_create(CLOCK_BOOTTIME, TFD_NONBLOCK | TFD_CLOEXEC); }

int callalert_timer_set(int timer, int64_t nanoseconds) {
  struct itimerspec setting = {0};
  if (nanoseconds >= 0) {
    if (nanoseconds == 0) nanoseconds = 1;  // all zeros would disarm it
    setting.it_value.tv_sec = nanoseconds / 1000000000;
    setting.it_value.tv_nsec = nanoseconds % 1000000000;
  }
  return timerfd_settime(timer, 0, &setting, NULL);
}

uint64_t callalert_timer_clear(int timer) {
  uint64_t expirations = 0;
  if (read(timer, &expirations, sizeof expirations) != sizeof expirations) return 0;
  return expirations;
}

void callalert_name_this_thread(const char *name) { (void)pthread_setname_np(pthread_self(), name); }
