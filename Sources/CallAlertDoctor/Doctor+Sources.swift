import CallAlertControl
import CallAlertValues

extension Doctor {
  /// How long the doctor waits for a phone system to accept a connection when the daemon does not run.
  static var sourceConnectTimeout: Duration { .seconds(2) }

  /// The phone-system sources (docs/SOURCES.md): each one's health as the running daemon reports it, or,
  /// without a daemon, whether its host accepts a connection and (AMI) whether its secret file may be used.
  /// `others`: the other call sources configured (`MQTT`, `SIP`), checked on their own.
  func sourceFindings(_ sources: [BridgeSource], daemon: StatusReport?, others: [String] = []) async -> [DoctorFinding]
  {
    guard !sources.isEmpty else {
      let also = others.isEmpty ? "" : ", " + others.joined(separator: " and ") + " (checked below)"
      return [
        DoctorFinding(
          "sources", .skipped,
          "no phone-system sources configured: calls come from standard input, the control socket and pushes\(also); "
            + "a FRITZ!Box or Asterisk can ring the boards too (`sources:` in the config, docs/SOURCES.md)")
      ]
    }
    var findings: [DoctorFinding] = []
    for source in sources {
      if let daemon {
        findings.append(reportedFinding(source, daemon: daemon))
      } else {
        findings += await probedFindings(source)
      }
    }
    return findings
  }

  /// A source as the daemon reports it.
  private func reportedFinding(_ source: BridgeSource, daemon: StatusReport) -> DoctorFinding {
    reportedFinding(
      "source \(source.name)", kind: source.kind.rawValue, name: source.name,
      described: "this \(source.kind.rawValue) source at \(source.host):\(source.port)", daemon: daemon,
      connected: source.kind == .ami ? "connected and logged in to" : "connected to",
      restart: "`reload` does not add sources", fix: { Self.sourceFix(source, reason: $0) })
  }

  /// A connection as the daemon reports it in `status`'s sources (found by kind and name): a source, the MQTT
  /// broker or a SIP account. `fix` gets the reason it fails.
  func reportedFinding(
    _ check: String, kind: String, name: String, described: String, daemon: StatusReport, connected: String,
    restart: String, fix: (String) -> String
  ) -> DoctorFinding {
    guard let health = daemon.sources?.first(where: { $0.kind == kind && $0.name == name }) else {
      return DoctorFinding(
        check, .warning,
        "the daemon does not know \(described): it was started before it was added to the config",
        fix: "restart the daemon to connect it (`systemctl --user restart callalert`; \(restart))")
    }
    switch health.state {
    case "connected":
      return DoctorFinding(check, .ok, "\(connected) \(health.address) (as the daemon reports)")
    case "connecting":
      return DoctorFinding(
        check, .warning, "the daemon is still connecting to \(health.address)",
        fix: "run `callalert doctor` again in a few seconds; `callalert status` shows its state")
    default:
      let reason = health.reason ?? "no reason given"
      let next = health.nextAttemptMs.map { "; next attempt in \(($0 + 999) / 1000) s" } ?? ""
      return DoctorFinding(
        check, .error,
        "the daemon cannot connect to \(health.address): \(reason) (\(health.failures) failure(s) in a row\(next))",
        fix: fix(reason))
    }
  }

  /// A source tried from here: its TCP port, and its secret file (AMI).
  private func probedFindings(_ source: BridgeSource) async -> [DoctorFinding] {
    let check = "source \(source.name)"
    let address = "\(source.host):\(source.port)"
    var findings: [DoctorFinding] = []
    switch await probes.connectTCP(source.host, source.port, Self.sourceConnectTimeout) {
    case .success:
      let untried = source.kind == .ami ? "; the login is tried only by the daemon" : ""
      findings.append(
        DoctorFinding(
          check, .ok, "\(address) accepts a connection (the daemon is not running, so only that was tried\(untried))"))
    case .failure(let failure):
      findings.append(
        DoctorFinding(
          check, .error, "\(address) does not accept a connection: \(failure.description)",
          fix: Self.sourceFix(source, reason: failure.description)))
    }
    if source.kind == .ami {
      guard let path = source.secretFile else {
        findings.append(
          DoctorFinding(
            "\(check): secret", .error, "no secret_file for this AMI source",
            fix: "set sources[].secret_file to a file holding the manager secret (mode 0600); docs/SOURCES.md"))
        return findings
      }
      switch probes.checkSecretFile(path) {
      case .success:
        findings.append(DoctorFinding("\(check): secret", .ok, "\(path) is readable by its owner only and not empty"))
      case .failure(let failure):
        findings.append(
          DoctorFinding(
            "\(check): secret", .error, failure.description,
            fix:
              "put the secret of manager.conf's [\(source.username ?? "user")] on the first line of \(path), "
              + "then chmod 600 \(path) (owned by the user the daemon runs as)"))
      }
    }
    return findings
  }

  /// What to do about a source that fails for `reason`.
  static func sourceFix(_ source: BridgeSource, reason: String) -> String {
    let address = "\(source.host):\(source.port)"
    switch source.kind {
    case .fritzbox:
      return
        "switch the call monitor on: dial #96*5* on a phone of the box (it keeps listening on port 1012 after that); "
        + "check the host with `nc \(source.host) \(source.port)`; see docs/SOURCES.md"
    case .ami:
      let user = source.username ?? "user"
      if reason.contains("secret file") {
        return "chmod 600 \(source.secretFile ?? "the secret file"), owned by the user the daemon runs as, "
          + "with the secret on its first line"
      }
      if reason.contains("refused the login") {
        return "check manager.conf's [\(user)] (its secret, and permit/deny for this machine's address) and that "
          + "the secret file (0600) holds that secret; then `asterisk -rx \"manager reload\"`"
      }
      return "check that the manager interface listens on \(address) (manager.conf [general]: enabled = yes, "
        + "port, bindaddr), that no firewall blocks it, and manager.conf's [\(user)] and that the secret file is 0600; "
        + "see docs/SOURCES.md"
    }
  }
}
