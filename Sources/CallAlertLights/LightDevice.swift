/// A light the host can write reports to: a real one through hidapi, a virtual one that records them.
public protocol LightDevice: AnyObject, Sendable {
  /// Which light, for the log (`Kuando Busylight 27bb:3bcd at /dev/hidraw3`).
  var name: String { get }
  /// Writes one report; throws when the light is gone.
  func send(_ report: LightReport) throws(LightDeviceError)
  /// Lets the light go.
  func close()
}

/// Why a report did not reach a light.
public struct LightDeviceError: Error, Equatable, CustomStringConvertible {
  /// What went wrong.
  public var description: String

  /// Creates an error.
  public init(_ description: String) {
    self.description = description
  }
}
