import CallAlertLights
// Full Foundation, not FoundationEssentials: FileHandle.
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A light that exists only in this process: it takes exactly the reports a real one would be written and
/// records each, read back from its bytes (``LightReportDecoder``), as one JSON line in its timeline:
/// `{"t_ms":1200,"channel":"output","report_id":0,"hex":"0010…","meaning":"show red 100% green 0% blue 0%"}`.
public final class VirtualLight<C: Clock>: LightDevice where C.Duration == Duration {
  /// One report as received.
  public struct Received: Equatable, Sendable {
    /// Milliseconds since the light was made, on its clock.
    public var ms: UInt64
    /// The report.
    public var report: LightReport
    /// What it told the light.
    public var meaning: String

    /// The report as a timeline line (no newline).
    public var jsonLine: String {
      let escaped = meaning.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
      return
        "{\"t_ms\":\(ms),\"channel\":\"\(report.channel.rawValue)\",\"report_id\":\(report.reportID),\"hex\":\"\(report.hex)\",\"meaning\":\"\(escaped)\"}"
    }
  }

  /// Which light, for the log.
  public let name: String
  /// Its kind.
  public let kind: LightKind
  private let clock: C
  private let start: C.Instant
  private let state: Mutex<State>
  private let onReceive: (@Sendable (Received) -> Void)?

  private struct State {
    var received: [Received] = []
    var timeline: FileHandle?
    var closed = false
  }

  /// A virtual light of `kind`; with a `timeline` path, every report is appended there as a JSON line (the
  /// file is made anew). `onReceive` is told each report as it arrives (the terminal display).
  public init(
    kind: LightKind, name: String, timeline: String? = nil, clock: C,
    onReceive: (@Sendable (Received) -> Void)? = nil
  ) throws(LightDeviceError) {
    self.kind = kind
    self.name = name
    self.clock = clock
    self.onReceive = onReceive
    start = clock.now
    var state = State()
    if let timeline {
      guard FileManager.default.createFile(atPath: timeline, contents: nil),
        let handle = FileHandle(forWritingAtPath: timeline)
      else { throw LightDeviceError("cannot write the timeline \(timeline)") }
      state.timeline = handle
    }
    self.state = Mutex(state)
  }

  /// Writes one report; throws when the light is gone or closed.
  public func send(_ report: LightReport) throws(LightDeviceError) {
    let (seconds, attoseconds) = start.duration(to: clock.now).components
    let ms = UInt64(max(0, seconds)) * 1_000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
    let received = Received(ms: ms, report: report, meaning: LightReportDecoder.meaning(of: report, for: kind))
    let closed = state.withLock { state in
      guard !state.closed else { return true }
      state.received.append(received)
      state.timeline?.write(Data((received.jsonLine + "\n").utf8))
      return false
    }
    if closed { throw LightDeviceError("\(name) is closed") }
    onReceive?(received)
  }

  /// Lets the light go; later sends fail.
  public func close() {
    state.withLock { state in
      state.closed = true
      try? state.timeline?.close()
      state.timeline = nil
    }
  }

  /// Every report received so far.
  public var received: [Received] { state.withLock { $0.received } }
}
