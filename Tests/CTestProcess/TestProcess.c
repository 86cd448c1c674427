#include "CTestProcess.h"

#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>

// Process-wide state is set once for the whole test process, before any suite runs, never by one test for
// the others: with SIGPIPE left at its default, the first test to write to a closed pipe or socket killed the
// process ("exited with unexpected signal code 13"), or not, depending on which tests had already run. The
// umask is the usual 022, whatever the shell that started the tests had.
__attribute__((constructor)) static void callalert_test_process_setup(void) {
  signal(SIGPIPE, SIG_IGN);
  umask(022);
}

int callalert_test_process_ignores_sigpipe(void) {
  struct sigaction current;
  if (sigaction(SIGPIPE, NULL, &current) != 0) return 0;
  return current.sa_handler == SIG_IGN ? 1 : 0;
}
