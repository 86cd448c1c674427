#ifndef CTESTPROCESS_H
#define CTESTPROCESS_H

/// Whether this process ignores SIGPIPE (1) or not (0): the test process does from its start, as the daemon
/// does, so that a write to a socket or pipe whose reader went away fails with EPIPE in every suite.
int callalert_test_process_ignores_sigpipe(void);

#endif
