import CallAlertControl
import CallAlertDaemon
import CallAlertValues

extension Doctor {
  /// The daemon: answers on its socket, or why not.
  func daemonFinding(_ status: Result<StatusReport, DaemonProbeFailure>, socketPath: String) -> DoctorFinding {
    switch status {
    case .success(let report):
      let connected = report.boards.filter(\.connected).count
      let summary =
        "answers on \(socketPath): \(connected) of \(report.boards.count) board(s) connected, "
        + "\(report.calls.count) call(s) ringing"
      // A daemon with no board to ring is not "ok": nothing rings. Each board's own lines say why.
      guard connected > 0 || report.boards.isEmpty else {
        return DoctorFinding(
          "daemon", .error, "\(summary): nothing can ring",
          fix: "see the board lines below; `callalert status` shows each board's last error")
      }
      return DoctorFinding("daemon", connected == report.boards.count ? .ok : .warning, summary)
    case .failure(.notRunning):
      return DoctorFinding(
        "daemon", .error, "not running: nothing listens on \(socketPath)",
        fix:
          "start it: `systemctl --user enable --now callalert` (the user service), or `callalert run` in a terminal; "
          + "for the system service pass --socket /run/callalert/callalert.sock")
    case .failure(.permissionDenied):
      return DoctorFinding(
        "daemon", .error, "\(socketPath) refuses \(system.user.name): permission denied",
        fix:
          "the socket belongs to another user: set socket.mode \"0660\" in that daemon's config and add "
          + "\(system.user.name) to the socket's group (sudo usermod -aG callalert \(system.user.name)), then log in again"
      )
    case .failure(.failed(let reason)):
      return DoctorFinding(
        "daemon", .error, "\(socketPath): \(reason)",
        fix:
          "restart the daemon (`systemctl --user restart callalert`) and look at its log (`journalctl --user -u callalert`)"
      )
    }
  }

  /// The socket's file: a socket, with the configured mode, not open to every user.
  func socketFinding(_ configuration: DaemonConfiguration, daemonAnswered: Bool) -> DoctorFinding {
    let path = configuration.socketPath
    guard let facts = system.facts(path) else {
      return DoctorFinding("socket", .skipped, "\(path) does not exist (the daemon creates it when it starts)")
    }
    guard facts.kind == .socket else {
      return DoctorFinding(
        "socket", .error, "\(path) exists and is not a socket: the daemon will refuse to start",
        fix: "remove \(path) or set socket.path in the config")
    }
    let mode = String.octal(facts.mode)
    if facts.mode & 0o007 != 0 {
      return DoctorFinding(
        "socket", .warning, "\(path) has mode \(mode): every local user may ring, silence and reconfigure the boards",
        fix: "set socket.mode \"0600\" (or \"0660\" for a group) in the config and restart the daemon")
    }
    if !daemonAnswered {
      return DoctorFinding(
        "socket", .warning, "\(path) is left over from a daemon that is gone (mode \(mode))",
        fix: "nothing to do: the next daemon replaces it; or remove it")
    }
    if facts.mode != configuration.socketMode {
      return DoctorFinding(
        "socket", .warning,
        "\(path) has mode \(mode) but the config says \(String.octal(configuration.socketMode)): the running daemon "
          + "was started with other settings",
        fix: "restart the daemon to apply the config (`systemctl --user restart callalert`)")
    }
    return DoctorFinding("socket", .ok, "\(path): mode \(mode), as configured")
  }
}
