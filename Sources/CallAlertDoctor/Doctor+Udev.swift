extension Doctor {
  /// Where udev reads rules, most important first: a file in an earlier folder hides one of the same name
  /// in a later one (udev(7)).
  static var udevRuleFolders: [String] {
    [
      "/etc/udev/rules.d", "/run/udev/rules.d", "/usr/local/lib/udev/rules.d", "/usr/lib/udev/rules.d",
      "/lib/udev/rules.d",
    ]
  }

  /// The installed CallAlert rule (a `*callalert*.rules` file) and what it does to a board; ModemManager.
  func udevFindings() -> (findings: [DoctorFinding], installed: Bool) {
    guard system.isLinux else {
      return ([DoctorFinding("udev-rule", .skipped, "not Linux: no udev rule needed")], true)
    }
    var seen: Set<String> = []
    var rules: [(path: String, outcome: UdevRules.Outcome)] = []
    for folder in Self.udevRuleFolders {
      for name in system.entries(of: folder).sorted()
      where name.hasSuffix(".rules") && name.lowercased().contains("callalert") && !seen.contains(name) {
        seen.insert(name)
        let path = folder + "/" + name
        guard let text = system.readText(path) else { continue }
        rules.append((path, UdevRules(text: text).evaluate(.callAlertBoard())))
      }
    }
    let fix =
      "install it: `sudo make install` (or the package) puts 70-callalert.rules in udev's rules folder; by hand: "
      + "sudo cp packaging/udev/70-callalert.rules /etc/udev/rules.d/ && sudo udevadm control --reload "
      + "&& sudo udevadm trigger --subsystem-match=tty --subsystem-match=hidraw, then replug the board (or light)"
    var findings: [DoctorFinding] = []
    let grantsAccess = rules.contains { $0.outcome.tags.contains("uaccess") || $0.outcome.group != nil }
    let ignoredByModemManager = rules.contains { $0.outcome.properties["ID_MM_DEVICE_IGNORE"] == "1" }
    if rules.isEmpty {
      findings.append(
        DoctorFinding(
          "udev-rule", .warning,
          "no CallAlert udev rule in \(Self.udevRuleFolders.joined(separator: ", ")): only root and the tty's group "
            + "may open the board, and ModemManager may probe it",
          fix: fix))
    } else if !grantsAccess {
      findings.append(
        DoctorFinding(
          "udev-rule", .warning,
          "\(rules.map(\.path).joined(separator: ", ")) does not match a CallAlert board (USB 1209:ca11) with "
            + "uaccess or a group", fix: fix))
    } else {
      let outcome = rules.first { $0.outcome.tags.contains("uaccess") || $0.outcome.group != nil }!
      var does: [String] = []
      if outcome.outcome.tags.contains("uaccess") { does.append("the logged-in user's access (uaccess)") }
      if let group = outcome.outcome.group { does.append("group \(group)") }
      if let link = outcome.outcome.symlinks.first { does.append("/dev/\(link)") }
      if ignoredByModemManager { does.append("ModemManager ignores it") }
      findings.append(
        DoctorFinding("udev-rule", .ok, "\(outcome.path) matches a 1209:ca11 board: \(does.joined(separator: ", "))"))
    }
    if system.isRunning("ModemManager") {
      findings.append(
        ignoredByModemManager
          ? DoctorFinding("modemmanager", .ok, "running; the udev rule tells it to leave the board alone")
          : DoctorFinding(
            "modemmanager", .warning,
            "running, and no rule sets ID_MM_DEVICE_IGNORE: it writes AT commands into the board's port when it is "
              + "plugged in, and may hold it for seconds",
            fix: fix))
    } else {
      findings.append(DoctorFinding("modemmanager", .ok, "not running"))
    }
    return (findings, !rules.isEmpty && grantsAccess)
  }
}
