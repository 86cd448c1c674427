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

#endif
