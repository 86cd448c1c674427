/// Where a call came from, for the call budget: each source has its own share of the active calls
/// (``AlertEngine/maximumActiveCallsPerSource``), so a flood on one cannot keep another from ringing.
///
/// The daemon stamps it on every call as the call arrives (``IncomingCall/source``), from the edge that
/// received it, never from what the sender wrote: nobody on MQTT can claim to be the local socket.
public struct CallSource: RawRepresentable, Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
  /// The source's name: `socket`, `stdin`, `http`, a webhook's provider, `sip:<account>`,
  /// `source:<bridge>`, `mqtt`, `kdeconnect:<phone>`.
  public var rawValue: String

  /// A source named `rawValue`.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// A source named `name`.
  public init(_ name: String) { self.rawValue = name }

  /// The local control socket (`callalert notify`, scripts on this host): its calls always find room.
  public static let controlSocket = CallSource("socket")
  /// The daemon's standard input (`callalert run`, one JSON line per request).
  public static let standardInput = CallSource("stdin")
  /// The HTTP API's `POST /v1/calls` and `POST /v1/push` (a webhook's calls are its provider's source).
  public static let http = CallSource("http")
  /// MQTT's call topics.
  public static let mqtt = CallSource("mqtt")
  /// Calls whose source was not said (engine tests, the demo): a source like any other.
  public static let unattributed = CallSource("unattributed")

  /// A SIP ring extension's account, by its name in `sip: accounts:`.
  public static func sip(_ account: String) -> CallSource { CallSource("sip:\(account)") }

  /// A phone-system bridge of `sources:` (FRITZ!Box call monitor, Asterisk AMI), by its name.
  public static func bridge(_ name: String) -> CallSource { CallSource("source:\(name)") }

  /// A phone paired over KDE Connect, by the name it shows.
  public static func kdeConnect(_ device: String) -> CallSource { CallSource("kdeconnect:\(device)") }

  /// Whether its calls always find room, whatever their level: only the local control socket's.
  public var isLocal: Bool { self == .controlSocket }

  /// The name.
  public var description: String { rawValue }

  /// Orders by name (summaries come out in a stable order).
  public static func < (lhs: CallSource, rhs: CallSource) -> Bool { lhs.rawValue < rhs.rawValue }
}
