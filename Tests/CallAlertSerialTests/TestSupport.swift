import CallAlertTestSupport
import CallAlertTransport

@testable import CallAlertSerial

/// A deterministic, non-repeating-looking pattern of `count` bytes.
func pattern(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
  var state = seed
  return (0..<count).map { _ in
    state = state &* 1_664_525 &+ 1_013_904_223  // an LCG: reproducible, and no two runs of equal bytes
    return UInt8(truncatingIfNeeded: state >> 24)
  }
}

/// How a stream ended, in the opener's terms.
typealias StreamEnd = CallAlertTestSupport.StreamEnd<SerialPortError.Code>

extension AsyncThrowingStream.Iterator where Element == [UInt8], Failure == any Error {
  /// Reads to the end of the stream; a channel's failure is told as the opener's ``SerialPortError``.
  mutating func drain() async -> (bytes: [UInt8], end: StreamEnd) {
    await drain { error in
      guard let serial = error as? SerialPortError ?? (error as? TransportError).map(SerialPortError.init) else {
        return nil
      }
      return (serial.code, serial.port)
    }
  }
}

/// Runs `body` and returns the ``SerialPortError`` it threw, or nil.
func serialPortError(_ body: () throws -> Void) -> SerialPortError? {
  do {
    try body()
    return nil
  } catch {
    return error as? SerialPortError ?? (error as? TransportError).map(SerialPortError.init)
  }
}

/// Runs `body` and returns the ``SerialPortError`` it threw, or nil.
func serialPortError(_ body: () async throws -> Void) async -> SerialPortError? {
  do {
    try await body()
    return nil
  } catch {
    return error as? SerialPortError ?? (error as? TransportError).map(SerialPortError.init)
  }
}

/// A pseudo-terminal with the slave opened through the transport and the master in a channel.
struct PseudoTerminalPair {
  let slavePath: String
  let slave: DescriptorChannel
  let master: DescriptorChannel

  init() throws {
    let (masterDescriptor, slavePath) = try PseudoTerminal.open()
    self.slavePath = slavePath
    slave = try PseudoTerminal.openSlave(slavePath)
    master = try DescriptorChannel(taking: masterDescriptor, name: "master of \(slavePath)")
  }

  func close() {
    slave.close()
    master.close()
  }
}
