import CallAlertTransport

@testable import CallAlertSerial

/// Every byte value, then a run of NULs (the protocol's frame delimiter), then every value backwards.
let everyByteValue: [UInt8] = Array(0...255) + [0, 0, 0] + Array((0...255).reversed())

/// A deterministic, non-repeating-looking pattern of `count` bytes.
func pattern(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
  var state = seed
  return (0..<count).map { _ in
    state = state &* 1_664_525 &+ 1_013_904_223  // an LCG: reproducible, and no two runs of equal bytes
    return UInt8(truncatingIfNeeded: state >> 24)
  }
}

/// How a stream ended.
enum StreamEnd: Equatable {
  case finished
  case failed(SerialPortError.Code, port: String)
  case otherError(String)
}

extension AsyncThrowingStream.Iterator where Element == [UInt8], Failure == any Error {
  /// Reads chunks until at least `count` bytes arrived (or the stream ended).
  mutating func collect(_ count: Int) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    while bytes.count < count, let chunk = try await next() {
      bytes += chunk
    }
    return bytes
  }

  /// Reads to the end of the stream; returns the bytes still delivered and how it ended.
  mutating func drain() async -> (bytes: [UInt8], end: StreamEnd) {
    var bytes: [UInt8] = []
    do {
      while let chunk = try await next() {
        bytes += chunk
      }
      return (bytes, .finished)
    } catch let error as SerialPortError {
      return (bytes, .failed(error.code, port: error.port))
    } catch let error as TransportError {
      let error = SerialPortError(error)  // a channel's failure, in the opener's terms
      return (bytes, .failed(error.code, port: error.port))
    } catch {
      return (bytes, .otherError("\(error)"))
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
