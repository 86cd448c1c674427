import CallAlertClient
import CallAlertControl
import CallAlertDaemon
import CallAlertEngine
import CallAlertPatterns
import CallAlertProtocol
import CallAlertSerial
import CallAlertValues

extension Doctor {
  /// One configured board: found, accessible to this user, its firmware and protocol, its table.
  func boardFindings(
    _ board: AlertBoard, configuration: DaemonConfiguration, daemon: StatusReport?, udevRuleInstalled: Bool
  ) async -> [DoctorFinding] {
    let prefix = "board \(board.name)"
    if let kind = board.kind.lightKind {
      return lightFindings(board, kind: kind, daemon: daemon, udevRuleInstalled: udevRuleInstalled)
    }
    // The daemon holds the port: what it knows is the answer, and probing would only disturb it.
    if let held = daemon?.boards.first(where: { $0.name == board.name && $0.connected }) {
      var findings = [
        DoctorFinding(
          "\(prefix): found", .ok, "connected to the daemon\(held.serial.map { ", serial \($0)" } ?? "")"),
        DoctorFinding(
          "\(prefix): access", .skipped, "the daemon has the port open (stop it to check this user's access)"),
        DoctorFinding(
          "\(prefix): firmware", .ok,
          "firmware \(held.firmware ?? "?") (the protocol version is asked only when the daemon is stopped)"),
      ]
      findings.append(tableFinding(prefix, configuration: configuration, held: held))
      return findings
    }
    var findings: [DoctorFinding] = []
    // The daemon tried this board and failed: its reason first, then this user's own look at the port.
    if let waiting = daemon?.boards.first(where: { $0.name == board.name && !$0.connected }) {
      findings.append(
        DoctorFinding(
          "\(prefix): daemon", .error,
          "the daemon has not connected it (\(waiting.link ?? "connecting"), looking at \(waiting.port ?? "?"))"
            + (waiting.problem.map { ": \($0)" } ?? ""),
          fix:
            "correct the port (`callalert run --port`, or boards[].port in the config; `callalert ports` lists the "
            + "boards plugged in), then restart the daemon; the lines below check that port"))
    }
    let candidates: [LocatedPort]
    switch locate(board) {
    case .success(let ports): candidates = ports
    case .failure(let finding): return findings + [finding.renamed("\(prefix): found")]
    }
    for candidate in candidates {
      let path = candidate.path
      findings.append(
        DoctorFinding("\(prefix): found", .ok, candidate.isMicrobit ? "\(path): \(Self.microbitName)" : path))
      let access = accessFinding("\(prefix): access", path: path, udevRuleInstalled: udevRuleInstalled)
      findings.append(access)
      guard access.status == .ok else { continue }
      switch await probes.probeBoard(path) {
      case .failure(let failure) where candidate.isMicrobit:
        findings.append(microbitWithoutImageFinding("\(prefix): firmware", path: path, failure: failure))
      case .failure(let failure):
        findings.append(
          DoctorFinding(
            "\(prefix): firmware", .error, "\(path) did not answer as a CallAlert board: \(failure.description)",
            fix:
              "replug the board; make sure no other program holds the port (`fuser \(path)`); "
              + "`callalert ports` shows which ports answer"))
      case .success(let info):
        if let serial = board.serialNumber, String(decoding: info.serial, as: UTF8.self) != serial {
          findings.append(
            DoctorFinding(
              "\(prefix): firmware", .error,
              "\(path) is board \(String(decoding: info.serial, as: UTF8.self)), not \(serial)",
              fix: "plug in board \(serial), or correct boards[].serial in the config"))
          continue
        }
        var firmware = firmwareFinding("\(prefix): firmware", info: info, path: path)
        if candidate.isMicrobit { firmware.summary += "; a \(Self.microbitName) running the CallAlert image" }
        findings.append(firmware)
        findings.append(tableFinding(prefix, configuration: configuration, info: info, path: path))
      }
    }
    return findings
  }

  /// The ports a board's `port`/`serial` settings point at, or why there are none.
  private func locate(_ board: AlertBoard) -> Result<[LocatedPort], FindingFailure> {
    if let port = board.port, port != "auto" {
      guard system.facts(port) != nil else {
        return .failure(
          FindingFailure(
            DoctorFinding(
              "", .error, "\(port) does not exist: the board is not plugged in, or has another name",
              fix:
                "plug it in; `callalert ports` lists the ports; with the udev rule installed /dev/callalert/<serial> "
                + "names a board whatever port it gets")))
      }
      let isMicrobit = probes.listPorts().contains { $0.name == port && $0.isDAPLink }
      return .success([LocatedPort(path: port, isMicrobit: isMicrobit)])
    }
    let ports = probes.listPorts()
    // CallAlert's own boards, and BBC micro:bits (their DAPLink serial port), which run the firmware too.
    var ours = ports.filter {
      ($0.usbVendorID == BoardLocator.usbVendorID && $0.usbProductID == BoardLocator.usbProductID) || $0.isDAPLink
    }
    if let serial = board.serialNumber {
      let matching = ours.filter { $0.serialNumber == serial }
      if !matching.isEmpty { ours = matching }
    }
    var paths = ours.map { LocatedPort(path: $0.name, isMicrobit: $0.isDAPLink) }
    if paths.isEmpty {
      // Boards whose USB IDs the system does not report (some hubs, macOS) still show as CDC-ACM ports.
      paths = ports.map(\.name).filter {
        let name = $0.split(separator: "/").last.map(String.init) ?? $0
        return name.hasPrefix("ttyACM") || name.hasPrefix("cu.usbmodem")
      }.map { LocatedPort(path: $0, isMicrobit: false) }
    }
    if board.serialNumber == nil && system.facts(BoardLocator.virtualBoardLink) != nil {
      paths.append(LocatedPort(path: BoardLocator.virtualBoardLink, isMicrobit: false))
    }
    guard !paths.isEmpty else {
      return .failure(
        FindingFailure(
          DoctorFinding(
            "", .error,
            "no CallAlert board (USB 1209:ca11) is plugged in\(board.serialNumber.map { " with serial \($0)" } ?? ""), "
              + "nor a \(Self.microbitName) (USB 0d28:0204)",
            fix:
              "plug it in and check `lsusb | grep -i 1209:ca11` and `dmesg | tail` (a charge-only cable shows nothing); "
              + "or try a virtual board: `callalert board simulate`")))
    }
    return .success(paths)
  }

  /// What the doctor calls a micro:bit's serial port.
  static var microbitName: String { "BBC micro:bit (DAPLink)" }

  /// A micro:bit that did not answer HELLO: the drive it shows takes the CallAlert image.
  func microbitWithoutImageFinding(_ check: String, path: String, failure: DoctorProbes.ProbeFailure) -> DoctorFinding {
    DoctorFinding(
      check, .error,
      "\(path) is a \(Self.microbitName) that does not answer HELLO (\(failure.description)): it does not run the "
        + "CallAlert image",
      fix:
        "build it (`make firmware BOARD=microbit-v1`, or microbit-v2) and drag firmware/build/callalert-microbit-v1.hex "
        + "(a v2 board: callalert-microbit-v2.hex) onto the MICROBIT drive; wait for the yellow LED to stop "
        + "flashing, then run `callalert doctor` again; see docs/HARDWARE.md")
  }

  /// Whether this user may open the port (or a light's hidraw node: `subsystem` hidraw), and if not, why (the
  /// group, the udev rule, a login seat).
  func accessFinding(
    _ check: String, path: String, udevRuleInstalled: Bool, subsystem: String = "tty", device: String = "board"
  ) -> DoctorFinding {
    guard let facts = system.facts(path) else {
      return DoctorFinding(check, .error, "\(path) does not exist")
    }
    let user = system.user.name
    if system.canReadWrite(path) { return DoctorFinding(check, .ok, "\(path) is readable and writable by \(user)") }
    let group = system.groupName(facts.group) ?? "gid \(facts.group)"
    let inGroup = system.user.groups.contains(facts.group)
    var fixes: [String] = []
    if !udevRuleInstalled && system.isLinux {
      fixes.append(
        "install the udev rule, which gives the logged-in user access (`sudo make install`, or sudo cp "
          + "packaging/udev/70-callalert.rules /etc/udev/rules.d/ && sudo udevadm control --reload "
          + "&& sudo udevadm trigger --subsystem-match=\(subsystem)), then replug the \(device)")
    }
    if inGroup {
      fixes.append(
        "you are in group \(group), but its mode \(String.octal(facts.mode)) does not let the group read and write: "
          + "the udev rule sets 0660; replug after installing it")
    } else {
      fixes.append(
        "or join the port's group: sudo usermod -aG \(group) \(user), then log out and in again")
      if udevRuleInstalled {
        fixes.append("the rule's uaccess applies to the user logged in at the machine (not over ssh)")
      }
    }
    return DoctorFinding(
      check, .error,
      "\(path) (group \(group), mode \(String.octal(facts.mode))) is not readable and writable by \(user)",
      fix: fixes.joined(separator: "; "))
  }

  /// The board's firmware and whether it speaks this host's protocol.
  func firmwareFinding(_ check: String, info: BoardInfo, path: String) -> DoctorFinding {
    let firmware = "\(info.firmware.major).\(info.firmware.minor).\(info.firmware.patch)"
    let host = Frame.version
    let serial = String(decoding: info.serial, as: UTF8.self)
    guard info.minVersion <= host && host <= info.maxVersion else {
      return DoctorFinding(
        check, .error,
        "\(path): firmware \(firmware) speaks protocol v\(info.minVersion)-v\(info.maxVersion); this callalert "
          + "speaks v\(host)",
        fix: "update whichever is older, the board's firmware or callalert, so both share a protocol version")
    }
    return DoctorFinding(
      check, .ok,
      "\(path): serial \(serial), firmware \(firmware), protocol v\(info.sessionVersion) "
        + "(board v\(info.minVersion)-v\(info.maxVersion), host v\(host))")
  }

  /// The board's table against the one `patterns.file` builds.
  func tableFinding(
    _ prefix: String, configuration: DaemonConfiguration, info: BoardInfo? = nil, path: String? = nil,
    held: StatusReport.Board? = nil
  ) -> DoctorFinding {
    let check = "\(prefix): table"
    let boardVersion = info.map { "\($0.table.version)" } ?? held?.tableVersion.map { "\($0)" } ?? "?"
    guard let file = configuration.patternsFile else {
      return DoctorFinding(
        check, .skipped, "no patterns.file in the config: the board's table (version \(boardVersion)) is used")
    }
    guard let text = system.readText(file) else {
      return DoctorFinding(
        check, .error, "patterns.file \(file) cannot be read",
        fix: "correct patterns.file in the config, or create the file (docs/PATTERNS.md)")
    }
    let build: PatternBuild
    do {
      build = try PatternFile.build(text: text, file: file, against: info?.capabilities ?? .referenceBoard)
    } catch {
      let shown = error.diagnostics.prefix(3).map { "\($0)" }.joined(separator: "; ")
      return DoctorFinding(
        check, .error, "\(file) does not build: \(shown)", fix: "`callalert patterns check \(file)` lists every problem"
      )
    }
    let flash = "callalert flash \(file) --port \(path ?? "PORT")"
    guard let info else {
      // Only the daemon's view: the version is all it reports.
      if held?.tableVersion == build.table.version {
        return DoctorFinding(check, .ok, "version \(build.table.version), as \(file) builds it")
      }
      return DoctorFinding(
        check, .warning, "the board holds table version \(boardVersion); \(file) builds version \(build.table.version)",
        fix: "stop the daemon and \(flash)")
    }
    guard let header = try? PatternTableHeader.read(build.bytes) else {
      return DoctorFinding(check, .error, "\(file) built a table that cannot be read back")
    }
    let wanted = TableSummary(version: header.version, crc: header.crc, size: UInt32(build.bytes.count))
    if info.table == wanted {
      return DoctorFinding(
        check, .ok, "holds the table \(file) builds (version \(header.version), crc \(hex(header.crc)))")
    }
    return DoctorFinding(
      check, .warning,
      "holds table version \(info.table.version) (crc \(hex(info.table.crc))); \(file) builds version "
        + "\(header.version) (crc \(hex(header.crc))): the board rings its old patterns",
      fix: flash)
  }

  private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
  }
}

/// A port a board may be behind.
struct LocatedPort: Equatable {
  /// Its device path.
  var path: String
  /// Whether it is a BBC micro:bit's (DAPLink's USB IDs).
  var isMicrobit: Bool
}

extension SerialPortInfo {
  /// Whether the port has DAPLink's USB IDs: a BBC micro:bit.
  var isDAPLink: Bool {
    usbVendorID == BoardLocator.daplinkVendorID && usbProductID == BoardLocator.daplinkProductID
  }
}

/// A finding carried as an error by ``Doctor/locate(_:)``.
struct FindingFailure: Error {
  var finding: DoctorFinding
  init(_ finding: DoctorFinding) { self.finding = finding }
  func renamed(_ check: String) -> DoctorFinding {
    var finding = finding
    finding.check = check
    return finding
  }
}
