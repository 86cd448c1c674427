// callalert-bench-floor: the floor the daemon's latency is compared with, the same trips in plain C.
//
//   callalert-bench-floor latency CALLS        one board
//   callalert-bench-floor fanout BOARDS CALLS  one request written to every board
//
// A call is what the daemon's path must do at the least: the client connects to a unix socket afresh and sends a
// request of 30 bytes; the server thread ("daemon") accepts it, reads it, and writes 30 bytes into the slave side
// of each board's pseudo-terminal (raw mode, as a serial port is opened); each board thread, blocked in read(2) on
// its master side, takes the time when the bytes arrive. One clock (CLOCK_MONOTONIC) for both ends. Printed on
// standard output: one line per call, "sample <ns>" (to the last board), then "cpu_ns_per_call <ns>" (user +
// system time of this whole process over the timed calls). The first 20 calls (5 for fan-out) are not counted.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MESSAGE 30
#define MAX_BOARDS 256

static int listener;
static int slaves[MAX_BOARDS];
static int masters[MAX_BOARDS];
static int boards;
static _Atomic int64_t arrived_last;  // the latest arrival of the current call, ns
static sem_t arrivals;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "callalert-bench-floor: %s: %s\n", what, strerror(errno));
  exit(1);
}

static int read_fully(int fd, char *buffer, int count) {
  int got = 0;
  while (got < count) {
    ssize_t n = read(fd, buffer + got, (size_t)(count - got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += (int)n;
  }
  return 0;
}

// The daemon: one connection per call; reads the request, writes it to every board.
static void *daemon_thread(void *unused) {
  (void)unused;
  char request[MESSAGE];
  for (;;) {
    int connection = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (connection < 0) {
      if (errno == EINTR) continue;
      return NULL;
    }
    if (read_fully(connection, request, MESSAGE) == 0) {
      for (int board = 0; board < boards; board++) {
        if (write(slaves[board], request, MESSAGE) != MESSAGE) die("write to the pseudo-terminal");
      }
    }
    close(connection);
  }
}

// A board: blocked in read on its master side; notes the arrival of each whole message.
static void *board_thread(void *argument) {
  int board = (int)(intptr_t)argument;
  char buffer[MESSAGE];
  for (;;) {
    if (read_fully(masters[board], buffer, MESSAGE) != 0) return NULL;
    int64_t at = now_ns();
    int64_t seen = atomic_load(&arrived_last);
    while (at > seen && !atomic_compare_exchange_weak(&arrived_last, &seen, at)) {
    }
    sem_post(&arrivals);
  }
}

static int64_t cpu_ns(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return ((int64_t)usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000 +
         ((int64_t)usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000;
}

int main(int argc, char **argv) {
  int calls;
  if (argc == 3 && strcmp(argv[1], "latency") == 0) {
    boards = 1;
    calls = atoi(argv[2]);
  } else if (argc == 4 && strcmp(argv[1], "fanout") == 0) {
    boards = atoi(argv[2]);
    calls = atoi(argv[3]);
  } else {
    fprintf(stderr, "usage: callalert-bench-floor latency CALLS | fanout BOARDS CALLS\n");
    return 2;
  }
  if (boards < 1 || boards > MAX_BOARDS || calls < 1) {
    fprintf(stderr, "callalert-bench-floor: 1-%d boards and at least 1 call\n", MAX_BOARDS);
    return 2;
  }
  int warmup = boards == 1 ? 20 : 5;
  sem_init(&arrivals, 0, 0);

  char directory[] = "/tmp/callalert-floor-XXXXXX";
  if (!mkdtemp(directory)) die("mkdtemp");
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  snprintf(address.sun_path, sizeof address.sun_path, "%s/control.sock", directory);
  listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) die("socket");
  if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0) die("bind");
  if (listen(listener, 16) != 0) die("listen");

  for (int board = 0; board < boards; board++) {
    masters[board] = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (masters[board] < 0 || grantpt(masters[board]) != 0 || unlockpt(masters[board]) != 0) die("posix_openpt");
    slaves[board] = open(ptsname(masters[board]), O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slaves[board] < 0) die("open the slave");
    struct termios raw;
    tcgetattr(slaves[board], &raw);
    cfmakeraw(&raw);
    tcsetattr(slaves[board], TCSANOW, &raw);
    tcgetattr(masters[board], &raw);
    cfmakeraw(&raw);
    tcsetattr(masters[board], TCSANOW, &raw);
    pthread_t thread;
    pthread_create(&thread, NULL, board_thread, (void *)(intptr_t)board);
  }
  pthread_t server;
  pthread_create(&server, NULL, daemon_thread, NULL);

  char request[MESSAGE];
  memset(request, 'c', sizeof request);
  int64_t cpu_start = 0;
  for (int call = 0; call < warmup + calls; call++) {
    if (call == warmup) cpu_start = cpu_ns();
    atomic_store(&arrived_last, 0);
    int64_t sent = now_ns();
    int client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (client < 0) die("socket");
    if (connect(client, (struct sockaddr *)&address, sizeof address) != 0) die("connect");
    if (write(client, request, MESSAGE) != MESSAGE) die("write to the socket");
    for (int board = 0; board < boards; board++) {
      while (sem_wait(&arrivals) != 0 && errno == EINTR) {
      }
    }
    int64_t last = atomic_load(&arrived_last);
    close(client);
    if (call >= warmup) printf("sample %lld\n", (long long)(last - sent));
  }
  printf("cpu_ns_per_call %lld\n", (long long)((cpu_ns() - cpu_start) / calls));
  unlink(address.sun_path);
  rmdir(directory);
  return 0;
}
