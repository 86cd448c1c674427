import CallAlertEngine

extension CallSource {
  /// The call budget's source for a control request's `source` as the daemon names it: `socket#3` (any of the
  /// socket's connections) is ``controlSocket``, `<stdin>` is ``standardInput``, and any other name (`http`, a
  /// webhook's provider: `sipgate`, `twilio`, `vonage`) is a source of that name.
  init(controlSource source: String) {
    let name = String(source.prefix { $0 != "#" })
    switch name {
    case CallSource.controlSocket.rawValue: self = .controlSocket
    case "<stdin>": self = .standardInput
    default: self.init(name)
    }
  }
}
