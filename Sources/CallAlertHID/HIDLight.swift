import CHIDAPI
import CallAlertLights
import Dispatch
// Full Foundation, not FoundationEssentials: Thread.
import Foundation
import Synchronization

/// A real light, opened through hidapi's hidraw backend: output reports go out with hid_write (write(2) on
/// the hidraw node), feature reports with hid_send_feature_report (the HIDIOCSFEATURE ioctl), report id
/// first either way.
///
/// The writes happen on a thread of the light's own, in order: a USB HID write blocks until the device took
/// the report (up to the kernel's 5 s for a light that stalls), and the daemon's event loop must not wait for
/// it. A write that failed makes the next ``send(_:)`` throw.
public final class HIDLight: LightDevice {
  private struct State {
    /// hidapi's handle, by its address (a plain value, so the state may cross to the writer thread); nil once
    /// closed.
    var device: UInt?
    var pending: [LightReport] = []
    var failure: LightDeviceError?
    var closing = false
  }

  private let state: Mutex<State>
  /// Rung when reports wait or the light closes.
  private let wake = DispatchSemaphore(value: 0)
  /// Rung when the writer thread has written everything and stopped.
  private let stopped = DispatchSemaphore(value: 0)
  /// Which light, for the log.
  public let name: String

  private init(device: OpaquePointer, name: String) {
    state = Mutex(State(device: UInt(bitPattern: device)))
    self.name = name
    let thread = Thread { [self] in writeUntilClosed() }
    thread.name = "callalert-hid"
    thread.start()
  }

  deinit {
    close()
  }

  /// Opens the hidraw node at `path` (`/dev/hidraw3`); `label` names it in the log.
  public static func open(path: String, label: String) throws(LightDeviceError) -> HIDLight {
    guard HIDLibrary.isReady else { throw LightDeviceError("hidapi could not start (hid_init failed)") }
    guard let device = hid_open_path(path) else {
      throw LightDeviceError("cannot open \(path): \(HIDLibrary.lastError(nil)) (see `callalert doctor`)")
    }
    return HIDLight(device: device, name: label)
  }

  /// Opens the light a board entry names: the node at `path`, else the light of `kind` whose serial number
  /// is `serialNumber`, else the first light of `kind`.
  public static func open(kind: LightKind, path: String?, serialNumber: String?) throws(LightDeviceError) -> HIDLight {
    if let path, path != "auto" {
      return try open(path: path, label: "\(kind.displayName) at \(path)")
    }
    let candidates = HIDLights.discover().filter { $0.kind == kind }
    if let serialNumber {
      guard let found = candidates.first(where: { $0.serialNumber == serialNumber }) else {
        throw LightDeviceError("no \(kind.displayName) with serial number \(serialNumber) is connected")
      }
      return try open(path: found.path, label: found.label)
    }
    guard let found = candidates.first else {
      throw LightDeviceError(
        "no \(kind.displayName) is connected (looked for \(kind.deviceIDs.map(\.description).joined(separator: ", ")))")
    }
    return try open(path: found.path, label: found.label)
  }

  /// Queues one report for the writer thread; throws when an earlier write failed or the light is closed.
  public func send(_ report: LightReport) throws(LightDeviceError) {
    let refusal: LightDeviceError? = state.withLock { state in
      if let failure = state.failure { return failure }
      if state.closing { return LightDeviceError("\(name) is closed") }
      state.pending.append(report)
      return nil
    }
    if let refusal { throw refusal }
    wake.signal()
  }

  /// Writes what is queued, then lets the light go; later sends fail.
  public func close() {
    let first = state.withLock { state in
      defer { state.closing = true }
      return !state.closing
    }
    guard first else { return }
    wake.signal()
    stopped.wait()
  }

  /// The writer thread: each queued report in order, until the light closes.
  private func writeUntilClosed() {
    while true {
      wake.wait()
      let (reports, closing, device) = state.withLock { state in
        defer { state.pending.removeAll() }
        return (state.pending, state.closing, state.device.flatMap { OpaquePointer(bitPattern: $0) })
      }
      for report in reports {
        guard let device else { break }
        let result = report.bytes.withUnsafeBufferPointer { buffer in
          switch report.channel {
          case .output: hid_write(device, buffer.baseAddress, buffer.count)
          case .feature: hid_send_feature_report(device, buffer.baseAddress, buffer.count)
          }
        }
        if result < 0 {
          let failure = LightDeviceError("\(name): writing a report failed: \(HIDLibrary.lastError(device))")
          state.withLock { $0.failure = failure }
          break
        }
      }
      if closing {
        state.withLock { state in
          if let device = state.device.flatMap({ OpaquePointer(bitPattern: $0) }) { hid_close(device) }
          state.device = nil
        }
        stopped.signal()
        return
      }
    }
  }
}
