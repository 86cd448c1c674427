#ifndef CALLALERT_CSERIALPORT_SHIM_H
#define CALLALERT_CSERIALPORT_SHIM_H

#include <libserialport.h>

#include <stdio.h>
#include <sys/ioctl.h>
#include <termios.h>

// glibc declares these POSIX functions only under _XOPEN_SOURCE >= 600, which Swift's Glibc module is not built
// with; the prototypes are fixed by POSIX, so declaring them again here is safe everywhere.
extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);

// ioctl(2) is variadic and its request codes are function-like macros on some platforms, so Swift can
// import neither reliably. These one-line wrappers give Swift a typed, non-variadic call.

/// Marks the terminal for exclusive use: further open(2) calls fail with EBUSY (except for root).
static inline int callalert_set_exclusive(int fd) {
#ifdef TIOCEXCL
  return ioctl(fd, TIOCEXCL);
#else
  (void)fd;
  return 0;
#endif
}

/// Writes the path of the slave of pseudo-terminal master `fd` into `buffer`, thread-safely (unlike
/// ptsname(3)). Returns 0 on success, -1 with errno set otherwise.
static inline int callalert_slave_path(int fd, char *buffer, size_t size) {
#if defined(TIOCGPTN)
  unsigned int number = 0;
  if (ioctl(fd, TIOCGPTN, &number) != 0) return -1;
  int written = snprintf(buffer, size, "/dev/pts/%u", number);
  return (written > 0 && (size_t)written < size) ? 0 : -1;
#elif defined(TIOCPTYGNAME)
  if (size < 128) return -1;
  return ioctl(fd, TIOCPTYGNAME, buffer);
#else
  (void)fd; (void)buffer; (void)size;
  return -1;
#endif
}

#endif
