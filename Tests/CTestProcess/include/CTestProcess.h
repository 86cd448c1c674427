#ifndef CTESTPROCESS_H
#define CTESTPROCESS_H

/// Whether this process ignores SIGPIPE (1) or not (0): the test process does from its start, as the daemon
/// does, so that a write to a socket or pipe whose reader went away fails with EPIPE in every suite.
int callalert_test_process_ignores_sigpipe(void);

#include <spawn.h>

/// Makes a spawned child close every descriptor from `lowest` on (glibc's addclosefrom_np): a test's child
/// that inherited the socket of another test's server kept that connection open for as long as it lived.
int callalert_test_spawn_closes_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
