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

/// Clears the exclusive mark. Needed before closing: on a pseudo-terminal slave the mark lives on the tty, which
/// outlives our descriptor while the master is open, so a non-root host could never open the slave again.
static inline int callalert_clear_exclusive(int fd) {
#ifdef TIOCNXCL
  return ioctl(fd, TIOCNXCL);
#else
  (void)fd;
  return 0;
#endif
}

/// Whether the terminal is marked exclusive: 1 or 0, or -1 when the platform cannot tell (TIOCGEXCL, Linux 3.8+).
static inline int callalert_is_exclusive(int fd) {
#ifdef TIOCGEXCL
  int exclusive = 0;
  if (ioctl(fd, TIOCGEXCL, &exclusive) != 0) return -1;
  return exclusive != 0;
#else
  (void)fd;
  return -1;
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
