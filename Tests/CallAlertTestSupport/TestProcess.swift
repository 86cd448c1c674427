import CTestProcess

/// The test process's own state, set once at its start for every suite (CTestProcess), never by one test for
/// the others.
public enum TestProcess {
  /// Whether SIGPIPE is ignored, as the daemon ignores it: a write to a pipe or socket whose reader went away
  /// then fails with EPIPE instead of ending the test process.
  public static var ignoresBrokenPipeSignal: Bool { callalert_test_process_ignores_sigpipe() == 1 }
}
