import CTestProcess

/// The test process's own state, set once at its start for every suite (CTestProcess), never by one test for
/// the others.
public enum TestProcess {
  /// Whether SIGPIPE is ignored, as the daemon ignores it: a write to a pipe or socket whose reader went away
  /// then fails with EPIPE instead of ending the test process.
  public static var ignoresBrokenPipeSignal: Bool { callalert_test_process_ignores_sigpipe() == 1 }
}

extension TestProcess {
  /// Makes a child started with `actions` close every descriptor but its standard ones. A child spawned by one
  /// test inherits whatever another test has open without close-on-exec (an HTTP server's accepted socket): the
  /// server's close then ended nothing, and a client waited until mosquitto_sub exited 5 s later.
  public static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    _ = callalert_test_spawn_closes_from(&actions, 3)
  }
}
