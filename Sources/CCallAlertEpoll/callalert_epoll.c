#include "callalert_epoll.h"

#include <sys/epoll.h>

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
