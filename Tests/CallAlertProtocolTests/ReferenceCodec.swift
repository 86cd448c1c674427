/// Independent, deliberately naive implementations of the byte-level layers, written from the published
/// definitions rather than from the codec: the vector generator builds every frame's raw and wire bytes with these,
/// so a vector file checks the codec against a second implementation, not against itself.
enum ReferenceCodec {
  /// CRC-32C bit by bit from its definition: reflected polynomial 0x82F63B78, init and final XOR 0xFFFFFFFF.
  static func crc32c(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
    }
    return ~crc
  }

  /// COBS as Cheshire and Baker's `StuffData` behaves: each zero-delimited part becomes blocks of at most 254 data
  /// bytes, and a part always ends with a block shorter than 254 (possibly empty, code 0x01) that carries the zero.
  /// No delimiter is appended.
  static func cobs(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    for part in bytes.split(separator: 0, omittingEmptySubsequences: false) {
      var rest = part[...]
      while true {
        let block = rest.prefix(254)
        rest = rest.dropFirst(block.count)
        out.append(UInt8(block.count + 1))
        out.append(contentsOf: block)
        if block.count < 254 { break }
      }
    }
    return out
  }

  /// Reverses ``cobs(_:)`` for well-formed input (used only on bytes this file produced).
  static func uncobs(_ encoded: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var index = 0
    while index < encoded.count {
      let code = Int(encoded[index])
      out.append(contentsOf: encoded[(index + 1)..<(index + code)])
      index += code
      if code < 0xFF && index < encoded.count { out.append(0) }
    }
    return out
  }

  /// A little-endian u16.
  static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }

  /// A little-endian u32.
  static func le32(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
  }

  /// A frame's bytes before COBS, field by field from the layout table in Frame.swift:
  /// version, flags, sequence (LE), type, nonce (LE), length (LE), payload, CRC-32C (LE) of everything before it.
  ///
  /// - Parameters:
  ///   - declaredLength: the length field when it should lie (length-mismatch vectors); the payload's count otherwise.
  ///   - crcXor: bits to flip in the stored CRC (bad-CRC vectors).
  static func rawFrame(
    version: UInt8 = 1, flags: UInt8, sequence: UInt16, type: UInt8, nonce: UInt32, payload: [UInt8],
    declaredLength: Int? = nil, crcXor: UInt32 = 0
  ) -> [UInt8] {
    var bytes: [UInt8] = [version, flags] + le16(sequence) + [type] + le32(nonce)
    bytes += le16(UInt16(truncatingIfNeeded: declaredLength ?? payload.count))
    bytes += payload
    return bytes + le32(crc32c(bytes) ^ crcXor)
  }

  /// The wire bytes of a raw frame: COBS, then the 0x00 delimiter.
  static func wire(_ raw: [UInt8]) -> [UInt8] { cobs(raw) + [0] }

  /// One pattern step as the reference writes it: duration_ms, buzzer_hz, buzzer_volume, motor, leds.
  struct Step {
    var durationMs: UInt16
    var buzzerHz: UInt16 = 0
    var buzzerVolume: UInt8 = 0
    var motor: UInt8 = 0
    var leds: UInt8 = 0
  }

  /// A pattern's bytes from its layout: flags 0, repeat, loop_start (LE), step_count (LE), 7 bytes a step.
  static func pattern(repeat repeatCount: UInt8, loopStart: UInt16, steps: [Step], flags: UInt8 = 0) -> [UInt8] {
    var bytes: [UInt8] = [flags, repeatCount] + le16(loopStart) + le16(UInt16(steps.count))
    for step in steps {
      bytes += le16(step.durationMs) + le16(step.buzzerHz) + [step.buzzerVolume, step.motor, step.leds]
    }
    return bytes
  }

  /// A pattern table's bytes from its layout: "CAPT", format 1, slot_count, reserved 0, version, size, a 24-byte
  /// directory entry per slot (offset, length, reserved 0, NUL-padded 16-byte name; all zero when empty), the
  /// patterns in slot order right after the directory, and the CRC-32C of everything before it.
  static func table(version: UInt32, slots: [(name: String, pattern: [UInt8])?]) -> [UInt8] {
    let directoryEnd = 16 + 24 * slots.count
    let size = directoryEnd + slots.reduce(0) { $0 + ($1?.pattern.count ?? 0) } + 4
    var bytes: [UInt8] = Array("CAPT".utf8) + [1, UInt8(slots.count)] + le16(0) + le32(version) + le32(UInt32(size))
    var offset = directoryEnd
    for slot in slots {
      guard let slot else {
        bytes += [UInt8](repeating: 0, count: 24)
        continue
      }
      let name = Array(slot.name.utf8)
      bytes += le32(UInt32(offset)) + le16(UInt16(slot.pattern.count)) + le16(0)
      bytes += name + [UInt8](repeating: 0, count: 16 - name.count)
      offset += slot.pattern.count
    }
    for slot in slots { bytes += slot?.pattern ?? [] }
    return bytes + le32(crc32c(bytes))
  }

  /// `table` with its trailing CRC recomputed, after a test changed bytes before it on purpose.
  static func resealed(_ table: [UInt8]) -> [UInt8] {
    let body = Array(table.dropLast(4))
    return body + le32(crc32c(body))
  }
}
