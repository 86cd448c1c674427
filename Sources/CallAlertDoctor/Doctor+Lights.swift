import CallAlertControl
import CallAlertEngine
import CallAlertHID
import CallAlertLights

extension Doctor {
  /// One configured light: found among the USB lights, and its hidraw node open to this user.
  func lightFindings(
    _ board: AlertBoard, kind: LightKind, daemon: StatusReport?, udevRuleInstalled: Bool
  ) -> [DoctorFinding] {
    let prefix = "board \(board.name)"
    if daemon?.boards.contains(where: { $0.name == board.name && $0.connected }) == true {
      return [
        DoctorFinding("\(prefix): found", .ok, "connected to the daemon (\(kind.displayName))"),
        DoctorFinding("\(prefix): access", .skipped, "the daemon has the light open"),
      ]
    }
    let path: String
    if let port = board.port, port != "auto" {
      path = port
    } else {
      let lights = probes.listLights().filter {
        $0.kind == kind && (board.serialNumber == nil || $0.serialNumber == board.serialNumber)
      }
      guard let found = lights.first else {
        let ids = kind.deviceIDs.map(\.description).joined(separator: ", ")
        return [
          DoctorFinding(
            "\(prefix): found", .error,
            "no \(kind.displayName) (USB \(ids))\(board.serialNumber.map { " with serial \($0)" } ?? "") is plugged in",
            fix:
              "plug it in and check `lsusb` and `callalert ports`; or try a virtual one: "
              + "`callalert board simulate --kind \(kind.rawValue)` or `callalert run --simulate`")
        ]
      }
      path = found.path
    }
    return [
      DoctorFinding("\(prefix): found", .ok, "\(kind.displayName) at \(path)"),
      accessFinding(
        "\(prefix): access", path: path, udevRuleInstalled: udevRuleInstalled, subsystem: "hidraw", device: "light"),
    ]
  }
}
