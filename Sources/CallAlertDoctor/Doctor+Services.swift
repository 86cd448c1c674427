import CallAlertControl
import CallAlertValues

extension Doctor {
  /// The MQTT broker (docs/MQTT.md) and each SIP account (docs/SIP.md): as the running daemon reports them, or,
  /// without a daemon, whether the broker and a TCP or TLS registrar accept a connection, and whether their
  /// password files may be used. A UDP registrar is not tried from here: only a REGISTER would tell.
  func serviceFindings(_ configuration: DaemonConfiguration, daemon: StatusReport?) async -> [DoctorFinding] {
    var findings: [DoctorFinding] = []
    if let mqtt = configuration.mqtt {
      findings += await mqttFindings(mqtt, daemon: daemon)
    }
    for account in configuration.sipAccounts {
      findings += await sipFindings(account, daemon: daemon)
    }
    if let settings = configuration.kdeConnect {
      findings += kdeConnectFindings(settings, daemon: daemon)
    }
    return findings
  }

  /// The phones paired over KDE Connect (docs/PHONE.md), as the running daemon reports them.
  private func kdeConnectFindings(_ settings: KDEConnectSettings, daemon: StatusReport?) -> [DoctorFinding] {
    guard let daemon else {
      return [
        DoctorFinding(
          "kdeconnect", .skipped,
          "the phones are known only to the running daemon; start it and run `callalert doctor` again")
      ]
    }
    let phones = (daemon.sources ?? []).filter { $0.kind == "kdeconnect" }
    guard !phones.isEmpty else {
      return [
        DoctorFinding(
          "kdeconnect", .warning, "no phone is paired or linked with \"\(settings.name)\"",
          fix:
            "open KDE Connect on the phone on this network, pick \"\(settings.name)\", tap Request pairing, then run "
            + "`callalert kdeconnect pair <phone>`; UDP 1716 and TCP \(settings.tcpPorts.lowerBound)-"
            + "\(settings.tcpPorts.upperBound) must be open; docs/PHONE.md")
      ]
    }
    return phones.map { phone in
      let check = "kdeconnect \(phone.name)"
      switch phone.state {
      case "connected": return DoctorFinding(check, .ok, "paired and connected (\(phone.address))")
      case "refused":
        return DoctorFinding(
          check, .error, "refused: \(phone.reason ?? "")",
          fix: "if the phone was reset, unpair it in KDE Connect and pair again; docs/PHONE.md")
      default:
        return DoctorFinding(
          check, .warning, "\(phone.state)\(phone.reason.map { ": \($0)" } ?? "")", fix: "docs/PHONE.md, Health")
      }
    }
  }

  private func mqttFindings(_ settings: MQTTSettings, daemon: StatusReport?) async -> [DoctorFinding] {
    let check = "mqtt \(settings.nodeID)"
    let address = "\(settings.host):\(settings.port)"
    let fix =
      "check that the broker listens on \(address)\(settings.tls ? " with TLS" : "") (mosquitto: a `listener "
      + "\(settings.port)` line), that no firewall blocks it, and mqtt.user and mqtt.password_file; docs/MQTT.md"
    if let daemon {
      return [
        reportedFinding(
          check, kind: "mqtt", name: settings.nodeID, described: "the broker \(settings.url)", daemon: daemon,
          connected: "connected to", restart: "`reload` does not reconnect MQTT", fix: { _ in fix })
      ]
    }
    var findings = [await dialled(check, host: settings.host, port: settings.port, fix: fix, untried: "the login")]
    if let path = settings.passwordFile {
      findings.append(passwordFinding("\(check): password", path: path, key: "mqtt.password_file"))
    }
    return findings
  }

  private func sipFindings(_ account: SIPAccount, daemon: StatusReport?) async -> [DoctorFinding] {
    let check = "sip \(account.name)"
    let fix =
      "check sip.accounts[].registrar, user and password_file against the phone system's extension; "
      + "`callalert status` shows the registrar's answer; docs/SIP.md"
    if let daemon {
      return [
        reportedFinding(
          check, kind: "sip", name: account.name, described: "the SIP account \(account.name)", daemon: daemon,
          connected: account.registrar == nil ? "listening at" : "registered with",
          restart: "`reload` does not add SIP accounts", fix: { _ in fix })
      ]
    }
    var findings: [DoctorFinding] = []
    if let registrar = account.registrar {
      let (host, port) = Self.hostAndPort(registrar, defaultPort: account.transport == .tls ? 5061 : 5060)
      if account.transport == .udp {
        findings.append(
          DoctorFinding(
            check, .skipped,
            "\(host):\(port) over UDP is not tried from here (only a REGISTER would tell, and the daemon is not "
              + "running); start the daemon and run `callalert doctor` again"))
      } else {
        findings.append(await dialled(check, host: host, port: port, fix: fix, untried: "the registration"))
      }
    } else {
      findings.append(
        DoctorFinding(check, .ok, "registers nowhere: it answers INVITEs sent straight to it (no registrar set)"))
    }
    if let path = account.passwordFile {
      findings.append(passwordFinding("\(check): password", path: path, key: "sip.accounts[].password_file"))
    }
    return findings
  }

  /// A TCP connect from here, with the short timeout the sources' check uses.
  private func dialled(_ check: String, host: String, port: Int, fix: String, untried: String) async -> DoctorFinding {
    switch await probes.connectTCP(host, port, Self.sourceConnectTimeout) {
    case .success:
      return DoctorFinding(
        check, .ok,
        "\(host):\(port) accepts a connection (the daemon is not running, so only that was tried; \(untried) is "
          + "tried only by the daemon)")
    case .failure(let failure):
      return DoctorFinding(
        check, .error, "\(host):\(port) does not accept a connection: \(failure.description)", fix: fix)
    }
  }

  private func passwordFinding(_ check: String, path: String, key: String) -> DoctorFinding {
    switch probes.checkSecretFile(path) {
    case .success:
      return DoctorFinding(check, .ok, "\(path) is readable by its owner only and not empty")
    case .failure(let failure):
      return DoctorFinding(
        check, .error, failure.description,
        fix: "put the password on the first line of \(path) (\(key)), then chmod 600 \(path), owned by the user "
          + "the daemon runs as")
    }
  }

  /// `host`, `host:port`, `[v6]` or `[v6]:port`.
  static func hostAndPort(_ text: String, defaultPort: Int) -> (host: String, port: Int) {
    if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
      let host = String(text[text.index(after: text.startIndex)..<close])
      let rest = text[text.index(after: close)...]
      return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort)
    }
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    if parts.count == 2, let port = Int(parts[1]) { return (String(parts[0]), port) }
    return (text, defaultPort)
  }
}
