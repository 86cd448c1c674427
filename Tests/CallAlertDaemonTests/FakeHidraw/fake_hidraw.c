// A fake hidraw node for the HID write-path test, preloaded (LD_PRELOAD) into a `callalert` child: opening
// the path in FAKE_HIDRAW_PATH gives a descriptor of /dev/null, and every write(2) and HIDIOCSFEATURE ioctl on
// it is appended to FAKE_HIDRAW_LOG as "write <hex>" or "feature <hex>", the bytes exactly as libhidapi
// passed them to the kernel. Every other call goes to libc unchanged.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/hidraw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fake_fd = -1;

static void record(const char *what, const void *data, size_t length) {
  const char *log = getenv("FAKE_HIDRAW_LOG");
  if (!log) return;
  FILE *file = fopen(log, "a");
  if (!file) return;
  fprintf(file, "%s ", what);
  for (size_t i = 0; i < length; i++) fprintf(file, "%02x", ((const unsigned char *)data)[i]);
  fprintf(file, "\n");
  fclose(file);
}

static int is_fake(const char *path) {
  const char *fake = getenv("FAKE_HIDRAW_PATH");
  return fake && path && strcmp(path, fake) == 0;
}

static int open_fake(void) {
  int (*real_open)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
  fake_fd = real_open("/dev/null", O_RDWR | O_CLOEXEC);
  return fake_fd;
}

int open(const char *path, int flags, ...) {
  if (is_fake(path)) return open_fake();
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, mode_t);
    va_end(args);
  }
  int (*real_open)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
  return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
  if (is_fake(path)) return open_fake();
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, mode_t);
    va_end(args);
  }
  int (*real_open64)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
  return real_open64(path, flags, mode);
}

ssize_t write(int fd, const void *data, size_t length) {
  if (fd >= 0 && fd == fake_fd) {
    record("write", data, length);
    return (ssize_t)length;
  }
  ssize_t (*real_write)(int, const void *, size_t) = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  return real_write(fd, data, length);
}

int ioctl(int fd, unsigned long request, ...) {
  va_list args;
  va_start(args, request);
  void *argument = va_arg(args, void *);
  va_end(args);
  if (fd >= 0 && fd == fake_fd) {
    if (_IOC_TYPE(request) == 'H' && _IOC_NR(request) == _IOC_NR(HIDIOCSFEATURE(0))) {
      size_t length = _IOC_SIZE(request);
      record("feature", argument, length);
      return (int)length;
    }
    if (request == HIDIOCGRDESCSIZE) {
      *(int *)argument = 0;
      return 0;
    }
    return 0;
  }
  int (*real_ioctl)(int, unsigned long, ...) = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
  return real_ioctl(fd, request, argument);
}

int close(int fd) {
  if (fd >= 0 && fd == fake_fd) fake_fd = -1;
  int (*real_close)(int) = (int (*)(int))dlsym(RTLD_NEXT, "close");
  return real_close(fd);
}
