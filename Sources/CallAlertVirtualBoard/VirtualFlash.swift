import CallAlertBoardCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// NOR flash in memory: erased bytes read 0xFF, programming can only clear bits, and a power cut can be
/// injected after a given number of programmed bytes. Optionally backed by a file, so the pattern table
/// survives restarts of `callalert board simulate`.
public final class VirtualFlash: BoardFlash {
  /// Bytes per erase page.
  public let pageSize: Int
  /// Number of pages.
  public let pageCount: Int
  /// The whole flash.
  public private(set) var bytes: [UInt8]
  /// Bytes programmed so far (for power-cut injection and statistics).
  public private(set) var programmedBytes = 0
  /// Pages erased so far.
  public private(set) var erasedPages = 0
  /// When set, programming stops dead once this many bytes have been programmed in all: the byte that
  /// crosses it and every later one are not written, and ``powerLost`` turns true.
  public var powerCutAfterProgrammedBytes: Int?
  /// Whether an injected power cut has happened (the owner then reboots the board).
  public private(set) var powerLost = false
  private let path: String?

  /// Creates an erased flash of `pageCount` pages of `pageSize` bytes.
  public init(pageSize: Int = 1_024, pageCount: Int = 64) {
    self.pageSize = pageSize
    self.pageCount = pageCount
    bytes = Array(repeating: 0xFF, count: pageSize * pageCount)
    path = nil
  }

  /// Creates a flash backed by the file at `path`: its contents are loaded when the file exists and has
  /// the right size, and every erase or program is written through.
  public init(path: String, pageSize: Int = 1_024, pageCount: Int = 64) throws(VirtualFlashError) {
    self.pageSize = pageSize
    self.pageCount = pageCount
    self.path = path
    let size = pageSize * pageCount
    bytes = Array(repeating: 0xFF, count: size)
    if let existing = VirtualFlash.load(path) {
      guard existing.count == size else { throw .wrongSize(path: path, expected: size, actual: existing.count) }
      bytes = existing
    } else {
      try persist(range: 0..<size)
    }
  }

  /// Erases one page to 0xFF.
  public func erase(page: Int) -> Bool {
    guard !powerLost, page >= 0, page < pageCount else { return false }
    let range = page * pageSize..<(page + 1) * pageSize
    for index in range { bytes[index] = 0xFF }
    erasedPages += 1
    return (try? persist(range: range)) != nil
  }

  /// Programs bytes: each stored byte becomes `old & new`; fails if that is not `new` (a bit would have to
  /// go from 0 to 1), out of range, or when an injected power cut strikes.
  public func program(address: Int, bytes data: [UInt8]) -> Bool {
    guard !powerLost, address >= 0, address + data.count <= bytes.count else { return false }
    var ok = true
    for (index, byte) in data.enumerated() {
      if let limit = powerCutAfterProgrammedBytes, programmedBytes >= limit {
        powerLost = true
        ok = false
        break
      }
      let stored = bytes[address + index] & byte
      bytes[address + index] = stored
      programmedBytes += 1
      if stored != byte { ok = false }
    }
    _ = try? persist(range: address..<address + data.count)
    return ok
  }

  /// Reads bytes; outside the flash reads 0xFF.
  public func read(address: Int, count: Int) -> [UInt8] {
    (address..<address + count).map { $0 >= 0 && $0 < bytes.count ? bytes[$0] : 0xFF }
  }

  /// Restores power after an injected cut, keeping whatever was written.
  public func restorePower() {
    powerLost = false
    powerCutAfterProgrammedBytes = nil
  }

  private static func load(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var data: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = fread(&chunk, 1, chunk.count, file)
      if count == 0 { break }
      data.append(contentsOf: chunk[0..<count])
    }
    return data
  }

  private func persist(range: Range<Int>) throws(VirtualFlashError) {
    guard let path else { return }
    let fd = open(path, O_WRONLY | O_CREAT, 0o644)
    guard fd >= 0 else { throw .io(path: path, errno: errno) }
    defer { close(fd) }
    let written = bytes[range].withUnsafeBytes { pwrite(fd, $0.baseAddress, range.count, off_t(range.lowerBound)) }
    guard written == range.count else { throw .io(path: path, errno: errno) }
  }
}

/// Why a file-backed virtual flash could not be used.
public enum VirtualFlashError: Error, Equatable, CustomStringConvertible {
  /// The file exists with another size than the flash.
  case wrongSize(path: String, expected: Int, actual: Int)
  /// Reading or writing the file failed.
  case io(path: String, errno: Int32)

  /// A message naming the file.
  public var description: String {
    switch self {
    case .wrongSize(let path, let expected, let actual):
      "flash file \(path) holds \(actual) bytes, expected \(expected): delete it or pass another --flash"
    case .io(let path, let errno):
      "flash file \(path): \(String(cString: strerror(errno)))"
    }
  }
}
