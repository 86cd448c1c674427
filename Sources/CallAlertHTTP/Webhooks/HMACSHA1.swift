/// SHA-1 (FIPS 180-4) and HMAC-SHA1 (RFC 2104), for Twilio's request signatures only: SHA-1 is what
/// Twilio signs with. Written here (tested against RFC 3174's and RFC 2202's vectors) rather than pulling a
/// TLS library into the daemon for one MAC.
enum HMACSHA1 {
  /// HMAC-SHA1 of `message` under `key`: 20 bytes.
  static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
    var block = key.count > 64 ? SHA1.digest(key) : key
    block += [UInt8](repeating: 0, count: 64 - block.count)
    let inner = SHA1.digest(block.map { $0 ^ 0x36 } + message)
    return SHA1.digest(block.map { $0 ^ 0x5C } + inner)
  }
}

/// SHA-1 of a whole message.
enum SHA1 {
  /// The 20-byte digest.
  static func digest(_ message: [UInt8]) -> [UInt8] {
    var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0)
    var padded = message
    padded.append(0x80)
    while padded.count % 64 != 56 { padded.append(0) }
    let bits = UInt64(message.count) &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      padded.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    var w = [UInt32](repeating: 0, count: 80)
    for chunk in stride(from: 0, to: padded.count, by: 64) {
      for i in 0..<16 {
        let j = chunk + i * 4
        w[i] =
          UInt32(padded[j]) << 24 | UInt32(padded[j + 1]) << 16 | UInt32(padded[j + 2]) << 8 | UInt32(padded[j + 3])
      }
      for i in 16..<80 { w[i] = rotate(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1) }
      var (a, b, c, d, e) = h
      for i in 0..<80 {
        let (f, k): (UInt32, UInt32) =
          switch i {
          case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
          case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
          case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
          default: (b ^ c ^ d, 0xCA62_C1D6)
          }
        let temp = rotate(a, 5) &+ f &+ e &+ k &+ w[i]
        (e, d, c, b, a) = (d, c, rotate(b, 30), a, temp)
      }
      h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
    }
    var out: [UInt8] = []
    for word in [h.0, h.1, h.2, h.3, h.4] {
      out += [
        UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8),
        UInt8(truncatingIfNeeded: word),
      ]
    }
    return out
  }

  private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value << count | value >> (32 - count) }
}

/// Comparing secrets without telling by the time taken how much of them matched.
enum ConstantTime {
  /// Whether the two byte strings are equal; the time depends on their lengths only.
  static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
    for index in 0..<max(lhs.count, rhs.count) {
      difference |= (index < lhs.count ? lhs[index] : 0) ^ (index < rhs.count ? rhs[index] : 0xFF)
    }
    return difference == 0 && lhs.count == rhs.count
  }
}
