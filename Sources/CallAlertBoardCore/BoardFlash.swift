/// The flash region that holds the pattern tables, with NOR semantics.
///
/// Addresses are byte offsets into the region (0 ..< pageSize * pageCount). Erasing sets every byte of a
/// page to 0xFF; programming can only clear bits, so a byte must be erased before it is written with a
/// value that needs a 1 where it now has a 0. The core only ever programs erased bytes, each once.
public protocol BoardFlash {
  /// The erase unit, in bytes.
  var pageSize: Int { get }
  /// How many pages the region has.
  var pageCount: Int { get }
  /// The programming unit, in bytes: every `program` call starts on a multiple of it and writes a
  /// multiple of it (1 for byte-programmable flash; 8 for the STM32L4's double words). Defaults to 1.
  var programUnit: Int { get }

  /// Erases one page; false when the hardware reports a failure.
  mutating func erase(page: Int) -> Bool

  /// Programs `bytes` at `address`; false when the hardware reports a failure (or the write was cut
  /// short: the bytes after the failure point are unknown).
  mutating func program(address: Int, bytes: [UInt8]) -> Bool

  /// Reads `count` bytes at `address`.
  func read(address: Int, count: Int) -> [UInt8]
}

extension BoardFlash {
  /// Byte-programmable flash: no alignment constraint.
  public var programUnit: Int { 1 }
}
